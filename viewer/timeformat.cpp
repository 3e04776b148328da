#include "timeformat.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace rs {

namespace {

constexpr TimeNs kUs = 1000;
constexpr TimeNs kMs = 1000 * kUs;
constexpr TimeNs kS = 1000 * kMs;

// A thin space separates groups of three decimals: easier to read than "1.234567891 s", and it
// cannot be mistaken for a thousands separator in any locale.
const QChar kThinSpace(0x2009);

QString groupedDecimals(const QString &digits)
{
    QString out;
    out.reserve(digits.size() + digits.size() / 3);
    for (qsizetype i = 0; i < digits.size(); ++i) {
        if (i > 0 && i % 3 == 0)
            out += kThinSpace;
        out += digits[i];
    }
    return out;
}

TimeNs pow10(int n)
{
    TimeNs p = 1;
    while (n-- > 0)
        p *= 10;
    return p;
}

} // namespace

TimeNs TimeFormat::unitFor(TimeNs magnitude)
{
    const TimeNs m = magnitude < 0 ? -magnitude : magnitude;
    if (m >= kS)
        return kS;
    if (m >= kMs)
        return kMs;
    if (m >= kUs)
        return kUs;
    return 1;
}

QString TimeFormat::unitName(TimeNs unitNs)
{
    switch (unitNs) {
    case kS: return QStringLiteral("s");
    case kMs: return QStringLiteral("ms");
    case kUs: return QStringLiteral("µs");
    default: return QStringLiteral("ns");
    }
}

int TimeFormat::decimalsFor(TimeNs step, TimeNs unitNs)
{
    int d = 0;
    TimeNs quantum = unitNs;
    while (quantum > 1 && step % quantum != 0) {
        quantum /= 10;
        ++d;
    }
    return d;
}

TimeNs TimeFormat::niceStep(double approxNs)
{
    if (!(approxNs > 1))
        return 1;
    TimeNs base = 1;
    while (static_cast<double>(base) * 10 <= approxNs)
        base *= 10;
    for (TimeNs m : {1, 2, 5, 10}) {
        if (static_cast<double>(base * m) >= approxNs)
            return base * m;
    }
    return base * 10;
}

QString TimeFormat::fixed(TimeNs value, TimeNs unitNs, int decimals)
{
    const bool negative = value < 0;
    const TimeNs a = negative ? -value : value;
    QString text = QString::number(a / unitNs);
    if (decimals > 0) {
        const TimeNs quantum = unitNs / pow10(decimals);
        const TimeNs frac = (a % unitNs) / (quantum > 0 ? quantum : 1);
        text += QLatin1Char('.') + groupedDecimals(QStringLiteral("%1").arg(frac, decimals, 10, QLatin1Char('0')));
    }
    if (negative && (a / unitNs != 0 || a % unitNs != 0))
        text.prepend(QChar(0x2212)); // a real minus sign, as wide as the plus sign
    return text;
}

QString TimeFormat::tick(TimeNs value, TimeNs step, TimeNs magnitude)
{
    const TimeNs unit = unitFor(std::max(magnitude < 0 ? -magnitude : magnitude, step));
    return fixed(value, unit, decimalsFor(step, unit)) + QLatin1Char(' ') + unitName(unit);
}

QString TimeFormat::offset(TimeNs offsetNs, TimeNs step)
{
    const TimeNs unit = unitFor(step);
    const QString sign = offsetNs < 0 ? QString(QChar(0x2212)) : QStringLiteral("+");
    return sign + fixed(offsetNs < 0 ? -offsetNs : offsetNs, unit, decimalsFor(step, unit)) + QLatin1Char(' ')
        + unitName(unit);
}

QString TimeFormat::duration(TimeNs ns)
{
    const bool negative = ns < 0;
    const TimeNs a = negative ? -ns : ns;
    QString text;
    if (a < kUs) {
        text = QString::number(a) + QStringLiteral(" ns");
    } else if (a < 60 * kS) {
        const TimeNs unit = unitFor(a);
        const double v = static_cast<double>(a) / static_cast<double>(unit);
        const int decimals = v >= 100 ? 0 : v >= 10 ? 1 : 2;
        text = QString::number(v, 'f', decimals) + QLatin1Char(' ') + unitName(unit);
    } else if (a < 3600 * kS) {
        const TimeNs minutes = a / (60 * kS);
        const double seconds = static_cast<double>(a - minutes * 60 * kS) / static_cast<double>(kS);
        text = QStringLiteral("%1 min %2 s").arg(minutes).arg(seconds, 0, 'f', 1);
    } else {
        const TimeNs hours = a / (3600 * kS);
        const TimeNs minutes = (a - hours * 3600 * kS) / (60 * kS);
        text = QStringLiteral("%1 h %2 min").arg(hours).arg(minutes);
    }
    return negative ? QString(QChar(0x2212)) + text : text;
}

QString TimeFormat::precise(TimeNs relative)
{
    const TimeNs unit = unitFor(relative);
    int decimals = decimalsFor(relative, unit);
    // Round up to whole groups of three so the digits line up with the ruler's grouping.
    decimals = (decimals + 2) / 3 * 3;
    return fixed(relative, unit, decimals) + QLatin1Char(' ') + unitName(unit);
}

QString TimeFormat::wallClock(TimeNs epochNs)
{
    const TimeNs ms = epochNs >= 0 ? epochNs / kMs : -((-epochNs + kMs - 1) / kMs);
    const TimeNs subMs = epochNs - ms * kMs;
    const QDateTime dt = QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc());
    return dt.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz")) + kThinSpace
        + groupedDecimals(QStringLiteral("%1").arg(subMs, 6, 10, QLatin1Char('0'))) + QStringLiteral(" UTC");
}

QString TimeFormat::bytes(double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    const bool negative = bytes < 0;
    double v = std::fabs(bytes);
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        ++u;
    }
    const int decimals = u == 0 ? 0 : v >= 100 ? 0 : v >= 10 ? 1 : 2;
    return (negative ? QString(QChar(0x2212)) : QString()) + QString::number(v, 'f', decimals) + QLatin1Char(' ')
        + QLatin1String(units[u]);
}

} // namespace rs
