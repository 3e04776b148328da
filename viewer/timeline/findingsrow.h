#pragma once
// One row kept free for numbered finding badges, as the screen draws it: the label in the gutter,
// a faint background across the data area, a separator at the bottom. The Findings lane of a rank
// group and the job-wide strip under the ruler (FindingsStrip) both paint it; no widget needed.

#include <QFont>
#include <QRect>
#include <QString>

class QPainter;

namespace rs::FindingsRow {

inline constexpr int kHeight = 20; ///< the same as LaneLayout::kFindingsHeight

/// Paints a row filling `row` (x = 0 is the gutter's left edge), the gutter `gutterWidth` wide.
void paint(QPainter &painter, const QRect &row, int gutterWidth, const QString &label, const QFont &font);

} // namespace rs::FindingsRow
