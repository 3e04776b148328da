#include "jsoneventparser.h"

#include <cstring>

namespace rs {

namespace {

// Maps a top-level event key to its field; sets isArgs for "args"; nullptr for keys we skip.
JsonRaw *eventField(JsonEvent &ev, std::string_view key, bool &isArgs)
{
    isArgs = false;
    switch (key.size()) {
    case 1:
        return key[0] == 's' ? &ev.s : nullptr;
    case 2:
        if (key == "ph") return &ev.ph;
        if (key == "ts") return &ev.ts;
        if (key == "id") return &ev.id;
        if (key == "bp") return &ev.bp;
        return nullptr;
    case 3:
        if (key == "pid") return &ev.pid;
        if (key == "tid") return &ev.tid;
        if (key == "dur") return &ev.dur;
        if (key == "cat") return &ev.cat;
        return nullptr;
    case 4:
        if (key == "name") return &ev.name;
        isArgs = key == "args";
        return nullptr;
    default:
        return nullptr;
    }
}

} // namespace

// Eight bytes at a time: pretty-printed traces have a newline every few dozen bytes, so a memchr
// per line would cost more than the parse. Per-byte match counts are summed in place (no popcount:
// without -mpopcnt that is a library call per word).
std::int64_t JsonEventParser::countNewlines(const char *p, std::size_t n)
{
    constexpr std::uint64_t kNewlines = 0x0a0a0a0a0a0a0a0aULL;
    constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7fULL;
    constexpr std::uint64_t kLanes = 0x00ff00ff00ff00ffULL;
    const auto flush = [](std::uint64_t acc) {
        const std::uint64_t pairs = (acc & kLanes) + ((acc >> 8) & kLanes); // four 16-bit sums
        return static_cast<std::int64_t>((pairs * 0x0001000100010001ULL) >> 48);
    };
    std::int64_t count = 0;
    std::uint64_t acc = 0; // eight byte-wide counters, flushed before any can pass 255
    int words = 0;
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        const std::uint64_t x = w ^ kNewlines; // zero bytes where p had '\n'
        const std::uint64_t zeroHigh = ~(((x & kLow7) + kLow7) | x | kLow7); // 0x80 per zero byte
        acc += zeroHigh >> 7;
        if (++words == 255) {
            count += flush(acc);
            acc = 0;
            words = 0;
        }
    }
    count += flush(acc);
    for (; i < n; ++i)
        count += p[i] == '\n';
    return count;
}

bool JsonEventParser::isEventKey(std::string_view key)
{
    JsonEvent ev;
    bool isArgs = false;
    return eventField(ev, key, isArgs) != nullptr || isArgs;
}

void JsonEventParser::beginEvent(std::size_t maxEventBytes)
{
    // Decoded strings take at most their raw length; compacted args at most twice theirs (each stray
    // quote gains a backslash). So twice the event length always fits and views never move.
    const std::size_t need = 2 * maxEventBytes + 16;
    if (need > m_scratchCap) {
        m_scratch = std::make_unique_for_overwrite<char[]>(need);
        m_scratchCap = need;
    }
    m_scratchUsed = 0;
}

JsonEventParser::Result JsonEventParser::syntax(const char *at, const char *message)
{
    m_failAt = at;
    m_failMessage = message;
    return Result::Syntax;
}

JsonEventParser::Result JsonEventParser::scanString(const char *&p, JsonRaw &out)
{
    const char *const begin = p + 1;
    const char *from = begin;
    bool escaped = false;
    for (;;) {
        const auto *q = static_cast<const char *>(std::memchr(from, '"', static_cast<std::size_t>(m_end - from)));
        if (!q)
            return Result::NeedMore;
        if (!escaped && std::memchr(from, '\\', static_cast<std::size_t>(q - from)))
            escaped = true;
        if (escaped) {
            std::size_t run = 0;
            while (q - run > begin && q[-1 - static_cast<std::ptrdiff_t>(run)] == '\\')
                ++run;
            if (run & 1) {
                from = q + 1;
                continue;
            }
        }
        const char *r = q + 1;
        while (r < m_end && isBlank(*r))
            ++r;
        if (r == m_end)
            return Result::NeedMore;
        if (closesString(*r)) {
            out.text = std::string_view(begin, static_cast<std::size_t>(q - begin));
            out.kind = JsonRaw::Kind::String;
            out.escaped = escaped;
            p = q + 1;
            return Result::Ok;
        }
        m_strayQuote = true;
        from = q + 1;
    }
}

JsonEventParser::Result JsonEventParser::scanToken(const char *&p, JsonRaw &out)
{
    const char *const begin = p;
    while (p < m_end && !endsToken(*p))
        ++p;
    if (p == m_end)
        return Result::NeedMore;
    if (p == begin)
        return syntax(p, "expected a value");
    out.text = std::string_view(begin, static_cast<std::size_t>(p - begin));
    out.kind = JsonRaw::Kind::Token;
    out.escaped = false;
    return Result::Ok;
}

JsonEventParser::Result JsonEventParser::scanNested(const char *&p, bool &sawBlank)
{
    std::int64_t depth = 0;
    JsonRaw ignored;
    for (;;) {
        if (p == m_end)
            return Result::NeedMore;
        const char c = *p;
        if (c == '"') {
            if (const Result f = scanString(p, ignored); f != Result::Ok)
                return f;
            continue;
        }
        ++p;
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (--depth == 0)
                return Result::Ok;
        } else if (isBlank(c)) {
            sawBlank = true;
        }
    }
}

JsonEventParser::Result JsonEventParser::scanValue(const char *&p, JsonRaw &out, bool &sawBlank)
{
    const char c = *p;
    if (c == '"')
        return scanString(p, out);
    if (c != '{' && c != '[')
        return scanToken(p, out);
    const char *const begin = p;
    if (const Result f = scanNested(p, sawBlank); f != Result::Ok)
        return f;
    out.text = std::string_view(begin, static_cast<std::size_t>(p - begin));
    out.kind = c == '{' ? JsonRaw::Kind::Object : JsonRaw::Kind::Array;
    out.escaped = false;
    return Result::Ok;
}

JsonEventParser::Result JsonEventParser::skipWs(const char *&p, bool &sawBlank)
{
    const char *const begin = p;
    while (p < m_end && isBlank(*p))
        ++p;
    sawBlank |= p != begin;
    return p < m_end ? Result::Ok : Result::NeedMore;
}

JsonEventParser::Result JsonEventParser::parseEvent(const char *&p, JsonEvent &ev)
{
    ev.ph = ev.cat = ev.name = ev.pid = ev.tid = ev.ts = ev.dur = ev.id = ev.s = ev.bp = JsonRaw{};
    ev.args = {};
    ev.argList.clear();
    ++p; // '{'
    bool blank = false;
    Result f = Result::Ok;
    for (;;) {
        if ((f = skipWs(p, blank)) != Result::Ok)
            return f;
        if (*p == '}') {
            ++p;
            return Result::Ok;
        }
        if (*p != '"')
            return syntax(p, "expected a key or '}'");
        JsonRaw key;
        if ((f = scanString(p, key)) != Result::Ok || (f = skipWs(p, blank)) != Result::Ok)
            return f;
        if (*p != ':')
            return syntax(p, "expected ':' after a key");
        ++p;
        if ((f = skipWs(p, blank)) != Result::Ok)
            return f;
        bool isArgs = false;
        JsonRaw *field = eventField(ev, key.text, isArgs);
        if (isArgs) {
            f = parseArgs(p, ev);
        } else if (field) {
            f = scanValue(p, *field, blank);
            if (f == Result::Ok && field->escaped) {
                field->text = decode(field->text);
                field->escaped = false;
            }
        } else {
            JsonRaw skipped;
            f = scanValue(p, skipped, blank);
        }
        if (f != Result::Ok || (f = skipWs(p, blank)) != Result::Ok)
            return f;
        if (*p == ',') {
            ++p;
        } else if (*p == '}') {
            ++p;
            return Result::Ok;
        } else {
            return syntax(p, "expected ',' or '}' after a value");
        }
    }
}

JsonEventParser::Result JsonEventParser::parseArgs(const char *&p, JsonEvent &ev)
{
    bool blank = false;
    if (*p != '{') {
        JsonRaw ignored;
        return scanValue(p, ignored, blank);
    }
    const char *const begin = p++;
    m_strayQuote = false;
    Result f = Result::Ok;
    for (;;) {
        if ((f = skipWs(p, blank)) != Result::Ok)
            return f;
        if (*p == '}') {
            ++p;
            break;
        }
        if (*p != '"')
            return syntax(p, "expected a key in args");
        JsonRaw key;
        if ((f = scanString(p, key)) != Result::Ok || (f = skipWs(p, blank)) != Result::Ok)
            return f;
        if (*p != ':')
            return syntax(p, "expected ':' after a key in args");
        ++p;
        JsonRaw value;
        if ((f = skipWs(p, blank)) != Result::Ok || (f = scanValue(p, value, blank)) != Result::Ok)
            return f;
        ev.argList.emplace_back(key.escaped ? decode(key.text) : key.text, value);
        if ((f = skipWs(p, blank)) != Result::Ok)
            return f;
        if (*p == ',') {
            ++p;
        } else if (*p == '}') {
            ++p;
            break;
        } else {
            return syntax(p, "expected ',' or '}' in args");
        }
    }
    const std::string_view raw(begin, static_cast<std::size_t>(p - begin));
    ev.args = blank || m_strayQuote ? compact(raw) : raw;
    return Result::Ok;
}

// Finds where a broken event ends: at its matching brace, or where the next event evidently
// starts when the brace is missing. Inside an event object a '{' right after ',' or a ']' cannot
// belong to the event, so they mark the resume point (left unconsumed).
JsonEventParser::Result JsonEventParser::skipBroken(const char *&p, bool &atNextEvent)
{
    atNextEvent = false;
    std::int64_t depth = 0;
    char prev = 0;
    JsonRaw ignored;
    for (;;) {
        if (p == m_end)
            return Result::NeedMore;
        const char c = *p;
        if (isBlank(c)) {
            ++p;
            continue;
        }
        if (c == '"') {
            if (const Result f = scanString(p, ignored); f != Result::Ok)
                return f;
            prev = c;
            continue;
        }
        if (depth == 1 && (c == ']' || (c == '{' && prev == ','))) {
            atNextEvent = c == '{';
            return Result::Ok;
        }
        ++p;
        prev = c;
        if (c == '{' || c == '[')
            ++depth;
        else if ((c == '}' || c == ']') && --depth == 0)
            return Result::Ok;
    }
}

std::string_view JsonEventParser::decode(std::string_view escaped)
{
    if (m_scratchUsed + escaped.size() > m_scratchCap)
        return escaped;
    char *const dst = m_scratch.get() + m_scratchUsed;
    const std::size_t n = JsonRaw::unescapeTo(escaped, dst);
    m_scratchUsed += n;
    return {dst, n};
}

std::string_view JsonEventParser::compact(std::string_view raw)
{
    if (m_scratchUsed + 2 * raw.size() > m_scratchCap)
        return raw;
    char *const first = m_scratch.get() + m_scratchUsed;
    char *dst = first;
    const char *p = raw.data();
    const char *const end = p + raw.size();
    JsonRaw str;
    while (p < end) {
        const char c = *p;
        if (isBlank(c)) {
            ++p;
        } else if (c != '"') {
            *dst++ = c;
            ++p;
        } else if (scanString(p, str) == Result::Ok) {
            // The same scan succeeded while parsing, so it ends inside `raw` again.
            *dst++ = '"';
            const std::string_view t = str.text;
            for (std::size_t i = 0; i < t.size(); ++i) {
                if (t[i] == '\\' && i + 1 < t.size()) {
                    *dst++ = t[i];
                    *dst++ = t[++i];
                } else {
                    if (t[i] == '"')
                        *dst++ = '\\'; // a stray quote, escaped so the stored text is valid JSON
                    *dst++ = t[i];
                }
            }
            *dst++ = '"';
        } else {
            return raw;
        }
    }
    const auto n = static_cast<std::size_t>(dst - first);
    m_scratchUsed += n;
    return {first, n};
}

} // namespace rs
