#pragma once
// Paints the fixed left gutter of a rank group: the rank header (disclosure triangle, colour, name,
// alert badges, summary) and, for every other lane, its name with a kind badge plus the lane's
// legend (memory curves in their line styles with their peaks, counter maxima with units, span and
// level counts, log record counts).

#include "lanelayout.h"

#include <QCoreApplication>
#include <QFont>
#include <QString>
#include <QStringList>

class QPainter;

namespace rs {

class MemoryPlot;
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
    /// The gutter cell of any other lane of `rank`; `plot` supplies the memory legend.
    void lane(const Lane &lane, const MemoryPlot *plot, RankId rank);

private:
    QPainter &m_p;
    TimelineContext &m_ctx;
    int m_width;
    QFont m_font;
};

} // namespace rs
