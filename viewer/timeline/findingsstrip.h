#pragma once
// The rows the timeline keeps free for numbered finding badges, so the badges cover neither a rank
// header's text nor the data: the Findings lane of a rank group (LaneLayout, LaneId::Findings)
// and the job-wide strip pinned under the ruler (FindingsStrip). Both look alike: the label in the
// gutter, a faint background across the data area. The badges themselves are drawn by the
// AnnotationOverlay on top, which also takes the mouse for them.
//
// (The exported figure draws its two rows with FigureMarkerStrips::paint, ruler-grey rather than
// tinted, through the same findings lane kind: LaneFrame::findingsRow.)

#include <QWidget>

namespace rs {

class FindingsStrip : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kHeight = 20; ///< the same as LaneLayout::kFindingsHeight

    explicit FindingsStrip(QWidget *parent = nullptr);
    /// Where the time axis starts (the lanes' gutter width).
    void setGutterWidth(int width);

    /// Paints one findings row filling `row` (its own coordinates: x = 0 is the gutter's left edge):
    /// `label` in the gutter, the faint background and a separator line at the bottom.
    static void paintRow(QPainter &painter, const QRect &row, int gutterWidth, const QString &label, const QFont &font);

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    int m_gutterWidth = 0;
};

} // namespace rs
