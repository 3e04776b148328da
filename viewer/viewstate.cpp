#include "viewstate.h"

#include <algorithm>
#include <cmath>

namespace rs {

ViewState::ViewState(QObject *parent)
    : QObject(parent)
{
}

void ViewState::setFullRange(TimeRange range)
{
    if (range.duration() < kMinVisibleNs)
        range.end = range.begin + kMinVisibleNs;
    const bool historyWasSet = canGoBack() || canGoForward();
    m_full = range;
    m_back.clear();
    m_forward.clear();
    m_inGesture = false;
    Q_EMIT fullRangeChanged(m_full);
    applyVisible(m_full);
    if (historyWasSet)
        Q_EMIT historyChanged(false, false);
    setSelection({});
    setHovered({});
    setSelectedRank(kNoRank);
    clearHighlight();
    setSelectedFinding(-1);
}

void ViewState::adjustFullRange(TimeRange range)
{
    if (range.duration() < kMinVisibleNs)
        range.end = range.begin + kMinVisibleNs;
    if (range == m_full)
        return;
    const bool wasWhole = m_visible == m_full;
    m_full = range;
    Q_EMIT fullRangeChanged(m_full);
    applyVisible(wasWhole ? m_full : clamped(m_visible));
}

TimeRange ViewState::clamped(TimeRange range) const
{
    TimeNs d = std::clamp(range.duration(), kMinVisibleNs, m_full.duration());
    TimeNs begin = std::clamp(range.begin, m_full.begin, m_full.end - d);
    return {begin, begin + d};
}

void ViewState::pushHistory(std::vector<TimeRange> &stack, TimeRange range)
{
    if (!stack.empty() && stack.back() == range)
        return;
    stack.push_back(range);
    if (stack.size() > static_cast<std::size_t>(kHistoryLimit))
        stack.erase(stack.begin());
}

void ViewState::applyVisible(TimeRange range)
{
    if (range == m_visible)
        return;
    m_visible = range;
    Q_EMIT visibleRangeChanged(m_visible);
}

void ViewState::setVisibleRange(TimeRange range, Change change)
{
    const TimeRange next = clamped(range);
    if (next == m_visible)
        return;
    // A gesture is one history step: only its first change remembers where it started.
    const bool record = change == Change::Jump || !m_inGesture;
    m_inGesture = change == Change::Continuous;
    if (record) {
        const bool couldGoForward = canGoForward();
        const bool couldGoBack = canGoBack();
        pushHistory(m_back, m_visible);
        m_forward.clear();
        if (!couldGoBack || couldGoForward)
            Q_EMIT historyChanged(canGoBack(), canGoForward());
    }
    applyVisible(next);
}

void ViewState::zoomBy(double factor, TimeNs anchor, Change change)
{
    if (!(factor > 0))
        return;
    const auto d = static_cast<double>(m_visible.duration());
    const auto newDuration = std::clamp(static_cast<TimeNs>(std::llround(d * factor)), kMinVisibleNs, m_full.duration());
    anchor = std::clamp(anchor, m_visible.begin, m_visible.end);
    // Keep the anchor at the same fraction of the window so the point under the mouse stays put.
    const double fraction = static_cast<double>(anchor - m_visible.begin) / d;
    const TimeNs begin = anchor - static_cast<TimeNs>(std::llround(fraction * static_cast<double>(newDuration)));
    setVisibleRange({begin, begin + newDuration}, change);
}

void ViewState::panBy(TimeNs delta, Change change)
{
    setVisibleRange({m_visible.begin + delta, m_visible.end + delta}, change);
}

void ViewState::resetZoom()
{
    setVisibleRange(m_full, Change::Jump);
}

bool ViewState::goBack()
{
    if (m_back.empty())
        return false;
    m_inGesture = false;
    pushHistory(m_forward, m_visible);
    const TimeRange target = m_back.back();
    m_back.pop_back();
    applyVisible(clamped(target));
    Q_EMIT historyChanged(canGoBack(), canGoForward());
    return true;
}

bool ViewState::goForward()
{
    if (m_forward.empty())
        return false;
    m_inGesture = false;
    pushHistory(m_back, m_visible);
    const TimeRange target = m_forward.back();
    m_forward.pop_back();
    applyVisible(clamped(target));
    Q_EMIT historyChanged(canGoBack(), canGoForward());
    return true;
}

void ViewState::setSelection(EventRef selection)
{
    if (selection == m_selection)
        return;
    m_selection = selection;
    Q_EMIT selectionChanged(m_selection);
}

void ViewState::setHovered(EventRef hovered)
{
    if (hovered == m_hovered)
        return;
    m_hovered = hovered;
    Q_EMIT hoveredChanged(m_hovered);
}

void ViewState::setSelectedRank(RankId rank)
{
    if (rank < 0)
        rank = kNoRank;
    if (rank == m_selectedRank)
        return;
    m_selectedRank = rank;
    Q_EMIT selectedRankChanged(m_selectedRank);
}

void ViewState::setRankHidden(RankId rank, bool hidden)
{
    if (hidden == m_hidden.contains(rank))
        return;
    if (hidden)
        m_hidden.insert(rank);
    else
        m_hidden.remove(rank);
    Q_EMIT rankHiddenChanged(rank, hidden);
}

void ViewState::setRankCollapsed(RankId rank, bool collapsed)
{
    if (collapsed == m_collapsed.contains(rank))
        return;
    if (collapsed)
        m_collapsed.insert(rank);
    else
        m_collapsed.remove(rank);
    Q_EMIT rankCollapsedChanged(rank, collapsed);
}

void ViewState::setCompactLanes(bool compact)
{
    if (compact == m_compactLanes)
        return;
    m_compactLanes = compact;
    Q_EMIT compactLanesChanged(compact);
}

void ViewState::setMemoryLaneHeight(int pixels)
{
    pixels = std::max(0, pixels);
    if (pixels == m_memoryLaneHeight)
        return;
    m_memoryLaneHeight = pixels;
    Q_EMIT memoryLaneHeightChanged(pixels);
}

namespace {

// Hidden and pinned lanes are both sets of lane keys kept in the order they were added.
bool containsLane(const std::vector<ViewState::LaneKey> &lanes, const ViewState::LaneKey &key)
{
    return std::find(lanes.begin(), lanes.end(), key) != lanes.end();
}

// Adds or removes `key`; false when it was already so.
bool setLane(std::vector<ViewState::LaneKey> &lanes, ViewState::LaneKey key, bool in)
{
    if (in == containsLane(lanes, key))
        return false;
    if (in)
        lanes.push_back(std::move(key));
    else
        std::erase(lanes, key);
    return true;
}

} // namespace

bool ViewState::isLaneHidden(RankId rank, const QString &kind, TrackId track) const
{
    return containsLane(m_hiddenLanes, {rank, kind, track});
}

void ViewState::setLaneHidden(RankId rank, const QString &kind, TrackId track, bool hidden)
{
    if (setLane(m_hiddenLanes, {rank, kind, track}, hidden))
        Q_EMIT hiddenLanesChanged(rank);
}

bool ViewState::isLanePinned(RankId rank, const QString &kind, TrackId track) const
{
    return containsLane(m_pinnedLanes, {rank, kind, track});
}

void ViewState::setLanePinned(RankId rank, const QString &kind, TrackId track, bool pinned)
{
    if (setLane(m_pinnedLanes, {rank, kind, track}, pinned))
        Q_EMIT pinnedLanesChanged();
}

void ViewState::setPinnedLanes(std::vector<LaneKey> lanes)
{
    if (lanes == m_pinnedLanes)
        return;
    m_pinnedLanes = std::move(lanes);
    Q_EMIT pinnedLanesChanged();
}

int ViewState::hiddenLaneCount(RankId rank) const
{
    return static_cast<int>(std::count_if(m_hiddenLanes.begin(), m_hiddenLanes.end(),
                                          [rank](const LaneKey &k) { return rank == kNoRank || k.rank == rank; }));
}

void ViewState::showHiddenLanes(RankId rank)
{
    const auto before = m_hiddenLanes.size();
    std::erase_if(m_hiddenLanes, [rank](const LaneKey &k) { return rank == kNoRank || k.rank == rank; });
    if (m_hiddenLanes.size() != before)
        Q_EMIT hiddenLanesChanged(rank);
}

void ViewState::setRanksCollapsed(const std::vector<RankId> &ranks, bool collapsed)
{
    for (RankId r : ranks)
        setRankCollapsed(r, collapsed);
}

void ViewState::setSelectedFinding(int findingIndex)
{
    findingIndex = std::max(-1, findingIndex);
    if (findingIndex == m_selectedFinding)
        return;
    m_selectedFinding = findingIndex;
    Q_EMIT selectedFindingChanged(m_selectedFinding);
}

void ViewState::setHighlight(Highlight highlight)
{
    if (highlight == m_highlight)
        return;
    m_highlight = std::move(highlight);
    Q_EMIT highlightChanged(m_highlight);
}

void ViewState::setClockOffsets(const QHash<RankId, TimeNs> &offsets)
{
    if (offsets == m_offsets)
        return;
    m_offsets = offsets;
    Q_EMIT clockOffsetsChanged();
}

} // namespace rs
