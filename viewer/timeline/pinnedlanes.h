#pragma once
// Lanes pinned to the top of the timeline, under the ruler: each is one lane of one rank (rank 0's
// memory, rank 700's memory, a GPU stream of the straggler), painted by its lane kind through
// RankGroupPainter::paintLane on the shared time axis, so it pans and zooms with everything else
// while the rank groups scroll underneath. A pinned lane shows whether its rank is folded or
// scrolled far away. Hovering explains, a click selects, the context menu unpins. What is pinned
// lives in ViewState::pinnedLanes (saved with the session); TimelineView places the strip.

#include "lanelayout.h"
#include "types.h"

#include <QWidget>

#include <vector>

namespace rs {

struct LaneFrame;
struct TimelineContext;

class PinnedLanes : public QWidget
{
    Q_OBJECT
public:
    PinnedLanes(TimelineContext &context, QWidget *parent);

    /// One pinned lane as laid out in the strip.
    struct Row {
        RankId rank = kNoRank;
        LaneLayout layout; ///< the rank's lanes, expanded (the lane's kind may read its neighbours)
        Lane lane;         ///< the pinned lane, titled with its rank
        int y = 0;         ///< top in the strip
    };
    /// Finds the pinned lanes in the session again (pins, session or lane heights changed) and
    /// resizes; emits heightChanged when the strip's height changes. Pins the session has no lane
    /// for (another incident's) are left out.
    void rebuild();
    const std::vector<Row> &rows() const { return m_rows; }
    /// The strip's height: every row, 0 when nothing is pinned.
    int stripHeight() const { return m_height; }

Q_SIGNALS:
    void heightChanged(int height);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;

private:
    const Row *rowAt(int y) const;
    LaneFrame frameFor(const Row &row) const;

    TimelineContext &m_ctx;
    std::vector<Row> m_rows;
    int m_height = 0;
};

} // namespace rs
