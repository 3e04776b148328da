#pragma once
// Number formatting for generated text that must not depend on the process's locale: Qt
// applications call setlocale(LC_ALL, ""), after which printf's "%.2f" prints "79,15" in many
// locales, and the committed demo files would no longer regenerate byte for byte.

#include <charconv>
#include <string>

namespace rs::tracegen {

struct TextFormat {
    /// `v` with `decimals` digits after a '.', like "%.*f" in the C locale.
    static std::string fixed(double v, int decimals)
    {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
        return std::string(buf, r.ptr);
    }
};

} // namespace rs::tracegen
