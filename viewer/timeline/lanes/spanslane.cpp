// A CPU thread or GPU stream: its spans stacked by depth, folded below ~3 px, labelled where they
// fit; the hovered and the selected span outlined. The gutter names the thread or stream and counts
// its spans and levels. In compact detail GPU streams stay, or the first CPU thread when the rank
// has no GPU stream, so the group still shows the work.

#include "builtinlanes.h"

#include "lanetooltips.h"
#include "plural.h"
#include "timeline/gutterpainter.h"
#include "timeline/lanepainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QPainter>

#include <cmath>

namespace rs {

namespace {

constexpr int kHitTolerancePx = 3;

class SpansLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Spans; }

    void addTrackLanes(LaneBuilder &b, TrackId id) const override
    {
        const Track &t = b.session.tracks()[id];
        if ((t.kind == TrackKind::CpuThread || t.kind == TrackKind::GpuStream) && !t.spans.empty())
            b.add(*this, id, t.levelCount() * LaneLayout::kRowHeight + 2 * LaneLayout::kLanePadding + 1,
                  LaneLayout::trackTitle(b.session, t), t.kind == TrackKind::GpuStream ? tr("GPU") : tr("CPU"));
    }

    void paint(const Lane &lane, LaneFrame &f) const override
    {
        f.lanes->spans(lane, lane.track, f.exposed);
        // Outlines over the content of their own lane only.
        for (const auto &[ref, selection] : {std::pair{f.hovered, false}, std::pair{f.selected, true}})
            if (ref.kind == EventRef::Kind::Span && ref.track == lane.track)
                f.lanes->outline(lane, f.ctx->session->tracks()[ref.track].spans[ref.index], selection);
    }

    void paintGutter(const Lane &lane, LaneFrame &f) const override
    {
        const GutterPainter::Cell cell = f.gutter->lane(lane, /*spanRows=*/true);
        if (lane.height < 2 * LaneLayout::kRowHeight)
            return;
        const Track &t = f.ctx->session->tracks()[lane.track];
        QPainter &p = *f.painter;
        p.setPen(GutterPainter::mutedColor());
        p.drawText(QRect(cell.x, cell.rowTop + cell.rowHeight, f.ctx->gutterWidth - cell.x - 8, 14), Qt::AlignLeft | Qt::AlignVCenter,
                   countOf(static_cast<qint64>(t.spans.size()), tr("span"), tr("spans"))
                       + QStringLiteral(" · ") + countOf(t.levelCount(), tr("level"), tr("levels")));
    }

    EventRef hitTest(const Lane &lane, QPoint pos, const LaneFrame &f) const override
    {
        const TimeScale scale = f.dataScale();
        const TimeNs t = scale.toTime(pos.x() + 0.5);
        const auto tolerance = static_cast<TimeNs>(std::ceil(kHitTolerancePx * scale.nsPerPixel()));
        const int row = pos.y() - lane.top - LaneLayout::kLanePadding;
        if (row < 0)
            return {};
        const Track &track = f.ctx->session->tracks()[lane.track];
        const int level = row / LaneLayout::kRowHeight;
        if (level >= track.levelCount())
            return {};
        const auto [lo, hi] = track.levelRange(static_cast<std::uint16_t>(level), t - tolerance, t + tolerance + 1);
        std::uint32_t best = hi;
        TimeNs bestDistance = tolerance + 1;
        for (std::uint32_t i = lo; i < hi; ++i) {
            const Span &s = track.spans[i];
            const TimeNs distance = t < s.start ? s.start - t : (t >= s.end() ? t - s.end() + (s.duration > 0 ? 1 : 0) : 0);
            if (distance < bestDistance) {
                best = i;
                bestDistance = distance;
            }
        }
        return best < hi ? EventRef::span(lane.track, best) : EventRef{};
    }

    QString tooltip(const Lane &, QPoint, const EventRef &hit, const LaneFrame &f) const override
    {
        return hit.kind == EventRef::Kind::Span ? LaneTooltips::span(f, hit) : QString();
    }

    QString finderWords(const Lane &lane, const Session &s) const override
    {
        const Track &t = s.tracks()[lane.track];
        return t.kind == TrackKind::GpuStream ? QStringLiteral("gpu stream %1").arg(t.tid) : QStringLiteral("cpu thread %1").arg(t.tid);
    }

    bool keepInCompact(Lane &lane, CompactFilter &c) const override
    {
        const bool gpu = c.session->tracks()[lane.track].kind == TrackKind::GpuStream;
        const bool keep = gpu || (!c.anyGpu && !c.cpuFallback);
        c.cpuFallback = c.cpuFallback || (keep && !c.anyGpu);
        return keep;
    }
};

} // namespace

std::unique_ptr<LaneKind> makeSpansLane()
{
    return std::make_unique<SpansLane>();
}

} // namespace rs
