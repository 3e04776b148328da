#include "flow.h"

#include "track.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace rs {

const char *flowKindCategory(FlowKind kind)
{
    switch (kind) {
    case FlowKind::Launch: return "ac2g";
    case FlowKind::ForwardBackward: return "fwdbwd";
    case FlowKind::Other: break;
    }
    return "flow";
}

FlowKind flowKindOf(std::string_view category)
{
    if (category == "ac2g")
        return FlowKind::Launch;
    if (category == "fwdbwd")
        return FlowKind::ForwardBackward;
    return FlowKind::Other;
}

namespace {

// The deepest span around `t` (Perfetto binds an `s`, and an `f` with "bp": "e", the same way).
std::optional<std::uint32_t> enclosingSpan(const Track &track, TimeNs t)
{
    for (int depth = track.levelCount() - 1; depth >= 0; --depth) {
        const auto [lo, hi] = track.levelRange(static_cast<std::uint16_t>(depth), t, t + 1);
        if (lo < hi)
            return lo;
    }
    return std::nullopt;
}

// The first span to start at or after `t`, the outermost of several starting together.
std::optional<std::uint32_t> nextSpan(const Track &track, TimeNs t)
{
    std::optional<std::uint32_t> best;
    for (std::uint16_t depth = 0; depth < track.levelCount(); ++depth) {
        const auto first = track.spans.begin() + track.levelBegin[depth];
        const auto last = track.spans.begin() + track.levelBegin[depth + 1];
        const auto it = std::partition_point(first, last, [t](const Span &s) { return s.start < t; });
        if (it != last && (!best || it->start < track.spans[*best].start))
            best = static_cast<std::uint32_t>(it - track.spans.begin());
    }
    return best;
}

std::optional<FlowEnd> bind(const FlowPoint &p, const std::vector<Track> &tracks)
{
    for (const TrackId id : {p.track, p.altTrack}) {
        if (id >= tracks.size())
            continue;
        const Track &t = tracks[id];
        if (const auto span = p.enclosing ? enclosingSpan(t, p.time) : nextSpan(t, p.time))
            return FlowEnd{id, *span};
    }
    return std::nullopt;
}

} // namespace

FlowBinding bindFlows(std::vector<FlowPoint> points, const std::vector<Track> &tracks)
{
    FlowBinding out;
    // Ends of one flow share (kind, id); a reused id pairs its starts and finishes in time order.
    std::sort(points.begin(), points.end(), [](const FlowPoint &a, const FlowPoint &b) {
        return std::tuple(a.kind, a.id, !a.start, a.time) < std::tuple(b.kind, b.id, !b.start, b.time);
    });
    for (std::size_t i = 0; i < points.size();) {
        std::size_t j = i;
        while (j < points.size() && points[j].kind == points[i].kind && points[j].id == points[i].id)
            ++j;
        std::size_t starts = i;
        while (starts < j && points[starts].start)
            ++starts;
        const std::size_t startCount = starts - i;
        const std::size_t finishCount = j - starts;
        const std::size_t pairs = std::min(startCount, finishCount);
        out.unpaired += static_cast<std::int64_t>(startCount + finishCount - 2 * pairs);
        for (std::size_t k = 0; k < pairs; ++k) {
            const auto from = bind(points[i + k], tracks);
            const auto to = bind(points[starts + k], tracks);
            if (from && to && !(*from == *to))
                out.flows.push_back({*from, *to, points[i].kind});
            else
                out.unbound += 1;
        }
        i = j;
    }
    std::sort(out.flows.begin(), out.flows.end(), [](const Flow &a, const Flow &b) {
        return std::tie(a.from.track, a.from.span, a.to.track, a.to.span) < std::tie(b.from.track, b.from.span, b.to.track, b.to.span);
    });
    return out;
}

} // namespace rs
