#pragma once
// A JSON value exactly as it appeared in the text, converted only on request. Trace writers are
// inconsistent about types (numbers arrive as strings and strings as numbers, `inf` appears bare),
// so every conversion here accepts both spellings instead of trusting the JSON type.

#include "types.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rs {

struct JsonRaw {
    enum class Kind : std::uint8_t {
        Missing, ///< the key was absent
        String,  ///< a quoted string
        Token,   ///< a bare token: number, true/false/null, or a non-standard literal such as inf
        Object,  ///< a `{...}` value
        Array,   ///< a `[...]` value
    };

    /// String: the characters between the quotes; other kinds: the raw text of the value.
    std::string_view text;
    /// What the value was.
    Kind kind = Kind::Missing;
    /// String only: `text` still contains backslash escapes (toText() decodes them).
    bool escaped = false;

    bool present() const { return kind != Kind::Missing; }
    bool isString() const { return kind == Kind::String; }

    /// An integer from a number or a numeric string ("8", 8, 8.0); nullopt otherwise.
    std::optional<std::int64_t> toInt() const;
    /// A number from a number or a numeric string, accepting inf/nan spellings; nullopt otherwise.
    std::optional<double> toDouble() const;
    /// The decoded string for strings (decoded into `scratch` only when escaped), the raw text otherwise.
    std::string_view toText(std::string &scratch) const;

    /// Decimal microseconds to nanoseconds without a detour through double for the plain
    /// `123` / `123.456` spellings (Kineto's "{}.{:03}" format), so no ns digit is lost. Exponent
    /// spellings fall back to double. nullopt for non-numbers and values beyond ±9.2e15 µs.
    static std::optional<TimeNs> microsToNs(std::string_view text);
    /// `v` clamped into the int32 range (device ids, sizes and sort indexes are int32 in the model).
    static std::int32_t clampToInt32(std::int64_t v);
    /// Decodes JSON escapes of `in` into `out` (which needs in.size() bytes); returns the length
    /// written. Invalid escapes are kept literally; \u escapes become UTF-8.
    static std::size_t unescapeTo(std::string_view in, char *out);
};

} // namespace rs
