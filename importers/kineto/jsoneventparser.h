#pragma once
// Parses one trace event object that lies in memory into a flat view of its top-level fields.
// JsonTokenizer owns the buffer and calls this once per event; when the object runs past the bytes
// available the parser answers NeedMore and the tokenizer refills and parses again from the start,
// so nothing here ever has to suspend in the middle of a value.
//
// Strings follow the pytorch#146900 heuristic: a quote closes a string only when the next
// non-blank character is one of , : } ] — otherwise it is a stray quote inside the string.

#include "jsonraw.h"

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace rs {

/// The top-level fields of one trace event. Every view points into the tokenizer's buffer or the
/// parser's scratch and is valid until the next event is parsed.
struct JsonEvent {
    JsonRaw ph;   ///< phase: X, B, E, i, I, C, M, s, f, t, ...
    JsonRaw cat;  ///< category (absent on metadata and some instants)
    JsonRaw name; ///< event name, escapes decoded
    JsonRaw pid;  ///< process id, or device index for GPU events; a number or a string
    JsonRaw tid;  ///< thread id, or stream id for GPU events; a number or a string
    JsonRaw ts;   ///< start, decimal microseconds as written
    JsonRaw dur;  ///< duration of X events, decimal microseconds as written
    JsonRaw id;   ///< flow id (s/f/t events)
    JsonRaw s;    ///< instant scope: "t" thread, "p" process, "g" global
    JsonRaw bp;   ///< flow binding point ("e" on f events)
    /// The args object as compact JSON text (whitespace outside strings removed, stray quotes
    /// escaped), or empty when the event has no args object.
    std::string_view args;
    /// The top-level keys of args with their raw values, in file order.
    std::vector<std::pair<std::string_view, JsonRaw>> argList;
    /// Byte offset of the event's '{' in the decompressed stream.
    std::int64_t offset = 0;

    /// The value of args key `key`, or nullptr.
    const JsonRaw *arg(std::string_view key) const
    {
        for (const auto &kv : argList)
            if (kv.first == key)
                return &kv.second;
        return nullptr;
    }
};

class JsonEventParser
{
public:
    enum class Result : std::uint8_t {
        Ok,       ///< parsed; the position moved past the value
        NeedMore, ///< the bytes ended first: supply more and parse again from the same start
        Syntax,   ///< invalid here; errorAt() and errorMessage() say where and why
    };

    static bool isBlank(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    /// After a candidate closing quote, one of these (past blanks) confirms that it closes.
    static bool closesString(char c) { return c == ',' || c == ':' || c == '}' || c == ']'; }
    static bool endsToken(char c)
    {
        return isBlank(c) || c == ',' || c == ':' || c == '}' || c == ']' || c == '{' || c == '[' || c == '"';
    }

    /// The '\n' bytes among `n` bytes at `p` (the tokenizer's line numbers), fast on any line length.
    static std::int64_t countNewlines(const char *p, std::size_t n);
    /// True for the top-level event keys parseEvent() reads; it skips the others.
    static bool isEventKey(std::string_view key);

    /// One past the last byte the scanners may read; set it before each use.
    void setEnd(const char *end) { m_end = end; }
    /// Forgets the previous event's decoded text and makes room for events up to `maxEventBytes`.
    void beginEvent(std::size_t maxEventBytes);

    /// Parses the object at `p` (which points at '{') into `ev`; on Ok, `p` is past its '}'.
    Result parseEvent(const char *&p, JsonEvent &ev);
    /// After Syntax: from the broken event's '{' at `p`, finds where it ends — its matching brace,
    /// or where the next event evidently begins (`atNextEvent`, left unconsumed).
    Result skipBroken(const char *&p, bool &atNextEvent);
    /// Scans the string at `p` (which points at '"'); `out.text` is its raw content.
    Result scanString(const char *&p, JsonRaw &out);
    /// Decodes escapes of `escaped` into the scratch (valid until beginEvent()).
    std::string_view decode(std::string_view escaped);

    const char *errorAt() const { return m_failAt; }
    const char *errorMessage() const { return m_failMessage; }

private:
    Result syntax(const char *at, const char *message);
    Result scanToken(const char *&p, JsonRaw &out);
    Result scanNested(const char *&p, bool &sawBlank);
    Result scanValue(const char *&p, JsonRaw &out, bool &sawBlank);
    Result skipWs(const char *&p, bool &sawBlank);
    Result parseArgs(const char *&p, JsonEvent &ev);
    std::string_view compact(std::string_view raw);

    const char *m_end = nullptr;
    std::unique_ptr<char[]> m_scratch; // decoded strings and compacted args of the current event
    std::size_t m_scratchCap = 0;
    std::size_t m_scratchUsed = 0;
    bool m_strayQuote = false; // scanString met an unescaped quote inside a string
    const char *m_failAt = nullptr;
    const char *m_failMessage = nullptr;
};

} // namespace rs
