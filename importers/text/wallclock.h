#pragma once
// Wall-clock dates of log lines and CSV rows → ns since the epoch. Every text importer stamps
// lines as "local date + time of day"; converting the date through QTimeZone costs a zone lookup
// (and glibc's tzset stat of /etc/localtime) per call, which dominated nvidia-smi and log imports.
// The midnight of a date in a zone is cached per thread, so a file of one day pays it once.
//
// On the two days a year a zone switches its offset (a 23 h or 25 h day) the exact conversion is
// done instead, so a stamp after the switch gets the new offset.

#include "types.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rs::wallclock {

/// Days since 1970-01-01 of a proleptic Gregorian date (the usual era-based formula).
std::int64_t daysFromCivil(int y, int m, int d);

/// Whether y-m-d is a real calendar date (months 1-12, the month's days, leap years).
bool validDate(int y, int m, int d);

/// ns since the epoch of the local time `timeOfDay` ns after 00:00 on y-m-d in `zone` (an IANA id;
/// empty or unknown: the system zone), or nullopt when the date is not a date or lies outside the
/// plausible years (plausible.h). A time in the hour skipped by a DST switch is read with the
/// offset before the switch; one in the repeated hour is the first of the two.
std::optional<TimeNs> localTime(int y, int m, int d, TimeNs timeOfDay, const std::string &zone);

} // namespace rs::wallclock
