#pragma once
// The model behind the virtualized timeline: every rank group of the session laid out and stacked
// top to bottom, without a widget. Each entry holds the group's lanes (LaneLayout), its header text
// and where it starts in the timeline's canvas, so the view knows the height of a thousand groups
// and which of them meet the viewport while only those get a RankGroupWidget (TimelineView recycles
// a handful). The sticky header, the annotation layer and Ctrl+P read group geometry from here, so
// they work for groups that have no widget.

#include "lanekind.h"
#include "lanelayout.h"
#include "types.h"

#include <QCoreApplication>

#include <set>
#include <unordered_map>
#include <vector>

namespace rs {

struct TimelineContext;

/// One rank group as the stack lays it out.
struct GroupEntry {
    RankId rank = kNoRank;
    LaneLayout layout;      ///< its lanes now (collapsed, compact, hidden lanes, Findings row applied)
    GroupHeader header;     ///< summary, alerts and divergence badge (collapsed/selected set when painting)
    bool findings = false;  ///< keeps a Findings row (the annotation layer decides)
    bool hidden = false;    ///< the rank is hidden: no height, no widget
    int y = 0;              ///< top in canvas coordinates (meaningless while hidden)

    int height() const { return hidden ? 0 : layout.height(); }
    int bottom() const { return y + height(); }
};

class GroupStack
{
    Q_DECLARE_TR_FUNCTIONS(GroupStack)
public:
    /// One entry per rank of the context's session, in session order, laid out and stacked from
    /// canvas row `top`. Empty without a session.
    void build(TimelineContext &ctx, int top);
    void clear();

    /// Lays the group of `rank` out again from the view state (every group for kNoRank) and stacks
    /// the groups again. Returns whether any height changed.
    bool relayout(TimelineContext &ctx, RankId rank = kNoRank);
    /// The analysis changed: divergence badges.
    void analysisChanged(const TimelineContext &ctx);
    /// Gives a Findings row to exactly `ranks`' groups; false when nothing changed.
    bool setFindingRows(TimelineContext &ctx, const std::set<RankId> &ranks);
    /// Hides or shows `rank`'s group and stacks again.
    void setHidden(RankId rank, bool hidden);
    /// Moves every group so the first starts at canvas row `top`.
    void setTop(int top);

    const std::vector<GroupEntry> &entries() const { return m_entries; }
    std::size_t size() const { return m_entries.size(); }
    /// The entry of `rank`, or nullptr.
    const GroupEntry *find(RankId rank) const;
    /// Index of `rank`'s entry, or -1.
    std::ptrdiff_t indexOf(RankId rank) const;
    /// The visible group covering canvas row `y`, or nullptr (a gap is part of its group).
    const GroupEntry *at(int y) const;
    /// Indices [first, last) of the visible groups overlapping canvas rows [top, bottom).
    std::pair<std::size_t, std::size_t> overlapping(int top, int bottom) const;
    /// Canvas row after the last group.
    int bottom() const;
    int top() const { return m_top; }

    /// Builds the layout of `entry` from the view state (no restacking).
    static void layOut(TimelineContext &ctx, GroupEntry &entry);

private:
    void restack();
    GroupEntry *findMutable(RankId rank);

    std::vector<GroupEntry> m_entries;
    std::unordered_map<RankId, std::size_t> m_index;
    int m_top = 0;
};

} // namespace rs
