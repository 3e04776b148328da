#pragma once
// Appends JSON fragments to a std::string without allocating per value. The generators write
// hundreds of megabytes of text, so number formatting goes through std::to_chars, not streams.

#include <charconv>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace rs::tracegen {

class JsonAppender
{
public:
    explicit JsonAppender(std::string &out) : m_out(out) {}

    JsonAppender &raw(std::string_view s) { m_out.append(s); return *this; }
    JsonAppender &ch(char c) { m_out.push_back(c); return *this; }

    JsonAppender &integer(std::int64_t v)
    {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        m_out.append(buf, r.ptr);
        return *this;
    }

    /// Fixed-point with `decimals` digits, the way C's "%.*f" prints it (Kineto uses fmt defaults
    /// for the occupancy figures, which we imitate with 6 digits).
    JsonAppender &fixed(double v, int decimals)
    {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
        m_out.append(buf, r.ptr);
        return *this;
    }

    /// Kineto's time format: integer microseconds, a dot, three zero-padded nanosecond digits
    /// (`fmt::format("{}.{:03}", ns / 1000, ns % 1000)`). Negative values are clamped to 0 as
    /// Kineto does for times before its base.
    JsonAppender &micros(std::int64_t ns)
    {
        if (ns < 0)
            ns = 0;
        integer(ns / 1000);
        const auto frac = static_cast<int>(ns % 1000);
        const char digits[4] = {'.', static_cast<char>('0' + frac / 100), static_cast<char>('0' + frac / 10 % 10),
                                static_cast<char>('0' + frac % 10)};
        m_out.append(digits, 4);
        return *this;
    }

    /// A quoted JSON string. Kineto itself never escapes much (it rewrites backslashes and drops
    /// newlines), but we produce strictly valid JSON for any input.
    JsonAppender &quoted(std::string_view s)
    {
        m_out.push_back('"');
        for (const char c : s) {
            switch (c) {
            case '"': m_out.append("\\\""); break;
            case '\\': m_out.append("\\\\"); break;
            case '\n': m_out.append("\\n"); break;
            case '\t': m_out.append("\\t"); break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    static constexpr char hex[] = "0123456789abcdef";
                    m_out.append("\\u00");
                    m_out.push_back(hex[(c >> 4) & 0xf]);
                    m_out.push_back(hex[c & 0xf]);
                } else {
                    m_out.push_back(c);
                }
            }
        }
        m_out.push_back('"');
        return *this;
    }

    /// `"key": ` — the separator style Kineto uses inside args.
    JsonAppender &key(std::string_view k)
    {
        quoted(k);
        m_out.append(": ");
        return *this;
    }

private:
    std::string &m_out;
};

/// The record_shapes args of an op: `"Input Dims": [[6, 1024], []], "Input type": ["float", "Scalar"]`.
inline std::string recordShapes(std::initializer_list<std::initializer_list<std::int64_t>> dims,
                                std::initializer_list<std::string_view> types)
{
    std::string out;
    JsonAppender j(out);
    j.raw("\"Input Dims\": [");
    bool firstDim = true;
    for (const auto &d : dims) {
        j.raw(firstDim ? "[" : ", [");
        firstDim = false;
        bool first = true;
        for (const std::int64_t v : d) {
            if (!first)
                j.raw(", ");
            first = false;
            j.integer(v);
        }
        j.ch(']');
    }
    j.raw("], \"Input type\": [");
    bool first = true;
    for (const auto t : types) {
        if (!first)
            j.raw(", ");
        first = false;
        j.quoted(t);
    }
    j.ch(']');
    return out;
}

} // namespace rs::tracegen
