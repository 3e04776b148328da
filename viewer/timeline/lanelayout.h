#pragma once
// Vertical layout of one rank group: which lanes it has, in which order, and how tall each is.
// Painting, hit-testing and the memory chart's geometry all read the same layout, so a pixel row
// always means the same lane.

#include "session.h"

#include <QString>

#include <functional>
#include <string_view>
#include <vector>

namespace rs {

class LaneKind;

/// One horizontal band of a rank group, of one registered kind (LaneKind, LaneRegistry).
struct Lane {
    const LaneKind *kind = nullptr; ///< what the lane shows; paints, hit-tests and explains it
    TrackId track = kNoTrack; ///< the track shown (spans, counter, instants lanes), else kNoTrack
    int top = 0;              ///< y of the first pixel row, in group coordinates
    int height = 0;           ///< pixel rows, separator included
    QString title;            ///< gutter text
    QString badge;            ///< short kind tag drawn before the title ("CPU", "GPU"), may be empty

    /// Whether the lane is of the kind with id `id` (LaneId::Memory, …).
    bool is(std::string_view id) const;
};

class LaneLayout
{
public:
    static constexpr int kHeaderHeight = 26;
    static constexpr int kMemoryHeight = 66;  ///< at least; taller when the legend has more rows
    static constexpr int kLegendRow = 15;     ///< one memory legend row in the gutter
    static constexpr int kStepsHeight = 18;
    static constexpr int kRowHeight = 18;   ///< one depth level of a span lane
    static constexpr int kLanePadding = 3;  ///< above the first and below the last level
    static constexpr int kCounterHeight = 34;
    static constexpr int kInstantsHeight = 18;
    static constexpr int kLogHeight = 20;
    static constexpr int kSummaryHeight = 18;
    static constexpr int kFindingsHeight = 20; ///< one row of numbered finding badges (the figure's strip too)
    static constexpr int kGroupGap = 8;     ///< empty rows after the last lane
    static constexpr int kFigureMemoryHeight = 104; ///< a figure's memory lane: the curve is the story
    static constexpr int kMinMemoryHeight = 40;     ///< a memory lane dragged smaller stops here
    static constexpr int kMaxMemoryHeight = 600;    ///< and larger here

    /// What a group is laid out for.
    struct Options {
        bool collapsed = false; ///< header and summary strip only
        bool timedLogs = false; ///< the rank has timed log records (a log lane; untimed ones have no place)
        bool findings = false;  ///< a Findings row right under the header of an expanded group
        bool figure = false;    ///< an exported figure (a taller memory lane)
        int memoryHeight = 0;   ///< the user's memory lane height (0: as tall as its legend needs)
    };

    /// Lays out `rank` of `session`; a collapsed group is its header and a summary strip. The log
    /// lane is added only when `hasTimedLogs` (records without time have nowhere to go on a time axis).
    /// `findings` adds a Findings lane right under the header of an expanded group, a row kept free
    /// for the badges of the rank's finding annotations so they cover neither the header's text nor
    /// the data (a collapsed group stays two rows: its badges sit on the summary strip).
    void build(const Session &session, const Rank &rank, bool collapsed, bool hasTimedLogs, bool findings = false);
    /// The same with every option; every registered lane kind adds its lanes, in registry order.
    void build(const Session &session, const Rank &rank, const Options &options);
    /// Keeps the lanes `keep` returns true for (it may change their title or height) and stacks
    /// them again from the top: compact figures.
    void filter(const std::function<bool(Lane &)> &keep);
    /// Compact detail: keeps the lanes whose kinds say so (LaneKind::keepInCompact), the same rule
    /// for the screen's compact mode and a figure's `--detail compact`.
    void applyCompact(const Session &session);
    /// The first lane of kind `id`, or nullptr.
    const Lane *lane(std::string_view id) const;

    const std::vector<Lane> &lanes() const { return m_lanes; }
    /// Total height of the group, gap included.
    int height() const { return m_height; }
    /// The lane covering row `y`, or nullptr (gap, or outside).
    const Lane *laneAt(int y) const;
    /// The first lane showing `track` (its spans when it has both spans and instants), or nullptr
    /// when the track has none (hidden kind, or collapsed).
    const Lane *laneForTrack(TrackId track) const;
    /// The memory lane, or nullptr when the rank has no device memory counters.
    const Lane *memoryLane() const;
    /// The log lane, or nullptr when the rank has no timed log records or is collapsed.
    const Lane *logLane() const;
    /// The Findings lane, or nullptr when build() was not asked for one or the group is collapsed.
    const Lane *findingsLane() const;
    /// Whether `track` is drawn in the memory lane (so it gets no lane of its own).
    bool isMemoryTrack(TrackId track) const;
    /// Tracks drawn in the memory lane: allocated, reserved and nvidia-smi used of devices >= 0
    /// (profiler, allocator snapshot and nvidia-smi alike), in the rank's track order.
    const std::vector<TrackId> &memoryTracks() const { return m_memoryTracks; }
    /// Tracks whose level 0 makes up the collapsed summary strip (GPU streams, else CPU threads).
    const std::vector<TrackId> &summaryTracks() const { return m_summaryTracks; }

    /// The GPU the rank ran on: the device of its first memory counter or GPU stream, -1 if none.
    /// (A trace or an nvidia-smi CSV describes every GPU of the host, so Rank::devices has them all.)
    static int rankDevice(const Session &session, const Rank &rank);
    /// The description of GPU `device` among the rank's devices, or nullptr.
    static const DeviceInfo *deviceInfo(const Rank &rank, int device);
    /// Bytes of GPU `device` as the rank's sources describe it, 0 when unknown.
    static std::int64_t deviceCapacity(const Rank &rank, int device);
    /// The name to show for `track`: its own name, else one made from its kind and ids.
    static QString trackTitle(const Session &session, const Track &track);

private:
    std::vector<Lane> m_lanes;
    std::vector<TrackId> m_memoryTracks;
    std::vector<TrackId> m_summaryTracks;
    int m_height = 0;
};

} // namespace rs
