#include "wallclock.h"

#include "plausible.h"

#include <QDate>
#include <QDateTime>
#include <QTime>
#include <QTimeZone>

namespace rs::wallclock {

std::int64_t daysFromCivil(int y, int m, int d)
{
    y -= m <= 2;
    const int era = (y >= 0 ? y : y - 399) / 400;
    const int yoe = y - era * 400;
    const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return std::int64_t(era) * 146097 + doe - 719468;
}

bool validDate(int y, int m, int d)
{
    static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1)
        return false;
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

std::optional<TimeNs> localMidnight(int y, int m, int d, const std::string &zone)
{
    // Year 9999 would overflow ns since the epoch: a stamp outside 1990-2100 is no time.
    if (!plausible::year(y) || !validDate(y, m, d))
        return std::nullopt;
    // One thread imports one file at a time; its lines are nearly always of one zone and a few days.
    struct Cache {
        bool haveZone = false;
        std::string zone;
        QTimeZone tz;
        std::int64_t day = 0;
        std::optional<TimeNs> midnight;
        bool haveDay = false;
    };
    thread_local Cache cache;
    if (!cache.haveZone || cache.zone != zone) {
        const QTimeZone tz = zone.empty() ? QTimeZone::systemTimeZone() : QTimeZone(QByteArray::fromStdString(zone));
        cache.tz = tz.isValid() ? tz : QTimeZone::systemTimeZone();
        cache.zone = zone;
        cache.haveZone = true;
        cache.haveDay = false;
    }
    const std::int64_t day = daysFromCivil(y, m, d);
    if (!cache.haveDay || cache.day != day) {
        const QDateTime dt(QDate(y, m, d), QTime(0, 0), cache.tz);
        cache.midnight = plausible::epochMsToNs(dt.toMSecsSinceEpoch());
        cache.day = day;
        cache.haveDay = true;
    }
    return cache.midnight;
}

} // namespace rs::wallclock
