#pragma once
// A streaming reader specialised for Chrome/Kineto trace JSON. It never builds a document: it walks
// the top-level object key by key and hands out the elements of an event array one at a time, each
// as a flat view of its top-level fields. Decompressed bytes are pulled from an InputStream in
// chunks (1 MiB by default); an event that straddles the buffer end is re-parsed from its start
// after the buffer was compacted and refilled, so the parser never has to suspend mid-value.
//
// Tolerated, because real traces contain them (FORMATS.md §1): leading whitespace and a BOM,
// unescaped '"' inside strings (pytorch#146900: a quote only closes a string when the next
// non-blank character is one of , : } ]), string pids/tids, bare inf/nan tokens, unknown keys
// anywhere, a truncated file (an error with the byte offset; everything before it is kept) and
// garbage inside an event (an error with offset and line; the event is skipped, the rest is read).
//
// Memory stays bounded whatever the file holds (issue 11): the buffer grows for an event larger
// than a chunk only up to the value limit (16 MiB). An event that does not fit then is read as a
// stream by JsonEventCondenser, which keeps a compact copy with every string longer than the limit
// cut (and, in pathological events, elements dropped); each cut is a `value-too-long` warning at
// the value's offset, so the file gets one warning counting them. Top-level keys and values are
// bounded the same way.

#include "diagnostic.h"
#include "inputstream.h"
#include "jsoneventcondenser.h"
#include "jsoneventparser.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace rs {

class JsonTokenizer
{
public:
    /// Receives every problem found, in order. Event-level errors are capped (see suppressedErrors()).
    using DiagnosticSink = std::function<void(Diagnostic)>;
    /// Called after each chunk is read; returning false cancels (the reader stops as at EOF).
    using ChunkHook = std::function<bool()>;

    enum class Root : std::uint8_t {
        Object,  ///< `{...}`: walk it with nextKey()
        Array,   ///< `[...]`: a bare Chrome trace; call nextEvent() directly
        NotJson, ///< the first non-blank byte starts neither
        Empty,   ///< nothing but whitespace
    };

    /// The longest string kept whole; longer ones are cut (and events larger than it streamed).
    static constexpr std::size_t kDefaultValueLimit = std::size_t(16) << 20;

    JsonTokenizer(InputStream &in, DiagnosticSink sink, ChunkHook hook = {}, std::size_t chunkBytes = 1 << 20);
    ~JsonTokenizer();
    JsonTokenizer(const JsonTokenizer &) = delete;
    JsonTokenizer &operator=(const JsonTokenizer &) = delete;

    /// Changes the value limit (tests use small ones); call before open(). The buffer never
    /// shrinks below the first chunk, so an event that fits the first chunk is never cut.
    void setValueLimit(std::size_t bytes);
    /// Reads up to the first '{' or '['. Call once, first.
    Root open();
    /// Object root: advances to the next top-level key (skipping an unconsumed previous value).
    /// False at the closing brace, at the end of the data (a truncation error is reported) or on cancel.
    bool nextKey(std::string &key);
    /// After nextKey(): copies the value as compact JSON text into `out`, at most `cap` bytes
    /// (`*cut` tells whether it was longer). The rest of a longer value is skipped, never buffered.
    bool readValue(std::string &out, std::size_t cap, bool *cut = nullptr);
    /// After nextKey(): enters the value when it is an array (then call nextEvent() until false);
    /// otherwise skips it and returns false.
    bool enterArray();
    /// Inside an array: parses the next object element into `ev`. Elements that are not objects are
    /// skipped with a warning, broken ones with an error. False once the array ends, at the end of
    /// the data (a truncation error is reported) or on cancel.
    bool nextEvent(JsonEvent &ev);

    bool cancelled() const { return m_cancelled; }
    /// True when the data ended before the JSON structure was closed.
    bool truncated() const { return m_truncated; }
    /// Events skipped because they could not be parsed.
    std::int64_t brokenEvents() const { return m_brokenEvents; }
    /// Strings cut and values dropped because they were longer than the value limit.
    std::int64_t cutValues() const { return m_cutValues; }
    /// Event errors beyond the reporting cap (counted, not sent to the sink).
    std::int64_t suppressedErrors() const { return m_suppressed; }

private:
    enum class State : std::uint8_t { Start, Object, Array, Done };

    bool refill();
    void grow();
    bool skipBlanks();
    std::int64_t lineAt(const char *pos) const;
    std::int64_t offsetAt(const char *pos) const { return m_base + (pos - m_buf.get()); }
    void report(Diagnostic::Severity severity, std::string message, const char *at);
    void report(Diagnostic::Severity severity, std::string message, std::int64_t line, std::int64_t offset);
    void reportTruncated(const char *where);
    void leaveArray();
    bool streamValue(std::string *out, std::size_t cap, bool *cut, const char *where = "a top-level value");
    bool readKey(std::string &key);
    void skipJunk();
    bool condenseEvent(JsonEvent &ev);
    void reportCut(const JsonEventCondenser::Cut &cut, std::int64_t count, std::int64_t eventOffset, std::int64_t eventLine);

    InputStream &m_in;
    DiagnosticSink m_sink;
    ChunkHook m_hook;
    std::size_t m_cap;
    std::size_t m_limit = kDefaultValueLimit;
    std::unique_ptr<char[]> m_buf;
    const char *m_cur = nullptr; // first byte not yet consumed
    const char *m_end = nullptr; // one past the last valid byte
    std::int64_t m_base = 0;        // stream offset of m_buf[0]
    std::int64_t m_linesBefore = 0; // '\n' in the stream before m_buf[0]
    JsonEventParser m_parser;
    JsonEventCondenser m_condenser{kDefaultValueLimit};
    State m_state = State::Start;
    bool m_rootIsArray = false;
    bool m_afterItem = false;    // a value was read at the current level; ',' or a closer comes next
    bool m_valuePending = false; // nextKey() returned and the value was not consumed yet
    bool m_eof = false;
    bool m_full = false; // refill() stopped: the value at m_cur fills a buffer of the value limit
    bool m_cancelled = false;
    bool m_truncated = false;
    bool m_warnedComma = false;
    std::int64_t m_brokenEvents = 0;
    std::int64_t m_reported = 0;
    std::int64_t m_suppressed = 0;
    std::int64_t m_events = 0;
    std::int64_t m_cutValues = 0;
};

} // namespace rs
