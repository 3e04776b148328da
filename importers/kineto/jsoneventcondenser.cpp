#include "jsoneventcondenser.h"

#include "jsoneventparser.h"

#include <algorithm>
#include <cstring>

namespace rs {

namespace {

constexpr auto isBlank = JsonEventParser::isBlank;
constexpr auto closesString = JsonEventParser::closesString;
constexpr auto endsToken = JsonEventParser::endsToken;

// With less room than this a string is not started: its element is dropped instead of being
// kept as a few meaningless bytes.
constexpr std::size_t kMinStringRoom = 16;

std::size_t backslashRun(const char *begin, const char *end)
{
    std::size_t run = 0;
    while (end - static_cast<std::ptrdiff_t>(run) > begin && end[-1 - static_cast<std::ptrdiff_t>(run)] == '\\')
        ++run;
    return run;
}

// A string cut at an arbitrary byte may end in half an escape or half a UTF-8 character; either
// would make the copy invalid JSON or invalid text, so the partial piece goes too.
void trimPartial(std::string &s, std::size_t from)
{
    std::size_t run = 0;
    while (s.size() - run > from && s[s.size() - 1 - run] == '\\')
        ++run;
    if (run & 1)
        s.pop_back();
    // A \u escape missing hex digits; then a whole one that is the first half of a surrogate pair.
    const auto escapeAt = [&](std::size_t back) {
        const std::size_t i = s.size() - back;
        if (back > s.size() - from || s[i] != '\\' || s[i + 1] != 'u')
            return false;
        std::size_t before = 0;
        while (i - before > from && s[i - 1 - before] == '\\')
            ++before;
        return (before & 1) == 0;
    };
    for (std::size_t back = 2; back <= 5; ++back)
        if (escapeAt(back)) {
            s.resize(s.size() - back);
            break;
        }
    if (escapeAt(6) && (s[s.size() - 4] == 'd' || s[s.size() - 4] == 'D')
        && std::string_view("89abAB").find(s[s.size() - 3]) != std::string_view::npos)
        s.resize(s.size() - 6);
    std::size_t cont = 0;
    while (cont < 3 && s.size() - cont > from && (static_cast<unsigned char>(s[s.size() - 1 - cont]) & 0xc0) == 0x80)
        ++cont;
    if (s.size() - cont > from) {
        const auto lead = static_cast<unsigned char>(s[s.size() - 1 - cont]);
        const std::size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
        if (need > cont + 1)
            s.resize(s.size() - 1 - cont);
    }
}

} // namespace

void JsonEventCondenser::setValueCap(std::size_t valueCap)
{
    m_valueCap = std::max<std::size_t>(valueCap, 64);
    m_argsBudget = m_valueCap + m_valueCap / 4;
    m_eventBudget = 2 * m_valueCap + m_valueCap / 2;
}

void JsonEventCondenser::begin()
{
    // One huge event must not pin its copy for the rest of the file.
    if (m_out.capacity() > (std::size_t(4) << 20))
        std::string().swap(m_out);
    else
        m_out.clear();
    m_frames.clear();
    m_depth = 0;
    m_lex = Lex::Structure;
    m_top = Top::Key;
    m_started = false;
    m_keeping = true;
    m_untilComma = false;
    m_broken = false;
    m_memberIsArgs = false;
    m_prev = 0;
    m_blanks.clear();
    m_member.clear();
    m_consumed = 0;
    m_lines = 0;
    m_cuts.clear();
    m_cutCount = 0;
    m_brokenReason = nullptr;
}

JsonEventCondenser::Status JsonEventCondenser::feed(const char *&p, const char *end)
{
    m_chunk = p;
    Status st = Status::NeedMore;
    while (p < end && st == Status::NeedMore) {
        switch (m_lex) {
        case Lex::String:
            string(p, end);
            break;
        case Lex::Quote:
            quote(p, end);
            break;
        case Lex::Token:
            token(p, end);
            break;
        case Lex::Structure:
            if (isBlank(*p)) {
                m_lines += *p == '\n';
                ++p;
            } else {
                m_pos = p;
                st = structure(p, *p);
            }
            break;
        }
    }
    m_consumed += p - m_chunk;
    return st;
}

JsonEventCondenser::Status JsonEventCondenser::structure(const char *&p, char c)
{
    if (!m_started) {
        m_started = true;
        ++p;
        m_depth = 1;
        m_prev = c;
        Frame event;
        event.limit = m_eventBudget;
        m_frames.push_back(event);
        m_out.push_back('{');
        return Status::NeedMore;
    }
    // The parser's rule for a lost '}': at the event's own level these can only start the next
    // event or end the array.
    if (m_depth == 1 && (c == ']' || (c == '{' && m_prev == ',')))
        return Status::Unclosed;
    m_prev = c;
    if (m_keeping)
        return m_frames.size() == 1 ? topLevel(p, c) : structureKept(p, c);
    switch (c) {
    case '"':
        ++p;
        m_strKept = false;
        m_escape = false;
        m_lex = Lex::String;
        break;
    case '{':
    case '[':
        ++m_depth;
        ++p;
        break;
    case '}':
    case ']':
        if (m_depth == static_cast<std::int64_t>(m_frames.size())) {
            m_keeping = true;
            m_untilComma = false;
            return closeFrame(p, c);
        }
        --m_depth;
        ++p;
        break;
    case ',':
        if (m_untilComma && m_depth == 1) {
            m_keeping = true;
            m_untilComma = false;
            return topLevel(p, c);
        }
        ++p;
        break;
    default:
        ++p;
        break;
    }
    return Status::NeedMore;
}

JsonEventCondenser::Status JsonEventCondenser::topLevel(const char *&p, char c)
{
    Frame &f = m_frames.back();
    m_prev = c;
    switch (m_top) {
    case Top::Key:
        if (c == '}')
            return closeFrame(p, c);
        if (c != '"')
            return breakEvent("expected a key or '}'");
        m_member.clear();
        m_memberIsArgs = false;
        startElement(f);
        m_strIsKey = true;
        startString();
        if (m_keeping)
            ++p;
        return Status::NeedMore;
    case Top::Colon:
        if (c != ':')
            return breakEvent("expected ':' after a key");
        if (!fits(1)) {
            overflow();
            return Status::NeedMore;
        }
        m_out.push_back(':');
        ++p;
        m_top = Top::Value;
        return Status::NeedMore;
    case Top::Value:
        if (c == ',' || c == '}' || c == ':')
            return breakEvent("expected a value");
        break;
    case Top::After:
        if (c == ',') {
            ++p;
            m_top = Top::Key;
            return Status::NeedMore;
        }
        if (c == '}')
            return closeFrame(p, c);
        return breakEvent("expected ',' or '}' after a value");
    }
    return structureKept(p, c);
}

// Inside a copied container (or at a top-level value): elements are copied without checking
// their syntax, as the parser's scanNested() reads them.
JsonEventCondenser::Status JsonEventCondenser::structureKept(const char *&p, char c)
{
    Frame &f = m_frames.back();
    const bool top = m_frames.size() == 1;
    if (!top) {
        if (c == ',') {
            ++p;
            f.atElemStart = true;
            return Status::NeedMore;
        }
        if (c == '}' || c == ']')
            return closeFrame(p, c);
        if (f.atElemStart) {
            startElement(f);
            f.atElemStart = false;
        }
    }
    if (c == '"') {
        m_strIsKey = false;
        startString();
        if (m_keeping)
            ++p;
    } else if (c == '{' || c == '[' || c == ':') {
        if (!fits(1)) {
            overflow();
            return Status::NeedMore;
        }
        m_out.push_back(c);
        ++p;
        if (c != ':') {
            ++m_depth;
            Frame child;
            child.limit = f.limit;
            if (top && m_memberIsArgs)
                child.limit = std::min(f.limit, m_out.size() + m_argsBudget);
            m_frames.push_back(child); // `f` is not used past this point
        }
    } else {
        m_lex = Lex::Token;
        m_tokenLength = 0;
    }
    return Status::NeedMore;
}

void JsonEventCondenser::startElement(Frame &f)
{
    f.elemStart = m_out.size();
    f.elemOffset = offsetOf(m_pos);
    f.elemLines = m_lines;
    f.hadElems = f.hasElems;
    if (f.hasElems)
        m_out.push_back(','); // dropped with the element when it does not fit
    f.hasElems = true;
}

void JsonEventCondenser::startString()
{
    const Frame &f = m_frames.back();
    const std::size_t used = m_out.size() + m_frames.size() + 2; // open closers and both quotes
    const std::size_t room = f.limit > used ? f.limit - used : 0;
    if (room < kMinStringRoom) {
        overflow(); // the string is read again as input to drop
        return;
    }
    m_lex = Lex::String;
    m_escape = false;
    m_strKept = true;
    m_strCopying = true;
    m_strRoom = std::min(m_valueCap, room);
    m_strStart = m_out.size();
    m_strOffset = offsetOf(m_pos);
    m_strLines = m_lines;
    m_out.push_back('"');
}

void JsonEventCondenser::string(const char *&p, const char *end)
{
    const auto *q = static_cast<const char *>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
    const char *stop = q ? q : end;
    const auto n = static_cast<std::size_t>(stop - p);
    if (m_strKept && m_strCopying)
        keep(p, n);
    // Whether the byte at `stop` is escaped: a run of backslashes that fills the whole piece
    // continues the previous piece's run.
    const std::size_t run = backslashRun(p, stop);
    m_escape = run == n ? m_escape != ((run & 1) != 0) : (run & 1) != 0;
    p = stop;
    if (!q)
        return;
    ++p;
    if (m_escape) {
        m_escape = false;
        if (m_strKept && m_strCopying)
            keep("\"", 1);
        return;
    }
    m_lex = Lex::Quote;
    m_blanks.clear();
    m_blankLines = 0;
}

void JsonEventCondenser::quote(const char *&p, const char *end)
{
    for (; p < end; ++p) {
        const char c = *p;
        if (isBlank(c)) {
            // Past the room the string is cut anyway, so no more blanks need keeping.
            if (m_strKept && m_strCopying && m_blanks.size() <= m_strRoom)
                m_blanks.push_back(c);
            m_blankLines += c == '\n';
            continue;
        }
        if (closesString(c)) {
            m_lines += m_blankLines;
            endString(); // `c` is read again as structure
            return;
        }
        // A stray quote: content, escaped so that the copy stays valid JSON.
        if (m_strKept && m_strCopying) {
            keep("\\\"", 2);
            if (m_strCopying)
                keep(m_blanks.data(), m_blanks.size());
        }
        m_lex = Lex::String;
        return;
    }
}

void JsonEventCondenser::endString()
{
    m_lex = Lex::Structure;
    m_prev = '"';
    if (!m_strKept)
        return;
    m_out.push_back('"');
    if (m_frames.size() != 1)
        return;
    if (!m_strIsKey) {
        m_top = Top::After;
        return;
    }
    const std::string_view key(m_out.data() + m_strStart + 1, m_out.size() - m_strStart - 2);
    if (!JsonEventParser::isEventKey(key)) {
        // The parser would skip the member, so it is not copied.
        Frame &f = m_frames.back();
        m_out.resize(f.elemStart);
        f.hasElems = f.hadElems;
        m_keeping = false;
        m_untilComma = true;
        m_top = Top::After;
        return;
    }
    m_member.assign(key);
    m_memberIsArgs = key == "args";
    m_top = Top::Colon;
}

void JsonEventCondenser::token(const char *&p, const char *end)
{
    const char *const begin = p;
    while (p < end && !endsToken(*p))
        ++p;
    const auto n = static_cast<std::size_t>(p - begin);
    m_prev = 't';
    if (m_tokenLength + n > m_valueCap || !fits(n)) {
        overflow(); // the rest of the token is dropped as input
        return;
    }
    m_out.append(begin, n);
    m_tokenLength += n;
    if (p < end) {
        m_lex = Lex::Structure; // the byte that ended the token is read again
        if (m_frames.size() == 1)
            m_top = Top::After;
    }
}

void JsonEventCondenser::keep(const char *s, std::size_t n)
{
    const std::size_t take = std::min(n, m_strRoom);
    m_out.append(s, take);
    m_strRoom -= take;
    if (take < n)
        cutString();
}

bool JsonEventCondenser::fits(std::size_t n) const
{
    return m_out.size() + n + m_frames.size() <= m_frames.back().limit;
}

void JsonEventCondenser::cutString()
{
    m_strCopying = false;
    trimPartial(m_out, m_strStart + 1);
    record(CutKind::StringCut, m_strOffset, m_strLines);
}

// Something does not fit the current container's budget: its current element goes, and so does
// the rest of the container (at the top level only the member goes: other fields may still fit).
void JsonEventCondenser::overflow()
{
    Frame &f = m_frames.back();
    record(CutKind::ValueDropped, f.elemOffset, f.elemLines);
    m_out.resize(f.elemStart);
    m_keeping = false;
    m_lex = Lex::Structure;
    m_untilComma = m_frames.size() == 1;
    if (m_untilComma) {
        f.hasElems = f.hadElems;
        m_top = Top::After;
    }
}

void JsonEventCondenser::record(CutKind kind, std::int64_t offset, std::int64_t lines)
{
    ++m_cutCount;
    if (m_cuts.size() >= kMaxCutRecords)
        return;
    const bool topKey = m_frames.size() == 1 && m_top == Top::Key;
    m_cuts.push_back({kind, offset, lines, topKey ? std::string() : m_member});
}

JsonEventCondenser::Status JsonEventCondenser::closeFrame(const char *&p, char c)
{
    ++p;
    --m_depth;
    m_frames.pop_back();
    if (m_frames.empty()) {
        if (m_broken)
            return Status::Broken;
        m_out.push_back('}');
        return Status::Done;
    }
    m_out.push_back(c);
    if (m_frames.size() == 1)
        m_top = Top::After;
    return Status::NeedMore;
}

JsonEventCondenser::Status JsonEventCondenser::breakEvent(const char *message)
{
    m_broken = true;
    m_brokenReason = message;
    m_brokenOffset = offsetOf(m_pos);
    m_brokenLines = m_lines;
    m_keeping = false;
    m_untilComma = false;
    return Status::NeedMore; // the byte is read again, as input to drop up to the event's end
}

std::string JsonEventCondenser::describe(const Cut &cut) const
{
    const std::size_t mib = std::size_t(1) << 20;
    const std::string limit = m_valueCap % mib == 0 ? std::to_string(m_valueCap / mib) + " MiB" : std::to_string(m_valueCap) + " bytes";
    if (cut.field.empty())
        return "a key longer than " + limit + " was cut to its first " + limit;
    if (cut.kind == CutKind::StringCut)
        return "a string in the event's \"" + cut.field + "\" is longer than " + limit + "; it was cut to its first " + limit
            + " and the event kept";
    return "the event's \"" + cut.field + "\" holds more than " + limit + " of values; those past that were dropped and the event kept";
}

} // namespace rs
