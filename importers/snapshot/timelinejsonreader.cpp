#include "timelinejsonreader.h"

#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace rs {

namespace {

using Value = MemoryTimelineParser::Value;

bool isBlank(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// Bytes that end a number or literal, as a table: it is asked for every byte of the file.
constexpr std::array<bool, 256> kEndsToken = [] {
    std::array<bool, 256> t{};
    for (const unsigned char c : std::string_view(" \n\r\t,]}:[{\""))
        t[c] = true;
    return t;
}();

bool endsToken(char c)
{
    return kEndsToken[static_cast<unsigned char>(c)];
}

// A number as JSON spells it; nullopt for anything else. `s` starts with a digit or '-' and a digit.
std::optional<Value> number(std::string_view s)
{
    // Plain integers, nearly every value of a timeline, without the general conversion.
    const std::size_t sign = s[0] == '-' ? 1 : 0;
    if (s.size() - sign <= 19) { // 19 digits always fit a uint64
        std::uint64_t acc = 0;
        std::size_t k = sign;
        for (; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k)
            acc = acc * 10 + std::uint64_t(s[k] - '0');
        if (k == s.size() && acc <= std::uint64_t(INT64_MAX)) // exact: epoch nanoseconds do not fit a double
            return Value::integer(sign ? -std::int64_t(acc) : std::int64_t(acc));
    }
    const char *const begin = s.data();
    const char *const end = begin + s.size();
    const std::size_t exponent = s.find_first_of("eE");
    if (exponent == std::string_view::npos && s.find('.') == std::string_view::npos) {
        std::int64_t i = 0;
        const auto [ptr, ec] = std::from_chars(begin, end, i);
        if (ec == std::errc() && ptr == end)
            return Value::integer(i);
        if (ec != std::errc::result_out_of_range || ptr != end)
            return std::nullopt;
    }
    double v = 0;
    const auto [ptr, ec] = std::from_chars(begin, end, v);
    if (ptr != end || (ec != std::errc() && ec != std::errc::result_out_of_range))
        return std::nullopt;
    if (ec == std::errc::result_out_of_range) {
        // Past the double range: infinite, or zero for an exponent far below it.
        const bool tiny = exponent != std::string_view::npos && exponent + 1 < s.size() && s[exponent + 1] == '-';
        v = std::copysign(tiny ? 0.0 : std::numeric_limits<double>::infinity(), sign ? -1.0 : 1.0);
    }
    return Value::real(v);
}

// A literal: null, true, false, or the non-finite numbers Python's json module writes.
std::optional<Value> literal(std::string_view s)
{
    constexpr double kInf = std::numeric_limits<double>::infinity();
    if (s == "null")
        return Value{Value::Kind::Null, 0, 0};
    if (s == "true" || s == "false")
        return Value{};
    if (s == "NaN")
        return Value::real(std::numeric_limits<double>::quiet_NaN());
    if (s == "Infinity" || s == "-Infinity")
        return Value::real(s[0] == '-' ? -kInf : kInf);
    return std::nullopt;
}

std::string shown(char c)
{
    if (c > ' ' && c < 0x7f)
        return std::string("'") + c + "'";
    static const char *const kHex = "0123456789abcdef";
    const auto u = static_cast<unsigned char>(c);
    return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

} // namespace

TimelineJsonReader::TimelineJsonReader(InputStream &in, ImportContext &ctx, MemoryTimelineParser &parser, SourceBuilder &out)
    : m_in(in), m_ctx(ctx), m_parser(parser), m_out(out)
{
}

void TimelineJsonReader::read()
{
    std::vector<char> buf(kChunk);
    for (;;) {
        const std::size_t got = m_in.read(buf.data(), buf.size());
        m_ctx.reportProgress(m_in.compressedBytesRead(), m_in.compressedSize());
        if (m_ctx.isCancelled()) {
            m_cancelled = true;
            return;
        }
        if (got == 0)
            break;
        if (!feed(buf.data(), got))
            return;
        m_base += std::int64_t(got);
    }
    if (m_inToken) {
        m_inToken = false;
        if (!token(m_token, m_tokenAt))
            return;
    }
    if (m_inString)
        fail("the file ends inside a string", m_base);
    else if (m_expect != Expect::End)
        fail("the file ends before the JSON value is complete", m_base);
}

bool TimelineJsonReader::feed(const char *p, std::size_t n)
{
    std::size_t i = 0;
    while (i < n) {
        if (m_inString) {
            // Strings carry nothing a timeline needs: skipped, escapes honoured.
            for (; i < n; ++i) {
                const char c = p[i];
                if (m_escape)
                    m_escape = false;
                else if (c == '\\')
                    m_escape = true;
                else if (c == '"')
                    break;
            }
            if (i == n)
                return true;
            ++i;
            m_inString = false;
            if (m_stringIsKey)
                m_expect = Expect::Colon;
            else
                afterValue();
            continue;
        }
        if (m_inToken) {
            std::size_t j = i;
            while (j < n && !endsToken(p[j]))
                ++j;
            if (m_token.size() + (j - i) > kMaxToken)
                return tooLong(m_tokenAt);
            m_token.append(p + i, j - i);
            i = j;
            if (i == n)
                return true;
            m_inToken = false;
            if (!token(m_token, m_tokenAt))
                return false;
            continue;
        }
        const char c = p[i];
        if (isBlank(c)) {
            ++i;
            continue;
        }
        const std::int64_t at = m_base + std::int64_t(i);
        if (endsToken(c)) {
            if (!structure(c, at))
                return false;
            ++i;
            continue;
        }
        // A number or literal, converted where it lies unless it runs into the next chunk.
        if (m_expect != Expect::Value && m_expect != Expect::ValueOrClose)
            return structure(c, at);
        std::size_t j = i;
        while (j < n && !endsToken(p[j]) && j - i <= kMaxToken)
            ++j;
        if (j - i > kMaxToken)
            return tooLong(at);
        if (j == n) {
            m_inToken = true;
            m_tokenAt = at;
            m_token.assign(p + i, j - i);
            return true;
        }
        if (!token(std::string_view(p + i, j - i), at))
            return false;
        i = j;
    }
    return true;
}

bool TimelineJsonReader::structure(char c, std::int64_t offset)
{
    const bool valueHere = m_expect == Expect::Value || m_expect == Expect::ValueOrClose;
    switch (c) {
    case '"':
        if (!valueHere && m_expect != Expect::Key && m_expect != Expect::KeyOrClose)
            break;
        m_inString = true;
        m_escape = false;
        m_stringIsKey = !valueHere;
        return m_stringIsKey || m_parser.scalar(Value{}, offset);
    case '[':
    case '{':
        if (!valueHere)
            break;
        if (!m_parser.open(c == '[', offset))
            return false; // the parser said why
        m_open.push_back(c);
        m_expect = c == '[' ? Expect::ValueOrClose : Expect::KeyOrClose;
        return true;
    case ']':
    case '}': {
        const char opener = c == ']' ? '[' : '{';
        const Expect empty = c == ']' ? Expect::ValueOrClose : Expect::KeyOrClose;
        if (m_open.empty() || m_open.back() != opener || (m_expect != Expect::CommaOrClose && m_expect != empty))
            break;
        m_open.pop_back();
        if (!m_parser.close())
            return false;
        afterValue();
        return true;
    }
    case ',':
        if (m_expect != Expect::CommaOrClose)
            break;
        m_expect = m_open.back() == '[' ? Expect::Value : Expect::Key;
        return true;
    case ':':
        if (m_expect != Expect::Colon)
            break;
        m_expect = Expect::Value;
        return true;
    default:
        break;
    }
    static const char *const kExpected[] = {"a value", "a value or ']'", "a key", "a key or '}'", "':'", "',' or a closing bracket",
                                            "nothing after the end of the JSON value"};
    return fail("unexpected " + shown(c) + " where " + kExpected[int(m_expect)] + " belongs", offset);
}

bool TimelineJsonReader::token(std::string_view text, std::int64_t offset)
{
    // JSON wants a digit first (from_chars alone would also take "inf" or ".5").
    const bool numeric = (text[0] >= '0' && text[0] <= '9') || (text[0] == '-' && text.size() > 1 && text[1] >= '0' && text[1] <= '9');
    const auto v = numeric ? number(text) : literal(text);
    if (!v)
        return fail("'" + std::string(text.substr(0, 40)) + "' is not a JSON value", offset);
    if (!m_parser.scalar(*v, offset))
        return false;
    afterValue();
    return true;
}

void TimelineJsonReader::afterValue()
{
    m_expect = m_open.empty() ? Expect::End : Expect::CommaOrClose;
}

bool TimelineJsonReader::fail(const std::string &message, std::int64_t offset)
{
    m_out.error("json-syntax", "invalid JSON: " + message, -1, offset);
    return false;
}

bool TimelineJsonReader::tooLong(std::int64_t offset)
{
    m_out.error("value-too-long", "a value longer than " + std::to_string(kMaxToken) + " bytes (no memory timeline holds one); the rest of the file was not read",
                -1, offset);
    return false;
}

} // namespace rs
