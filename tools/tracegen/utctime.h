#pragma once
// Calendar fields of a wall-clock time in UTC, for the text evidence (logs, nvidia-smi) that
// prints local time: the demo's node runs in UTC. Computed by hand (Howard Hinnant's
// civil_from_days) rather than with gmtime/strftime, so output cannot depend on the C library or
// the machine's zone.

#include "jobconfig.h"


namespace rs::tracegen {

struct UtcTime {
    int year = 1970, month = 1, day = 1;
    int hour = 0, minute = 0, second = 0;
    std::int64_t nanos = 0;   ///< within the second

    static UtcTime of(TimeNs t)
    {
        UtcTime u;
        std::int64_t secs = t / 1000000000;
        u.nanos = t % 1000000000;
        if (u.nanos < 0) {
            u.nanos += 1000000000;
            --secs;
        }
        std::int64_t days = secs / 86400;
        std::int64_t rest = secs % 86400;
        if (rest < 0) {
            rest += 86400;
            --days;
        }
        u.hour = static_cast<int>(rest / 3600);
        u.minute = static_cast<int>(rest / 60 % 60);
        u.second = static_cast<int>(rest % 60);
        const std::int64_t z = days + 719468;
        const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
        const std::int64_t doe = z - era * 146097;
        const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        const std::int64_t mp = (5 * doy + 2) / 153;
        u.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
        u.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
        u.year = static_cast<int>(yoe + era * 400 + (u.month <= 2 ? 1 : 0));
        return u;
    }

    std::int64_t millis() const { return nanos / 1000000; }
    std::int64_t micros() const { return nanos / 1000; }
};

} // namespace rs::tracegen
