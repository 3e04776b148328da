#include "lanetooltips.h"

#include "logstyle.h"
#include "placements.h"
#include "timeformat.h"
#include "timeline/timelinecontext.h"

#include <QFileInfo>

#include <cmath>

namespace rs {

namespace {

QString fromView(std::string_view v)
{
    return QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
}

} // namespace

QString LaneTooltips::span(const LaneFrame &f, const EventRef &hit)
{
    const Session &s = *f.ctx->session;
    const Span &sp = s.tracks()[hit.track].spans[hit.index];
    const std::string_view category = s.str(sp.category);
    const TimeNs start = sp.start + f.offset - f.ctx->origin();
    return QStringLiteral("<b>%1</b><br/>%2 · %3<br/>duration <b>%4</b><br/>start %5")
        .arg(fromView(s.str(sp.name)).toHtmlEscaped(), SpanPalette::familyName(SpanPalette::family(sp.flags, category)),
             fromView(category).toHtmlEscaped(), TimeFormat::duration(sp.duration), TimeFormat::precise(start));
}

bool LaneTooltips::isOom(const Session &s, const EventRef &hit)
{
    return hit.kind == EventRef::Kind::Oom
        || (hit.kind == EventRef::Kind::Instant && (s.tracks()[hit.track].instants[hit.index].flags & SpanFlagOutOfMemory));
}

QString LaneTooltips::oom(const LaneFrame &f, const EventRef &hit)
{
    const Session &s = *f.ctx->session;
    QString text = tr("<b style='color:#c91d2e'>CUDA out of memory</b>");
    if (hit.kind == EventRef::Kind::Oom) {
        const OomEvent &o = s.ooms()[hit.index];
        if (o.requested >= 0)
            text += tr("<br/>tried to allocate <b>%1</b>").arg(TimeFormat::bytes(static_cast<double>(o.requested)));
        if (o.free >= 0)
            text += tr(" with %1 free").arg(TimeFormat::bytes(static_cast<double>(o.free)));
        if (o.time == kNoTime)
            if (const Placement *p = findPlacement(f.ctx->analysis.get(), Placement::Kind::Oom, hit.index))
                text += QStringLiteral("<br/><i>%1</i>").arg(placedByText(*p).toHtmlEscaped());
        return text;
    }
    // The profiler's own record of the failure carries the request in its args.
    text += tr(" (profiler [OutOfMemory])");
    for (const OomMarker &m : f.ctx->evidence.ooms(f.rank))
        if (m.event == hit && m.requested >= 0)
            text += tr("<br/>tried to allocate <b>%1</b>").arg(TimeFormat::bytes(static_cast<double>(m.requested)));
    return text;
}

QString LaneTooltips::instant(const LaneFrame &f, const EventRef &hit)
{
    const Session &s = *f.ctx->session;
    const Instant &in = s.tracks()[hit.track].instants[hit.index];
    const QString at = TimeFormat::precise(in.time + f.offset - f.ctx->origin());
    if (isOom(s, hit))
        return oom(f, hit) + tr("<br/>at %1").arg(at);
    return QStringLiteral("<b>%1</b><br/>%2<br/>at %3")
        .arg(fromView(s.str(in.name)).toHtmlEscaped(), fromView(s.str(in.category)).toHtmlEscaped(), at);
}

QString LaneTooltips::logRecord(const LaneFrame &f, std::uint32_t index)
{
    const Session &s = *f.ctx->session;
    const TimeNs origin = f.ctx->origin();
    const LogRecord &r = s.logs().records[index];
    QString text = LogStyle::message(s.logs(), r);
    if (text.size() > 600)
        text = text.left(600) + QStringLiteral("…");
    const QString where = r.source < s.sources().size()
        ? QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(s.sources()[r.source].path)).fileName()).arg(r.line)
        : tr("line %1").arg(r.line);
    QString when = r.time != kNoTime ? TimeFormat::precise(r.time + f.offset - origin) : tr("no time stamp");
    if (r.time == kNoTime)
        if (const Placement *p = findLogPlacement(s, f.ctx->analysis.get(), index))
            when = QStringLiteral("≈ %1 (%2)").arg(TimeFormat::precise(placedDataTime(*f.ctx->analysis, *p) + f.offset - origin),
                                                  placedByText(*p).toHtmlEscaped());
    return QStringLiteral("<b style='color:%1'>%2</b> · %3 · %4<br/>%5<br/><span style='color:#6b7280'>%6 · %7</span>")
        .arg(LogStyle::color(LogStyle::mark(r)).name(), LogStyle::levelName(r.level), LogStyle::kindName(r.kind),
             LogStyle::rankName(r.rank), text.toHtmlEscaped(), when, where.toHtmlEscaped());
}

EventRef LaneTooltips::oomAt(const LaneFrame &f, int x)
{
    const TimeScale scale = f.dataScale();
    const auto tol = static_cast<TimeNs>(std::ceil(4 * scale.nsPerPixel()));
    const TimeNs t = scale.toTime(x + 0.5);
    for (const OomMarker &m : f.ctx->evidence.ooms(f.rank))
        if (std::abs(m.time - t) <= tol)
            return m.event;
    return {};
}

} // namespace rs
