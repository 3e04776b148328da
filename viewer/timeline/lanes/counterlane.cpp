// Any counter that is not the rank's device memory (GPU utilisation, a custom counter, memory of
// another device without a memory lane): a min/max area per pixel column scaled to its own
// maximum, which the gutter states with its unit.

#include "builtinlanes.h"

#include "counterformat.h"
#include "lod.h"
#include "timeformat.h"
#include "timeline/gutterpainter.h"
#include "timeline/lanepainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QPainter>

namespace rs {

namespace {

class CounterLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Counter; }

    void addTrackLanes(LaneBuilder &b, TrackId id) const override
    {
        const Track &t = b.session.tracks()[id];
        switch (t.kind) {
        case TrackKind::MemoryAllocated:
        case TrackKind::MemoryReserved:
        case TrackKind::GpuMemoryUsed:
        case TrackKind::GpuUtilization:
        case TrackKind::Counter:
            if (!t.counter.empty())
                b.add(*this, id, LaneLayout::kCounterHeight, LaneLayout::trackTitle(b.session, t));
            break;
        default: break;
        }
    }

    void paint(const Lane &lane, LaneFrame &f) const override { f.lanes->counter(lane, lane.track); }

    void paintGutter(const Lane &lane, LaneFrame &f) const override
    {
        const GutterPainter::Cell cell = f.gutter->lane(lane);
        TimelineContext &ctx = *f.ctx;
        if (lane.track >= ctx.counterMax.size())
            return;
        const Track &t = ctx.session->tracks()[lane.track];
        QPainter &p = *f.painter;
        p.setPen(GutterPainter::mutedColor());
        const QString value = tr("max %1").arg(CounterFormat::value(ctx.counterMax[lane.track], CounterFormat::unit(*ctx.session, t)));
        p.drawText(QRect(cell.x, cell.rowTop + cell.rowHeight - 2, ctx.gutterWidth - cell.x - 8, 14), Qt::AlignLeft | Qt::AlignVCenter, value);
    }

    QString tooltip(const Lane &lane, QPoint pos, const EventRef &, const LaneFrame &f) const override
    {
        const TimeNs t = f.view.toTime(pos.x());
        const Session &s = *f.ctx->session;
        const Track &track = s.tracks()[lane.track];
        double v = 0;
        if (!counterValueAt(track.counter, t - f.offset, &v))
            return {};
        return QStringLiteral("<b>%1</b><br/>%2 at %3")
            .arg(lane.title.toHtmlEscaped(), CounterFormat::value(v, CounterFormat::unit(s, track)), TimeFormat::precise(t - f.ctx->origin()));
    }

    QString finderWords(const Lane &, const Session &) const override { return QStringLiteral("counter"); }
};

} // namespace

std::unique_ptr<LaneKind> makeCounterLane()
{
    return std::make_unique<CounterLane>();
}

} // namespace rs
