#pragma once
// Paints the fixed left gutter of a rank group: the rank header (disclosure triangle, colour, name,
// alert badges, summary) and, for every other lane, its cell: the name with a kind badge. Each
// lane kind (LaneKind::paintGutter) adds its own legend under the name (memory curves with their
// peaks, counter maxima, span and level counts, log record counts).

#include "lanelayout.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QString>
#include <QStringList>

class QPainter;

namespace rs {

struct TimelineContext;

class GutterPainter
{
    Q_DECLARE_TR_FUNCTIONS(GutterPainter)

public:
    /// Width of the rank colour stripe on the group's left edge.
    static constexpr int kStripe = 4;

    GutterPainter(QPainter &painter, TimelineContext &context, int groupWidth, const QFont &font);

    /// The full-width header row of `rank`: stronger tint when it is the selected rank, and
    /// `alerts` ("OOM", "3 errors") as red badges after the name. `disclosure` false leaves out the
    /// collapse triangle (a figure on paper has nothing to click) and moves the name left.
    void header(const Lane &lane, RankId rank, bool collapsed, bool selected, const QString &summary,
                const QStringList &alerts, bool disclosure = true);
    /// Where a cell's title row is, for the legend a kind draws below or beside it.
    struct Cell {
        int x = 0;         ///< left of the title (after the badge)
        int rowTop = 0;    ///< the title row
        int rowHeight = 0;
    };
    /// The gutter cell of any other lane: background, border, badge and title. `spanRows` puts
    /// the title on the first depth row of a span lane; `muted` greys it (a summary strip).
    Cell lane(const Lane &lane, bool spanRows = false, bool muted = false);

    static QColor mutedColor();
    static QColor gutterColor();

private:
    QPainter &m_p;
    TimelineContext &m_ctx;
    int m_width;
    QFont m_font;
};

} // namespace rs
