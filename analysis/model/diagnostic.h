#pragma once
// What an importer could not use, and where. Importers report and carry on.

#include <cstdint>
#include <string>

namespace rs {

struct Diagnostic {
    enum class Severity : std::uint8_t { Warning, Error };
    Severity severity = Severity::Warning; ///< Error: data was lost; Warning: data was kept but is suspect
    std::string message;                   ///< one sentence, no path (the source names the file)
    std::int64_t line = -1;                ///< 1-based line number in the (decompressed) text, or -1
    std::int64_t offset = -1;              ///< 0-based byte offset in the (decompressed) stream, or -1

    bool isError() const { return severity == Severity::Error; }
};

} // namespace rs
