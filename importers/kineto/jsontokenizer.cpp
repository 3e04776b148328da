#include "jsontokenizer.h"

#include <algorithm>
#include <cstring>

namespace rs {

namespace {

// Enough to show a pattern; the rest is counted in suppressedErrors().
constexpr std::int64_t kMaxReported = 50;

constexpr auto isBlank = JsonEventParser::isBlank;
constexpr auto closesString = JsonEventParser::closesString;
constexpr auto endsToken = JsonEventParser::endsToken;
constexpr auto countNewlines = JsonEventParser::countNewlines;

} // namespace

JsonTokenizer::JsonTokenizer(InputStream &in, DiagnosticSink sink, ChunkHook hook, std::size_t chunkBytes)
    : m_in(in), m_sink(std::move(sink)), m_hook(std::move(hook)), m_cap(std::max<std::size_t>(chunkBytes, 64)),
      m_buf(std::make_unique_for_overwrite<char[]>(m_cap))
{
    m_cur = m_end = m_buf.get();
}

JsonTokenizer::~JsonTokenizer() = default;

void JsonTokenizer::setValueLimit(std::size_t bytes)
{
    m_limit = std::max<std::size_t>(bytes, 64);
    m_condenser.setValueCap(m_limit);
}

bool JsonTokenizer::refill()
{
    if (m_eof || m_cancelled)
        return false;
    char *buf = m_buf.get();
    const auto drop = static_cast<std::size_t>(m_cur - buf);
    const auto keep = static_cast<std::size_t>(m_end - m_cur);
    if (drop > 0) {
        m_linesBefore += countNewlines(buf, drop);
        m_base += static_cast<std::int64_t>(drop);
        std::memmove(buf, m_cur, keep);
        m_cur = buf;
        m_end = buf + keep;
    }
    if (keep == m_cap) {
        // One value larger than the buffer: it may grow up to the value limit, no further, so that
        // a 2 GiB string cannot take 4 GiB; callers stream what m_full says does not fit.
        if (m_cap >= m_limit) {
            m_full = true;
            return false;
        }
        grow();
    }
    buf = m_buf.get();
    const std::size_t got = m_in.read(buf + keep, m_cap - keep);
    m_end = buf + keep + got;
    if (got == 0)
        m_eof = true;
    if (m_hook && !m_hook())
        m_cancelled = true;
    return got > 0 && !m_cancelled;
}

void JsonTokenizer::grow()
{
    const auto keep = static_cast<std::size_t>(m_end - m_cur);
    const std::size_t cap = std::min(m_cap * 2, std::max(m_cap, m_limit));
    auto bigger = std::make_unique_for_overwrite<char[]>(cap);
    std::memcpy(bigger.get(), m_cur, keep);
    m_buf = std::move(bigger);
    m_cap = cap;
    m_cur = m_buf.get();
    m_end = m_cur + keep;
}

bool JsonTokenizer::skipBlanks()
{
    for (;;) {
        while (m_cur < m_end && isBlank(*m_cur))
            ++m_cur;
        if (m_cur < m_end)
            return true;
        if (!refill())
            return false;
    }
}

std::int64_t JsonTokenizer::lineAt(const char *pos) const
{
    return m_linesBefore + countNewlines(m_buf.get(), static_cast<std::size_t>(pos - m_buf.get())) + 1;
}

void JsonTokenizer::report(Diagnostic::Severity severity, std::string message, const char *at)
{
    if (m_reported >= kMaxReported) { // before lineAt(), which scans the buffer
        ++m_suppressed;
        return;
    }
    report(severity, std::move(message), lineAt(at), offsetAt(at));
}

void JsonTokenizer::report(Diagnostic::Severity severity, std::string message, std::int64_t line, std::int64_t offset)
{
    if (m_reported >= kMaxReported) {
        ++m_suppressed;
        return;
    }
    ++m_reported;
    if (m_sink)
        m_sink({.severity = severity, .code = "json-syntax", .message = std::move(message), .line = line, .offset = offset});
}

void JsonTokenizer::reportTruncated(const char *where)
{
    m_truncated = true;
    if (m_sink)
        m_sink({.severity = Diagnostic::Severity::Error,
                .code = "truncated",
                .message = std::string("the file ends inside ") + where + " after " + std::to_string(m_events)
                    + " events (truncated?); everything before that point was kept",
                .line = lineAt(m_end),
                .offset = offsetAt(m_end)});
}

JsonTokenizer::Root JsonTokenizer::open()
{
    while (m_end - m_cur < 3 && refill()) {
    }
    if (m_end - m_cur >= 3 && std::memcmp(m_cur, "\xEF\xBB\xBF", 3) == 0)
        m_cur += 3;
    if (!skipBlanks()) {
        m_state = State::Done;
        return Root::Empty;
    }
    const char c = *m_cur;
    if (c == '{' || c == '[') {
        ++m_cur;
        m_rootIsArray = c == '[';
        m_state = m_rootIsArray ? State::Array : State::Object;
        return m_rootIsArray ? Root::Array : Root::Object;
    }
    m_state = State::Done;
    return Root::NotJson;
}

bool JsonTokenizer::nextKey(std::string &key)
{
    if (m_state == State::Object && m_valuePending)
        streamValue(nullptr, 0, nullptr);
    while (m_state == State::Object) {
        if (!skipBlanks()) {
            if (!m_cancelled)
                reportTruncated("the top-level object");
            break;
        }
        const char c = *m_cur;
        if (m_afterItem && c == ',') {
            ++m_cur;
            m_afterItem = false;
            continue;
        }
        if (c == '}') {
            ++m_cur;
            break;
        }
        if (m_afterItem || c != '"') {
            // A broken top-level structure gives no safe place to resume.
            report(Diagnostic::Severity::Error, "unexpected text between top-level keys; the rest of the file was not read", m_cur);
            break;
        }
        if (!readKey(key))
            return false;
        if (!skipBlanks() || *m_cur != ':') {
            if (m_cur < m_end)
                report(Diagnostic::Severity::Error, "expected ':' after top-level key \"" + key + "\"", m_cur);
            else if (!m_cancelled)
                reportTruncated("the top-level object");
            break;
        }
        ++m_cur;
        if (!skipBlanks()) {
            if (!m_cancelled)
                reportTruncated("the top-level object");
            break;
        }
        m_valuePending = true;
        m_afterItem = true;
        return true;
    }
    m_state = State::Done;
    return false;
}

bool JsonTokenizer::readValue(std::string &out, std::size_t cap, bool *cut)
{
    out.clear();
    if (cut)
        *cut = false;
    if (m_state != State::Object || !m_valuePending)
        return false;
    return streamValue(&out, cap, cut);
}

bool JsonTokenizer::enterArray()
{
    if (m_state != State::Object || !m_valuePending)
        return false;
    if (*m_cur != '[') {
        streamValue(nullptr, 0, nullptr);
        return false;
    }
    ++m_cur;
    m_valuePending = false;
    m_afterItem = false;
    m_state = State::Array;
    return true;
}

void JsonTokenizer::leaveArray()
{
    m_afterItem = true;
    m_state = m_rootIsArray ? State::Done : State::Object;
}

// A byte-at-a-time state machine, so a top-level value of any size streams through without being
// buffered whole. Only metadata goes through here, never the event array.
bool JsonTokenizer::streamValue(std::string *out, std::size_t cap, bool *cut, const char *where)
{
    m_valuePending = false;
    enum class Mode { Start, Normal, String, Escape, Quote, Token } mode = Mode::Start;
    std::int64_t depth = 0;
    std::string blanks; // blanks after a quote that may or may not close its string
    bool blanksCut = false;
    const auto put = [&](char c) {
        if (!out)
            return;
        if (out->size() < cap)
            out->push_back(c);
        else if (cut)
            *cut = true;
    };
    for (;;) {
        if (m_cur == m_end && !refill()) {
            if (!m_cancelled && depth == 0 && (mode == Mode::Token || mode == Mode::Quote)) {
                if (mode == Mode::Quote)
                    put('"');
                return true;
            }
            if (!m_cancelled)
                reportTruncated(where);
            m_state = State::Done;
            return false;
        }
        const char c = *m_cur;
        switch (mode) {
        case Mode::Start:
            if (c == '"' || c == '{' || c == '[') {
                put(c);
                ++m_cur;
                mode = c == '"' ? Mode::String : Mode::Normal;
                depth = c == '"' ? 0 : 1;
            } else {
                mode = Mode::Token;
            }
            break;
        case Mode::Normal:
            ++m_cur;
            if (isBlank(c))
                break;
            put(c);
            if (c == '"')
                mode = Mode::String;
            else if (c == '{' || c == '[')
                ++depth;
            else if ((c == '}' || c == ']') && --depth == 0)
                return true;
            break;
        case Mode::String:
            ++m_cur;
            if (c == '"') {
                blanks.clear();
                blanksCut = false;
                mode = Mode::Quote;
            } else {
                put(c);
                if (c == '\\')
                    mode = Mode::Escape;
            }
            break;
        case Mode::Escape:
            ++m_cur;
            put(c);
            mode = Mode::String;
            break;
        case Mode::Quote:
            if (isBlank(c)) {
                // Blanks past the cap would be cut if the quote is stray, and are dropped if it closes.
                if (out && out->size() + blanks.size() < cap)
                    blanks.push_back(c);
                else if (out && cut)
                    blanksCut = true;
                ++m_cur;
            } else if (closesString(c)) {
                put('"');
                if (depth == 0)
                    return true;
                mode = Mode::Normal; // c is read again as structure
            } else {
                // A stray quote inside the string: keep it, escaped so the copy is valid JSON.
                put('\\');
                put('"');
                for (char b : blanks)
                    put(b);
                if (blanksCut)
                    *cut = true;
                mode = Mode::String; // c is read again as string content
            }
            break;
        case Mode::Token:
            if (endsToken(c))
                return true;
            put(c);
            ++m_cur;
            break;
        }
    }
}

void JsonTokenizer::skipJunk()
{
    const char c = *m_cur;
    if (c == '"' || c == '[' || c == '{' || !endsToken(c))
        streamValue(nullptr, 0, nullptr);
    else
        ++m_cur; // a lone delimiter
}

bool JsonTokenizer::nextEvent(JsonEvent &ev)
{
    while (m_state == State::Array) {
        if (!skipBlanks()) {
            if (!m_cancelled)
                reportTruncated("the event array");
            m_state = State::Done;
            return false;
        }
        const char c = *m_cur;
        if (m_afterItem && c == ',') {
            ++m_cur;
            m_afterItem = false;
            continue;
        }
        if (c == ']') {
            ++m_cur;
            leaveArray();
            return false;
        }
        if (c != '{') {
            report(m_afterItem ? Diagnostic::Severity::Error : Diagnostic::Severity::Warning,
                   m_afterItem ? "unexpected text between events; it was skipped"
                               : "an element of the event array is not an object; it was skipped",
                   m_cur);
            skipJunk();
            m_afterItem = true;
            continue;
        }
        if (m_afterItem && !m_warnedComma) {
            m_warnedComma = true;
            report(Diagnostic::Severity::Warning, "a comma is missing between two events", m_cur);
        }
        for (;;) {
            m_parser.beginEvent(m_cap); // an event never exceeds the buffer
            m_parser.setEnd(m_end);
            const char *p = m_cur;
            auto result = m_parser.parseEvent(p, ev);
            if (result == JsonEventParser::Result::Ok) {
                ev.offset = offsetAt(m_cur);
                m_cur = p;
                m_afterItem = true;
                ++m_events;
                return true;
            }
            if (result == JsonEventParser::Result::Syntax) {
                const char *failAt = m_parser.errorAt();
                const std::string message = m_parser.errorMessage();
                p = m_cur;
                bool atNextEvent = false;
                result = m_parser.skipBroken(p, atNextEvent);
                if (result == JsonEventParser::Result::Ok) {
                    ++m_brokenEvents;
                    report(Diagnostic::Severity::Error, "cannot read an event (" + message + "); it was skipped", failAt);
                    m_cur = p;
                    m_afterItem = !atNextEvent;
                    break;
                }
            }
            // The event runs past the buffer: compact, refill and parse it again from its start.
            if (!refill()) {
                if (m_full) {
                    if (condenseEvent(ev))
                        return true;
                    break;
                }
                if (!m_cancelled)
                    reportTruncated("the event array");
                m_state = State::Done;
                return false;
            }
        }
    }
    return false;
}

// Keys stream like values, which bounds them by the value limit as well. A cut one is reported
// without a line: finding it would cost a scan of the buffer for every key.
bool JsonTokenizer::readKey(std::string &key)
{
    const std::int64_t offset = offsetAt(m_cur);
    std::string raw;
    bool cut = false;
    if (!streamValue(&raw, m_limit, &cut, "a top-level key"))
        return false;
    raw.erase(0, 1); // the quotes
    if (!cut && !raw.empty())
        raw.pop_back();
    key.resize(raw.size());
    key.resize(JsonRaw::unescapeTo(raw, key.data()));
    if (cut)
        reportCut({}, 1, offset, -1);
    return true;
}

// An event that does not fit a buffer of the value limit: streamed through the condenser, which
// keeps a bounded copy, and that copy is parsed like any event.
bool JsonTokenizer::condenseEvent(JsonEvent &ev)
{
    m_full = false;
    const std::int64_t line = lineAt(m_cur);
    const std::int64_t offset = offsetAt(m_cur);
    m_condenser.begin();
    JsonEventCondenser::Status st = JsonEventCondenser::Status::NeedMore;
    while ((st = m_condenser.feed(m_cur, m_end)) == JsonEventCondenser::Status::NeedMore) {
        if (!refill()) {
            if (!m_cancelled)
                reportTruncated("the event array");
            m_state = State::Done;
            return false;
        }
    }
    if (m_condenser.cutCount() > 0)
        reportCut(m_condenser.cuts().front(), m_condenser.cutCount(), offset, line);
    m_afterItem = true;
    const char *why = "the copy of the event is incomplete";
    if (st == JsonEventCondenser::Status::Done) {
        const std::string_view text = m_condenser.text();
        m_parser.beginEvent(text.size());
        m_parser.setEnd(text.data() + text.size());
        const char *p = text.data();
        const auto result = m_parser.parseEvent(p, ev);
        if (result == JsonEventParser::Result::Ok) {
            ev.offset = offset;
            ++m_events;
            return true;
        }
        if (result == JsonEventParser::Result::Syntax)
            why = m_parser.errorMessage();
    }
    ++m_brokenEvents;
    if (st == JsonEventCondenser::Status::Broken) {
        report(Diagnostic::Severity::Error, std::string("cannot read an event (") + m_condenser.brokenReason() + "); it was skipped",
               line + m_condenser.brokenLines(), offset + m_condenser.brokenOffset());
    } else if (st == JsonEventCondenser::Status::Unclosed) {
        m_afterItem = *m_cur != '{';
        report(Diagnostic::Severity::Error, "cannot read an event (it has no closing '}'); it was skipped", m_cur);
    } else {
        report(Diagnostic::Severity::Error, std::string("cannot read an event (") + why + "); it was skipped", line, offset);
    }
    return false;
}

// One warning per event, counting its cuts; the importer adds the counts up per file.
void JsonTokenizer::reportCut(const JsonEventCondenser::Cut &cut, std::int64_t count, std::int64_t eventOffset,
                              std::int64_t eventLine)
{
    m_cutValues += count;
    if (m_sink)
        m_sink({.code = "value-too-long",
                .message = m_condenser.describe(cut),
                .line = eventLine < 0 ? -1 : eventLine + cut.lines,
                .offset = eventOffset + cut.offset,
                .count = count});
}

} // namespace rs
