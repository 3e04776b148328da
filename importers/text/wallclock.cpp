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

std::optional<TimeNs> localTime(int y, int m, int d, TimeNs timeOfDay, const std::string &zone)
{
    // Year 9999 would overflow ns since the epoch: a stamp outside 1990-2100 is no time.
    if (!plausible::year(y) || !validDate(y, m, d) || timeOfDay < 0)
        return std::nullopt;
    // One thread imports one file at a time; its lines are nearly always of one zone and a few days.
    struct Cache {
        bool haveZone = false;
        std::string zone;
        QTimeZone tz;
        bool haveDay = false;
        std::int64_t day = 0;
        std::optional<TimeNs> midnight;
        bool regularDay = true; // 24 h long: no offset switch that day
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
        const QDate date(y, m, d);
        const QDateTime midnight(date, QTime(0, 0), cache.tz);
        const QDateTime next(date.addDays(1), QTime(0, 0), cache.tz);
        cache.midnight = plausible::epochMsToNs(midnight.toMSecsSinceEpoch());
        cache.regularDay = next.toMSecsSinceEpoch() - midnight.toMSecsSinceEpoch() == 86400000;
        cache.day = day;
        cache.haveDay = true;
    }
    if (!cache.midnight)
        return std::nullopt;
    constexpr TimeNs kDayNs = 86400LL * 1000000000;
    if (cache.regularDay || timeOfDay >= kDayNs)
        return *cache.midnight + timeOfDay;
    // A DST switch day: Qt resolves the local time to its offset (twice a year per zone).
    const TimeNs ms = timeOfDay / 1000000;
    const QDateTime exact(QDate(y, m, d), QTime::fromMSecsSinceStartOfDay(int(ms)), cache.tz);
    const auto at = plausible::epochMsToNs(exact.toMSecsSinceEpoch());
    if (!at)
        return std::nullopt;
    return *at + timeOfDay % 1000000;
}

} // namespace rs::wallclock
