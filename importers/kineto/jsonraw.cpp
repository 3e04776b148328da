#include "jsonraw.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstring>

namespace rs {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::optional<double> parseDouble(std::string_view s)
{
    s = trimmed(s);
    // from_chars rejects a leading '+', strtod accepts it; writers use both.
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    if (s.empty())
        return std::nullopt;
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// Reads the 4 hex digits after "\u" at in[i]; -1 when they are not all there.
long readHex4(std::string_view in, std::size_t i)
{
    if (i + 4 > in.size())
        return -1;
    long v = 0;
    for (std::size_t k = 0; k < 4; ++k) {
        const int h = hexValue(in[i + k]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

std::size_t putUtf8(unsigned long cp, char *out)
{
    if (cp < 0x80) {
        out[0] = static_cast<char>(cp);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = static_cast<char>(0xc0 | (cp >> 6));
        out[1] = static_cast<char>(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = static_cast<char>(0xe0 | (cp >> 12));
        out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out[2] = static_cast<char>(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = static_cast<char>(0xf0 | (cp >> 18));
    out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out[3] = static_cast<char>(0x80 | (cp & 0x3f));
    return 4;
}

} // namespace

std::optional<std::int64_t> JsonRaw::toInt() const
{
    if (kind != Kind::String && kind != Kind::Token)
        return std::nullopt;
    std::string_view s = trimmed(text);
    if (!s.empty() && s.front() == '+')
        s.remove_prefix(1);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty())
        return v;
    // "8.0" or "1e3": accept when the value is a whole number that fits.
    const auto d = parseDouble(s);
    if (d && std::isfinite(*d) && std::trunc(*d) == *d && std::fabs(*d) < 9.2e18)
        return static_cast<std::int64_t>(*d);
    return std::nullopt;
}

std::optional<double> JsonRaw::toDouble() const
{
    if (kind != Kind::String && kind != Kind::Token)
        return std::nullopt;
    return parseDouble(text);
}

std::string_view JsonRaw::toText(std::string &scratch) const
{
    if (kind != Kind::String || !escaped)
        return text;
    scratch.resize(text.size());
    scratch.resize(unescapeTo(text, scratch.data()));
    return scratch;
}

std::optional<TimeNs> JsonRaw::microsToNs(std::string_view text)
{
    const std::string_view s = trimmed(text);
    std::size_t i = 0;
    const bool negative = i < s.size() && s[i] == '-';
    if (i < s.size() && (s[i] == '-' || s[i] == '+'))
        ++i;
    std::int64_t micros = 0;
    std::size_t digits = 0;
    bool exact = true;
    for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
        if (digits >= 16) { // beyond 9.2e15 µs the ns value no longer fits an int64
            exact = false;
            break;
        }
        micros = micros * 10 + (s[i] - '0');
    }
    std::int64_t fraction = 0; // ns
    std::size_t fracDigits = 0;
    if (exact && i < s.size() && s[i] == '.') {
        ++i;
        for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++fracDigits) {
            if (fracDigits < 3)
                fraction = fraction * 10 + (s[i] - '0');
            else if (fracDigits == 3 && s[i] >= '5')
                fraction += 1; // round half up on the first dropped digit
        }
        for (std::size_t k = std::min<std::size_t>(fracDigits, 3); k < 3; ++k)
            fraction *= 10;
    }
    if (exact && i == s.size() && (digits > 0 || fracDigits > 0)) {
        std::int64_t ns = 0;
        if (__builtin_mul_overflow(micros, std::int64_t{1000}, &ns) || __builtin_add_overflow(ns, fraction, &ns))
            return std::nullopt;
        return negative ? -ns : ns;
    }
    // Exponents, very long digit strings: double precision is all such spellings carry anyway.
    const auto d = parseDouble(s);
    if (!d || !std::isfinite(*d))
        return std::nullopt;
    const double ns = *d * 1000.0;
    if (std::fabs(ns) > 9.2e18)
        return std::nullopt;
    return static_cast<TimeNs>(std::llround(ns));
}

std::int32_t JsonRaw::clampToInt32(std::int64_t v)
{
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(v, INT32_MIN, INT32_MAX));
}

std::size_t JsonRaw::unescapeTo(std::string_view in, char *out)
{
    std::size_t o = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const char c = in[i];
        if (c != '\\' || i + 1 >= in.size()) {
            out[o++] = c;
            continue;
        }
        const char e = in[++i];
        switch (e) {
        case '"': out[o++] = '"'; break;
        case '\\': out[o++] = '\\'; break;
        case '/': out[o++] = '/'; break;
        case 'b': out[o++] = '\b'; break;
        case 'f': out[o++] = '\f'; break;
        case 'n': out[o++] = '\n'; break;
        case 'r': out[o++] = '\r'; break;
        case 't': out[o++] = '\t'; break;
        case 'u': {
            long cp = readHex4(in, i + 1);
            if (cp < 0) {
                out[o++] = '\\';
                out[o++] = 'u';
                break;
            }
            i += 4;
            if (cp >= 0xd800 && cp <= 0xdbff && i + 2 < in.size() && in[i + 1] == '\\' && in[i + 2] == 'u') {
                const long lo = readHex4(in, i + 3);
                if (lo >= 0xdc00 && lo <= 0xdfff) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    i += 6;
                }
            }
            // A lone surrogate is not valid UTF-8; the replacement character keeps the text valid.
            if (cp >= 0xd800 && cp <= 0xdfff)
                cp = 0xfffd;
            o += putUtf8(static_cast<unsigned long>(cp), out + o);
            break;
        }
        default:
            out[o++] = '\\';
            out[o++] = e;
            break;
        }
    }
    return o;
}

} // namespace rs
