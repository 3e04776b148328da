#pragma once
// Reads one trace event that is too large for the tokenizer's buffer (issue 11: a 2 GiB args
// string) as a stream, and keeps a bounded, compact copy of it that JsonEventParser can parse like
// any other event. Bytes are fed chunk by chunk and never kept: the copy holds the event without
// blanks outside strings, stray quotes escaped (pytorch#146900, the same heuristic as the parser),
// and only the top-level keys the parser reads (JsonEventParser::isEventKey).
//
// Bounds, with V the value cap (16 MiB by default):
//   * a string longer than V is cut to its first V bytes, at an escape and UTF-8 boundary;
//   * "args" may take 1.25 V of the copy and the whole event 2.5 V, so a huge args object cannot
//     crowd out the name and times: an element that does not fit is dropped with the rest of the
//     array or object it belongs to (that container is closed, so the copy stays valid JSON), a
//     top-level field that does not fit is dropped alone.
// Every cut is recorded with the offset of the value (relative to the event's '{') for the warning.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

class JsonEventCondenser
{
public:
    enum class Status : std::uint8_t {
        NeedMore, ///< every byte fed was consumed; feed the next chunk
        Done,     ///< the event ended; text() holds it and the position is past its '}'
        Broken,   ///< the event is not valid at its top level; it was read to its end and must be skipped
        Unclosed, ///< the event lacks its '}': the position is at the next event's '{' or the array's ']'
    };
    enum class CutKind : std::uint8_t { StringCut, ValueDropped };
    struct Cut {
        CutKind kind = CutKind::StringCut;
        std::int64_t offset = 0; ///< bytes from the event's '{' to the value
        std::int64_t lines = 0;  ///< newlines between the event's '{' and the value (outside strings)
        std::string field;       ///< the top-level key the value belongs to ("args", "name", ...)
    };

    explicit JsonEventCondenser(std::size_t valueCap) { setValueCap(valueCap); }

    void setValueCap(std::size_t valueCap);
    std::size_t valueCap() const { return m_valueCap; }
    /// Starts a new event; the first byte fed must be its '{'.
    void begin();
    /// Consumes bytes from `p` up to `end` (or up to where the event ends) and moves `p` past them.
    Status feed(const char *&p, const char *end);

    /// The compact copy of the event, once feed() answered Done.
    std::string_view text() const { return m_out; }
    /// The first cuts of the event (at most kMaxCutRecords) and how many there were in all.
    const std::vector<Cut> &cuts() const { return m_cuts; }
    std::int64_t cutCount() const { return m_cutCount; }
    /// After Broken: why, and where (relative to the event's '{').
    const char *brokenReason() const { return m_brokenReason; }
    std::int64_t brokenOffset() const { return m_brokenOffset; }
    std::int64_t brokenLines() const { return m_brokenLines; }

    /// One sentence for the warning about `cut` (a default Cut: a top-level key that was cut).
    std::string describe(const Cut &cut) const;

    static constexpr std::size_t kMaxCutRecords = 16;

private:
    enum class Lex : std::uint8_t { Structure, String, Quote, Token };
    enum class Top : std::uint8_t { Key, Colon, Value, After };
    struct Frame {
        std::size_t limit = 0;     // the copy may not grow past this while inside the frame
        std::size_t elemStart = 0; // copy size before the current element (and its comma)
        std::int64_t elemOffset = 0;
        std::int64_t elemLines = 0;
        bool hasElems = false;
        bool hadElems = false; // hasElems before the current element, restored when it is dropped
        bool atElemStart = true;
    };

    Status structure(const char *&p, char c);
    Status structureKept(const char *&p, char c);
    Status topLevel(const char *&p, char c);
    void string(const char *&p, const char *end);
    void quote(const char *&p, const char *end);
    void token(const char *&p, const char *end);
    void startElement(Frame &f);
    void startString();
    void endString();
    void keep(const char *s, std::size_t n);
    bool fits(std::size_t n) const;
    void overflow();
    void cutString();
    void record(CutKind kind, std::int64_t offset, std::int64_t lines);
    Status closeFrame(const char *&p, char c);
    Status breakEvent(const char *message);
    std::int64_t offsetOf(const char *p) const { return m_consumed + (p - m_chunk); }

    std::size_t m_valueCap = 0;
    std::size_t m_argsBudget = 0;
    std::size_t m_eventBudget = 0;
    std::string m_out;
    std::vector<Frame> m_frames; // containers being copied; the event object is m_frames[0]
    std::int64_t m_depth = 0;    // containers open in the input (copied or not)
    Lex m_lex = Lex::Structure;
    Top m_top = Top::Key;
    bool m_started = false;
    bool m_keeping = true;    // false while input is dropped
    bool m_untilComma = false; // dropping one top-level member: stop at the next ',' or '}' at depth 1
    bool m_broken = false;
    bool m_memberIsArgs = false;
    char m_prev = 0; // last non-blank byte outside strings ('"' after a string)
    // The string being read.
    bool m_strKept = false;   // it is being copied (false: dropped with its container)
    bool m_strCopying = false; // its content still fits
    bool m_strIsKey = false;  // a top-level key
    bool m_escape = false;    // the next content byte is escaped
    std::size_t m_strStart = 0;
    std::size_t m_strRoom = 0;
    std::int64_t m_strOffset = 0;
    std::int64_t m_strLines = 0;
    std::string m_blanks;        // blanks after a quote that may or may not close the string
    std::int64_t m_blankLines = 0;
    std::size_t m_tokenLength = 0;
    std::string m_member; // the current top-level key, for the warning
    // Where in the input we are.
    const char *m_chunk = nullptr; // start of the piece being fed
    const char *m_pos = nullptr;   // the structural byte being read
    std::int64_t m_consumed = 0;
    std::int64_t m_lines = 0;
    std::vector<Cut> m_cuts;
    std::int64_t m_cutCount = 0;
    const char *m_brokenReason = nullptr;
    std::int64_t m_brokenOffset = 0;
    std::int64_t m_brokenLines = 0;
};

} // namespace rs
