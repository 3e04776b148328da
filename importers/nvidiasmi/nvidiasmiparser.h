#pragma once
// Parsing helpers of the nvidia-smi importer, public so tests can check each rule on its own.

#include "types.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::nvidiasmi {

/// A column name without its " [unit]" suffix, lower-cased: "memory.used [MiB]" → "memory.used".
std::string columnName(std::string_view header);
/// Unit of a header "memory.used [MiB]" → "MiB"; "" when none.
std::string columnUnit(std::string_view header);
/// True for nvidia-smi's missing-value spellings: "[N/A]", "[Not Supported]", "N/A", "-", "".
bool isMissing(std::string_view value);
/// A numeric cell with an optional unit ("1234 MiB", "35 %", "85.12 W", "1234"); nullopt if missing.
std::optional<double> number(std::string_view value);
/// Bytes of a memory value in `unit` (or the unit inside the value): MiB is the default.
std::optional<double> memoryBytes(std::string_view value, std::string_view headerUnit);
/// Parses a time stamp into ns since the epoch: "YYYY/MM/DD HH:MM:SS.mmm" (local time in `zone`,
/// "" = the machine's zone), ISO-8601 with or without offset, epoch seconds or milliseconds.
std::optional<TimeNs> timestamp(std::string_view value, const std::string &zone);
/// Splits a CSV line on commas (nvidia-smi never quotes), trimming spaces around each field.
std::vector<std::string_view> splitCsv(std::string_view line);
/// The words of `line` between runs of white space (dmon columns, the table's date line).
std::vector<std::string_view> splitWhitespace(std::string_view line);
/// A PCI address as nvidia-smi prints it ("00000000:47:00.0", also "0000:47:00.0") in the integer
/// form NCCL prints as busId (FORMATS.md §4.2: domain << 20 | bus << 12 | device << 4 | function).
std::optional<std::int64_t> busIdToNccl(std::string_view pci);
/// Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`; linear in
/// the lengths times the limit. Used to tell a torn copy of a GPU name from another GPU.
std::size_t editDistance(std::string_view a, std::string_view b, std::size_t limit);
/// The date line `nvidia-smi` prints above its table ("Wed Jan  5 17:01:16 2022"), as ns since the
/// epoch in `zone` ("" = the machine's zone); nullopt for any other line.
std::optional<TimeNs> tableDate(std::string_view line, const std::string &zone);

} // namespace rs::nvidiasmi
