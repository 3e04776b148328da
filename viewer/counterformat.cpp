#include "counterformat.h"

#include "timeformat.h"

#include <QLocale>

#include <cmath>

namespace rs {

CounterFormat::Unit CounterFormat::unit(const Session &session, const Track &track)
{
    switch (track.kind) {
    case TrackKind::MemoryAllocated:
    case TrackKind::MemoryReserved:
    case TrackKind::GpuMemoryUsed:
        return Unit::Bytes;
    case TrackKind::GpuUtilization:
        return Unit::Percent;
    default:
        break;
    }
    if (track.source < session.sources().size() && session.sources()[track.source].format == "memory-timeline")
        return Unit::Bytes;
    const std::string_view n = session.str(track.name);
    auto has = [n](std::string_view s) { return n.find(s) != std::string_view::npos; };
    // The importer appends the header's unit in parentheses when the CSV had one.
    if (has("(W)") || has("power."))
        return Unit::Watts;
    if (has("(%)") || has("utilization"))
        return Unit::Percent;
    if (has("(C)") || has("temperature") || has("temp"))
        return Unit::Celsius;
    if (has("(MHz)") || has("clocks."))
        return Unit::MHz;
    if (has("(MiB)") || has("memory."))
        return Unit::MiB;
    return Unit::Plain;
}

QString CounterFormat::value(double v, Unit unit)
{
    const QLocale locale;
    switch (unit) {
    case Unit::Bytes: return TimeFormat::bytes(v);
    case Unit::Percent: return QStringLiteral("%1 %").arg(locale.toString(v, 'f', v == std::floor(v) ? 0 : 1));
    case Unit::Watts: return QStringLiteral("%1 W").arg(locale.toString(v, 'f', v >= 100 ? 0 : 1));
    case Unit::Celsius: return QStringLiteral("%1 °C").arg(locale.toString(v, 'f', 0));
    case Unit::MHz: return QStringLiteral("%1 MHz").arg(locale.toString(v, 'f', 0));
    case Unit::MiB: return TimeFormat::bytes(v * 1024.0 * 1024.0);
    case Unit::Plain: return locale.toString(v, 'g', 6);
    }
    return {};
}

double CounterFormat::fixedMax(Unit unit)
{
    return unit == Unit::Percent ? 100.0 : 0.0;
}

} // namespace rs
