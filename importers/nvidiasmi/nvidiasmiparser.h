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

} // namespace rs::nvidiasmi
