#pragma once
// A lane kind: one class that knows everything about one kind of band in a rank group — which
// lanes it adds to a group and how tall they are, how it paints into any QPainter for a time
// window, what lies under the mouse and its tooltip, its gutter cell, the words Ctrl+P finds it by,
// and whether a compact figure keeps it. LaneLayout asks every registered kind (LaneRegistry) for
// its lanes; RankGroupPainter paints them for the on-screen timeline and for every exported figure,
// so the two cannot drift apart. A new lane kind is a file with a LaneKind subclass, a line in
// LaneRegistry's constructor and one in CMakeLists.txt (lanes/launcherlane.cpp is an example).

#include "lanelayout.h"
#include "timescale.h"
#include "viewstate.h"

#include <QFont>
#include <QRect>
#include <QString>
#include <QStringList>

#include <functional>
#include <string_view>

class QPainter;

namespace rs {

class GutterPainter;
class LanePainter;
struct TimelineContext;

/// Ids of the built-in kinds (LaneKind::id()); a kind registered elsewhere picks its own.
namespace LaneId {
inline constexpr std::string_view Header = "header";     ///< rank name, colour, summary, badges
inline constexpr std::string_view Findings = "findings"; ///< a row kept free for finding badges
inline constexpr std::string_view Summary = "summary";   ///< collapsed group: one busy strip
inline constexpr std::string_view Memory = "memory";     ///< the memory chart of the rank's GPU
inline constexpr std::string_view Steps = "steps";       ///< ProfilerStep#N bands
inline constexpr std::string_view Log = "log";           ///< the rank's timed log records
inline constexpr std::string_view Launcher = "launcher"; ///< what torchrun/SLURM/mpiexec said about the rank
inline constexpr std::string_view Spans = "spans";       ///< a CPU thread or GPU stream, by depth
inline constexpr std::string_view Instants = "instants"; ///< markers, one tick per instant
inline constexpr std::string_view Counter = "counter";   ///< any other counter, a min/max area
} // namespace LaneId

/// What a kind sees while LaneLayout stacks one rank group; add() appends a lane under the last.
class LaneBuilder
{
public:
    LaneBuilder(const Session &s, const Rank &r, const LaneLayout::Options &o, const LaneLayout &l, std::vector<Lane> &lanes, int &y)
        : session(s), rank(r), options(o), layout(l), m_lanes(lanes), m_y(y)
    {
    }

    const Session &session;
    const Rank &rank;
    const LaneLayout::Options &options; ///< collapsed, findings row, timed logs, figure
    const LaneLayout &layout;           ///< memoryTracks() and summaryTracks() are known already

    /// Appends a lane of `kind` `height` rows tall.
    void add(const LaneKind &kind, TrackId track, int height, QString title, QString badge = {})
    {
        m_lanes.push_back({&kind, track, m_y, height, std::move(title), std::move(badge)});
        m_y += height;
    }

private:
    std::vector<Lane> &m_lanes;
    int &m_y;
};

/// The header row's content, worked out once per group (it does not change with the view).
struct GroupHeader {
    QString summary;     ///< muted text right of the gutter ("12 lanes · 3,402 spans · …")
    QStringList alerts;  ///< red badges after the name ("OOM", "3 errors")
    QString divergence;  ///< amber badge of a rank that diverges from its peers, may be empty
    bool collapsed = false;
    bool selected = false;   ///< the selected rank: stronger tint and a frame
    bool disclosure = true;  ///< draw the collapse triangle (a figure on paper has nothing to click)
};

/// Everything a kind needs to paint, hit-test and explain one lane of one group for one frame.
struct LaneFrame {
    QPainter *painter = nullptr;
    TimelineContext *ctx = nullptr;
    const LaneLayout *layout = nullptr;
    const GroupHeader *header = nullptr;
    RankId rank = 0;
    TimeScale view;            ///< view time → group x (the ruler's mapping)
    TimeNs offset = 0;         ///< the rank's clock offset: its data is drawn this much later
    int width = 0;             ///< group width, gutter included
    QRect exposed;             ///< what needs painting, group coordinates
    QFont font;                ///< the group's base font
    bool figure = false;       ///< an exported figure: no widgets, no hover or selection
    bool chartWidget = false;  ///< a chart widget (the screen's QCustomPlot) covers the memory lane
    EventRef hovered;          ///< outlined thinly
    EventRef selected;         ///< outlined strongly
    Highlight highlight;       ///< the finding the user (or the export) points at
    /// Paints the Findings row (screen and figure draw their own kind of row; the badges come later).
    std::function<void(QPainter &, const QRect &row, const QString &title)> findingsRow;
    LanePainter *lanes = nullptr;   ///< set by RankGroupPainter while painting
    GutterPainter *gutter = nullptr;

    /// Data time → x: the view's scale shifted by the rank's offset.
    TimeScale dataScale() const { return view.shifted(offset); }
    /// The on-screen frame of `rank`'s `layout`, `width` wide: the view state's window, the rank's
    /// clock offset, hover, selection and highlight; the whole group exposed, no painter yet. The
    /// group widgets, the sticky header and the pinned lanes start from it.
    static LaneFrame onScreen(TimelineContext &ctx, const LaneLayout &layout, RankId rank, int width);
};

/// Compact detail (figures' `--detail compact`): which lanes stay. Kinds decide with the group's
/// facts gathered here; a kind may retitle the lane it keeps.
struct CompactFilter {
    const Session *session = nullptr;
    bool anyGpu = false;      ///< the group has a GPU stream lane
    bool cpuFallback = false; ///< a CPU thread already stands in for missing GPU streams
};

class LaneKind
{
public:
    virtual ~LaneKind() = default;

    /// Stable id ("memory", "spans"); Ctrl+P rows and tests name kinds by it.
    virtual std::string_view id() const = 0;
    /// Adds this kind's rank-level lanes (those not tied to one track) to the group being built.
    virtual void addLanes(LaneBuilder &) const {}
    /// Adds this kind's lanes for `track` of an expanded group (memory counters excluded).
    virtual void addTrackLanes(LaneBuilder &, TrackId) const {}
    /// The ruler's grid is drawn under the lane's content.
    virtual bool drawsGrid() const { return true; }
    /// paint() draws the whole row, gutter included, unclipped, with no separator (header, findings).
    virtual bool fullRow() const { return false; }
    /// OOM lines and the highlight's shading start below lanes of this kind (rows of labels).
    virtual bool aboveData() const { return false; }
    /// Paints the lane's data area (clipped to it); the grid is already there.
    virtual void paint(const Lane &lane, LaneFrame &frame) const = 0;
    /// Paints the gutter cell: by default the title with its badge; kinds add a legend.
    virtual void paintGutter(const Lane &lane, LaneFrame &frame) const;
    /// The event at `pos` (group coordinates, inside the lane), or none.
    virtual EventRef hitTest(const Lane &, QPoint, const LaneFrame &) const { return {}; }
    /// Rich-text tooltip at `pos` for `hit` (what hitTest found there); empty: none.
    virtual QString tooltip(const Lane &, QPoint, const EventRef &, const LaneFrame &) const { return {}; }
    /// Words Ctrl+P finds the lane by, besides its title; empty: the lane is not listed.
    virtual QString finderWords(const Lane &, const Session &) const { return {}; }
    /// Whether compact detail keeps the lane (it may retitle it).
    virtual bool keepInCompact(Lane &, CompactFilter &) const { return false; }
};

} // namespace rs
