#pragma once
// What an importer could not use, and where. Importers report and carry on.
//
// Problems are counted per stable code (Perfetto's import stats are the model): the first report
// of a code in a source creates the Diagnostic with its message and location; later reports of the
// same code and severity raise `count` and keep a few of their locations as examples, so a file
// with 40,000 bad rows yields one line "row-fields ×40000 (first at line 12)" instead of 40,000.

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

struct Diagnostic {
    enum class Severity : std::uint8_t { Warning, Error };
    /// How many later occurrences keep their own location and message (`examples`).
    static constexpr std::size_t kMaxExamples = 4;

    /// One further occurrence of the same code: where, and what it said there.
    struct Example {
        std::int64_t line = -1;
        std::int64_t offset = -1;
        std::string message;
    };

    Severity severity = Severity::Warning; ///< Error: data was lost; Warning: data was kept but is suspect
    std::string code;                      ///< stable id, kebab-case ("row-fields", "wrapped-line-joined")
    std::string message;                   ///< one sentence, no path (the source names the file): the first occurrence
    std::int64_t line = -1;                ///< 1-based line number in the (decompressed) text, or -1
    std::int64_t offset = -1;              ///< 0-based byte offset in the (decompressed) stream, or -1
    std::int64_t count = 1;                ///< occurrences of this code in the source (≥ 1)
    std::vector<Example> examples;         ///< up to kMaxExamples occurrences after the first

    bool isError() const { return severity == Severity::Error; }
};

} // namespace rs
