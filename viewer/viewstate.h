#pragma once
// The one piece of view state every view observes: which time window is shown, what is selected
// and hovered, which ranks are hidden or collapsed, and where "back" goes. Views never talk to each
// other directly; they change this object and react to its signals, so the timeline, the memory
// charts and the details panel cannot drift apart.

#include "types.h"

#include <QHash>
#include <QMetaType>
#include <QObject>
#include <QSet>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rs {

/// A reference to one event of the session: nothing, a span or an instant of a track, a log record
/// or a CUDA out-of-memory message. Log records and OOMs belong to no track: their `track` is kNoTrack.
struct EventRef {
    enum class Kind : std::uint8_t {
        None,      ///< nothing
        Span,      ///< Track::spans[index] of `track`
        Instant,   ///< Track::instants[index] of `track`
        LogRecord, ///< Session::logs().records[index]
        Oom,       ///< Session::ooms()[index]
    };
    Kind kind = Kind::None;    ///< what `index` points into
    TrackId track = kNoTrack;  ///< the track holding the event (Span, Instant), else kNoTrack
    std::uint32_t index = 0;   ///< index into the vector `kind` names

    static EventRef span(TrackId track, std::uint32_t index) { return {Kind::Span, track, index}; }
    static EventRef instant(TrackId track, std::uint32_t index) { return {Kind::Instant, track, index}; }
    static EventRef logRecord(std::uint32_t index) { return {Kind::LogRecord, kNoTrack, index}; }
    static EventRef oom(std::uint32_t index) { return {Kind::Oom, kNoTrack, index}; }
    bool isNone() const { return kind == Kind::None; }
    /// True for the kinds that live on a track (Span, Instant).
    bool onTrack() const { return kind == Kind::Span || kind == Kind::Instant; }
    friend bool operator==(const EventRef &, const EventRef &) = default;
};

/// What a finding points at: the groups of `ranks` get a tinted frame and `range` (view time) is
/// shaded across them, so the eye finds the incident among dozens of ranks.
struct Highlight {
    std::vector<RankId> ranks; ///< ranks concerned; empty: no highlight
    TimeRange range;           ///< view-time window shaded (may be empty: frame only)
    bool isNone() const { return ranks.empty(); }
    bool contains(RankId rank) const { return std::find(ranks.begin(), ranks.end(), rank) != ranks.end(); }
    friend bool operator==(const Highlight &, const Highlight &) = default;
};

class ViewState : public QObject
{
    Q_OBJECT
public:
    /// How a change of the visible range enters the zoom history.
    enum class Change {
        Jump,       ///< a discrete move (focus, reset, history): the old range is one "back" step
        Continuous, ///< part of a gesture (wheel, keys, drag): one history step per gesture
    };

    /// Narrowest visible window; below this the ruler runs out of meaningful ticks.
    static constexpr TimeNs kMinVisibleNs = 10;
    /// History entries kept in each direction.
    static constexpr int kHistoryLimit = 100;

    explicit ViewState(QObject *parent = nullptr);

    /// The whole session's time span; the visible range never leaves it. t = 0 of the ruler.
    TimeRange fullRange() const { return m_full; }
    /// Sets the full range, shows all of it and forgets history, selection (event and rank) and hover.
    void setFullRange(TimeRange range);
    /// Moves the full range's ends (the analysis found where the plausible data lies) keeping the
    /// selection and history: a view showing the whole range keeps showing the whole range, a
    /// zoomed view keeps its window, clamped into the new range.
    void adjustFullRange(TimeRange range);

    /// The time window the views show.
    TimeRange visibleRange() const { return m_visible; }
    /// Shows `range`, clamped into the full range and widened to kMinVisibleNs at least.
    void setVisibleRange(TimeRange range, Change change = Change::Jump);
    /// Scales the visible duration by `factor` (< 1 zooms in) keeping `anchor` at the same place.
    void zoomBy(double factor, TimeNs anchor, Change change = Change::Continuous);
    /// Moves the visible window by `delta` ns (positive: later), stopping at the full range's edges.
    void panBy(TimeNs delta, Change change = Change::Continuous);
    /// Shows the full range (a Jump).
    void resetZoom();
    /// Ends the current continuous gesture, so the next continuous change opens a new history step.
    void endGesture() { m_inGesture = false; }

    bool canGoBack() const { return !m_back.empty(); }
    bool canGoForward() const { return !m_forward.empty(); }
    /// Returns to the range before the last Jump or gesture; false when there is none.
    bool goBack();
    /// Undoes goBack(); false when there is nothing to redo.
    bool goForward();

    /// The selected event (kind None when nothing is selected).
    EventRef selection() const { return m_selection; }
    void setSelection(EventRef selection);
    void clearSelection() { setSelection({}); }
    /// The event under the mouse (kind None when none).
    EventRef hovered() const { return m_hovered; }
    void setHovered(EventRef hovered);

    /// The rank the user picked as "the one to look at" (a memory summary column, a log row), or
    /// kNoRank. The timeline scrolls to and highlights its group; the log panel filters on it.
    RankId selectedRank() const { return m_selectedRank; }
    void setSelectedRank(RankId rank);
    void clearSelectedRank() { setSelectedRank(kNoRank); }

    /// Ranks the user has hidden from every view.
    const QSet<RankId> &hiddenRanks() const { return m_hidden; }
    bool isRankHidden(RankId rank) const { return m_hidden.contains(rank); }
    void setRankHidden(RankId rank, bool hidden);
    /// Ranks whose timeline group is folded into a one-line summary.
    const QSet<RankId> &collapsedRanks() const { return m_collapsed; }
    bool isRankCollapsed(RankId rank) const { return m_collapsed.contains(rank); }
    void setRankCollapsed(RankId rank, bool collapsed);
    /// Collapses or expands each of `ranks`, signalling only the ones that change.
    void setRanksCollapsed(const std::vector<RankId> &ranks, bool collapsed);

    /// Compact lanes: each rank group keeps only what tells the story (memory, steps, log, launcher,
    /// its GPU streams or main thread, OOM markers), like an exported figure's `--detail compact`.
    bool compactLanes() const { return m_compactLanes; }
    void setCompactLanes(bool compact);
    /// Height of every memory lane in pixels as the user dragged it; 0: each lane's own (automatic).
    int memoryLaneHeight() const { return m_memoryLaneHeight; }
    void setMemoryLaneHeight(int pixels);
    /// Lanes the user hid, by rank, lane kind id and track (kNoTrack for rank-level lanes).
    bool isLaneHidden(RankId rank, const QString &kind, TrackId track) const;
    void setLaneHidden(RankId rank, const QString &kind, TrackId track, bool hidden);
    /// How many lanes of `rank` are hidden (kNoRank: of every rank).
    int hiddenLaneCount(RankId rank = kNoRank) const;
    /// Shows the hidden lanes of `rank` (kNoRank: of every rank).
    void showHiddenLanes(RankId rank = kNoRank);
    /// A lane named by rank, lane kind id and track (kNoTrack for rank-level lanes).
    struct LaneKey {
        RankId rank = kNoRank;
        QString kind;
        TrackId track = kNoTrack;
        friend bool operator==(const LaneKey &, const LaneKey &) = default;
    };
    /// Lanes pinned to the top of the timeline, in the order they were pinned: they stay in sight
    /// above every rank group, so rank 0's memory can be read beside rank 700's.
    const std::vector<LaneKey> &pinnedLanes() const { return m_pinnedLanes; }
    bool isLanePinned(RankId rank, const QString &kind, TrackId track) const;
    void setLanePinned(RankId rank, const QString &kind, TrackId track, bool pinned);
    void setPinnedLanes(std::vector<LaneKey> lanes);

    /// Offset added to every time of `rank` when it is shown (clock alignment); 0 by default.
    TimeNs clockOffset(RankId rank) const { return m_offsets.value(rank, 0); }
    void setClockOffsets(const QHash<RankId, TimeNs> &offsets);

    /// The ranks and time window of the selected finding (none by default; cleared by setFullRange).
    const Highlight &highlight() const { return m_highlight; }
    void setHighlight(Highlight highlight);
    void clearHighlight() { setHighlight({}); }

    /// The finding the user picked (index into AnalysisResult::findings), or -1. The findings panel
    /// selects it and shows it (highlight, window, rank) and keeps this in step with its own
    /// selection, so a click on a finding's marker on the timeline acts like a click in the panel.
    /// Cleared by setFullRange.
    int selectedFinding() const { return m_selectedFinding; }
    void setSelectedFinding(int findingIndex);

Q_SIGNALS:
    void fullRangeChanged(rs::TimeRange range);
    void visibleRangeChanged(rs::TimeRange range);
    void historyChanged(bool canGoBack, bool canGoForward);
    void selectionChanged(rs::EventRef selection);
    void hoveredChanged(rs::EventRef hovered);
    /// `rank` is kNoRank when the selection was cleared.
    void selectedRankChanged(rs::RankId rank);
    void rankHiddenChanged(rs::RankId rank, bool hidden);
    void rankCollapsedChanged(rs::RankId rank, bool collapsed);
    void compactLanesChanged(bool compact);
    void memoryLaneHeightChanged(int pixels);
    /// Lanes of `rank` were hidden or shown (kNoRank: of several ranks).
    void hiddenLanesChanged(rs::RankId rank);
    void pinnedLanesChanged();
    void clockOffsetsChanged();
    void highlightChanged(const rs::Highlight &highlight);
    /// `findingIndex` is -1 when the selection was cleared.
    void selectedFindingChanged(int findingIndex);

private:
    TimeRange clamped(TimeRange range) const;
    void pushHistory(std::vector<TimeRange> &stack, TimeRange range);
    void applyVisible(TimeRange range);

    TimeRange m_full{0, kMinVisibleNs};
    TimeRange m_visible{0, kMinVisibleNs};
    std::vector<TimeRange> m_back;
    std::vector<TimeRange> m_forward;
    bool m_inGesture = false;
    EventRef m_selection;
    EventRef m_hovered;
    RankId m_selectedRank = kNoRank;
    QSet<RankId> m_hidden;
    QSet<RankId> m_collapsed;
    bool m_compactLanes = false;
    int m_memoryLaneHeight = 0;
    std::vector<LaneKey> m_hiddenLanes;
    std::vector<LaneKey> m_pinnedLanes;
    QHash<RankId, TimeNs> m_offsets;
    Highlight m_highlight;
    int m_selectedFinding = -1;
};

} // namespace rs

Q_DECLARE_METATYPE(rs::TimeRange)
Q_DECLARE_METATYPE(rs::EventRef)
