#pragma once
// Wall-clock dates of log lines and CSV rows → ns since the epoch. Every text importer stamps
// lines as "local date + time of day"; converting the date through QTimeZone costs a zone lookup
// (and glibc's tzset stat of /etc/localtime) per call, which dominated nvidia-smi and log imports.
// The midnight of a date in a zone is cached per thread, so a file of one day pays it once.
//
// Times of day are added to the local midnight as they are (a stamp during a DST switch keeps the
// importers' long-standing rule: the day's offset at midnight).

#include "types.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rs::wallclock {

/// Days since 1970-01-01 of a proleptic Gregorian date (the usual era-based formula).
std::int64_t daysFromCivil(int y, int m, int d);

/// Whether y-m-d is a real calendar date (months 1-12, the month's days, leap years).
bool validDate(int y, int m, int d);

/// ns since the epoch of 00:00 on y-m-d in `zone` (an IANA id; empty or unknown: the system zone),
/// or nullopt when the date is not a date or lies outside the plausible years (plausible.h).
std::optional<TimeNs> localMidnight(int y, int m, int d, const std::string &zone);

} // namespace rs::wallclock
