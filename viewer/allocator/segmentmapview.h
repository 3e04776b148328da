#pragma once
// The Allocator dock's "Segment map": every segment the caching allocator had cudaMalloc'd at the
// snapshot, one bar each, its length in proportion to its size (the largest segment fills the
// width), cut into its blocks in address order: allocated, freed but not yet reusable (awaiting
// free) and inactive (free space inside the segment: where fragmentation shows). Grouped per rank
// and GPU, largest segments first; a block's size, request and frame on hover, its stack on click.

#include "session.h"

#include <QWidget>

namespace rs {

class SegmentMapView : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kBarHeight = 14;
    static constexpr int kRowGap = 5;
    static constexpr int kHeaderHeight = 22;
    static constexpr int kLabelWidth = 150; ///< the text right of the bars

    explicit SegmentMapView(QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// A block under `pos`: (segment index, block index), or (-1, -1).
    std::pair<int, int> blockAt(QPoint pos) const;
    /// The rectangle of block `block` of segment `segment` (empty when not laid out).
    QRectF blockRect(int segment, int block) const;
    /// Segments in drawing order (indexes into AllocatorEvidence::segments).
    const std::vector<std::uint32_t> &order() const { return m_order; }
    /// The fill of a block state.
    static QColor stateColor(SegmentRecord::Block::State state);

    QSize sizeHint() const override;
    int heightForWidth(int width) const override;
    bool hasHeightForWidth() const override { return true; }

Q_SIGNALS:
    /// A block (or a segment's bar outside its blocks) was clicked: the stack to list (-1 none).
    void stackRequested(std::int32_t stack);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Row {
        int y = 0;                 ///< top of the row (a header's or a bar's)
        int segment = -1;          ///< index into segments, -1 for a header row
        QString header;            ///< the rank and GPU of the rows that follow
    };
    void layoutRows();
    double barWidth(const SegmentRecord &s) const;

    SessionPtr m_session;
    std::vector<std::uint32_t> m_order;
    std::vector<Row> m_rows;
    std::int64_t m_largest = 0;
    int m_height = 0;
};

} // namespace rs
