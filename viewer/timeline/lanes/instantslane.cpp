// Instants as diamonds, at most one per pixel column, the profiler's [OutOfMemory] instants always
// and larger: a marker or log track's own lane, or a row under a thread's spans (rather than over
// them). Compact detail keeps only the lanes holding an OOM instant.

#include "builtinlanes.h"

#include "lanetooltips.h"
#include "timeline/lanepainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

class InstantsLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Instants; }

    void addTrackLanes(LaneBuilder &b, TrackId id) const override
    {
        const Track &t = b.session.tracks()[id];
        if (t.instants.empty())
            return;
        const QString title = LaneLayout::trackTitle(b.session, t);
        switch (t.kind) {
        case TrackKind::CpuThread:
        case TrackKind::GpuStream:
            // A thread's instants get a row of their own under its spans.
            b.add(*this, id, LaneLayout::kInstantsHeight, t.spans.empty() ? title : tr("instants"),
                  t.spans.empty() ? (t.kind == TrackKind::GpuStream ? tr("GPU") : tr("CPU")) : QString());
            break;
        case TrackKind::Markers:
        case TrackKind::Log:
            b.add(*this, id, LaneLayout::kInstantsHeight, title, t.kind == TrackKind::Log ? tr("LOG") : QString());
            break;
        default: break;
        }
    }

    void paint(const Lane &lane, LaneFrame &f) const override { f.lanes->instants(lane, f.ctx->session->tracks()[lane.track]); }

    EventRef hitTest(const Lane &lane, QPoint pos, const LaneFrame &f) const override
    {
        const TimeScale scale = f.dataScale();
        const TimeNs t = scale.toTime(pos.x() + 0.5);
        const Track &track = f.ctx->session->tracks()[lane.track];
        const auto tol = static_cast<TimeNs>(std::ceil(4 * scale.nsPerPixel()));
        auto it = std::lower_bound(track.instants.begin(), track.instants.end(), t - tol,
                                   [](const Instant &i, TimeNs v) { return i.time < v; });
        auto best = static_cast<std::uint32_t>(track.instants.size());
        TimeNs bestDistance = tol + 1;
        for (; it != track.instants.end() && it->time <= t + tol; ++it) {
            const TimeNs distance = std::abs(it->time - t);
            if (distance < bestDistance) {
                bestDistance = distance;
                best = static_cast<std::uint32_t>(it - track.instants.begin());
            }
        }
        return best < track.instants.size() ? EventRef::instant(lane.track, best) : EventRef{};
    }

    QString tooltip(const Lane &, QPoint, const EventRef &hit, const LaneFrame &f) const override
    {
        return hit.kind == EventRef::Kind::Instant ? LaneTooltips::instant(f, hit) : QString();
    }

    QString finderWords(const Lane &lane, const Session &s) const override
    {
        const Track &t = s.tracks()[lane.track];
        switch (t.kind) {
        case TrackKind::CpuThread: return QStringLiteral("cpu thread %1").arg(t.tid);
        case TrackKind::GpuStream: return QStringLiteral("gpu stream %1").arg(t.tid);
        case TrackKind::Log: return QStringLiteral("log");
        default: return QStringLiteral("markers instants");
        }
    }

    bool keepInCompact(Lane &lane, CompactFilter &c) const override
    {
        const auto &in = c.session->tracks()[lane.track].instants;
        if (!std::any_of(in.begin(), in.end(), [](const Instant &i) { return i.flags & SpanFlagOutOfMemory; }))
            return false;
        lane.title = tr("OOM (profiler)");
        return true;
    }
};

} // namespace

std::unique_ptr<LaneKind> makeInstantsLane()
{
    return std::make_unique<InstantsLane>();
}

} // namespace rs
