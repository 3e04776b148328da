#pragma once
// The rows the timeline keeps free for numbered finding badges, so the badges cover neither a rank
// header's text nor the data: the Findings lane of a rank group (LaneLayout, LaneId::Findings)
// and the job-wide strip pinned under the ruler (FindingsStrip). Both paint FindingsRow. The badges
// themselves are drawn by the AnnotationOverlay on top, which also takes the mouse for them.
//
// (The exported figure draws its two rows with FigureMarkerStrips::paint, ruler-grey rather than
// tinted, through the same findings lane kind: LaneFrame::findingsRow.)

#include "findingsrow.h"

#include <QWidget>

namespace rs {

class FindingsStrip : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kHeight = FindingsRow::kHeight;

    explicit FindingsStrip(QWidget *parent = nullptr);
    /// Where the time axis starts (the lanes' gutter width).
    void setGutterWidth(int width);

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    int m_gutterWidth = 0;
};

} // namespace rs
