#include "rankgrouppainter.h"

#include "analysisoverlay.h"
#include "gutterpainter.h"
#include "lanepainter.h"
#include "rankcolors.h"
#include "timelinecontext.h"

#include <QPainter>

namespace rs {

int RankGroupPainter::dataTop(const LaneLayout &layout)
{
    for (const Lane &lane : layout.lanes())
        if (!lane.kind->aboveData())
            return lane.top;
    return -1;
}

void RankGroupPainter::paint(LaneFrame &f)
{
    QPainter &p = *f.painter;
    TimelineContext &ctx = *f.ctx;
    const LaneLayout &layout = *f.layout;
    const int g = ctx.gutterWidth;
    const int width = f.width;
    const int bodyHeight = layout.height() - LaneLayout::kGroupGap;
    p.fillRect(f.exposed, ctx.colors->color(Palette::Role::Base));

    QFont laneFont = f.font;
    laneFont.setPixelSize(11);
    p.setFont(laneFont);
    LanePainter lanes(p, ctx, f.view, f.offset, width);
    GutterPainter gutter(p, ctx, width, f.font);
    f.lanes = &lanes;
    f.gutter = &gutter;
    const QRect dataArea(g, 0, width - g, layout.height());
    for (const Lane &lane : layout.lanes()) {
        const QRect full(0, lane.top, width, lane.height);
        if (!full.intersects(f.exposed))
            continue;
        if (lane.kind->fullRow()) {
            lane.kind->paint(lane, f);
            continue;
        }
        p.setClipRect(dataArea.intersected(full).intersected(f.exposed));
        p.setFont(laneFont);
        if (lane.kind->drawsGrid())
            lanes.grid(lane.top, lane.height - 1);
        lane.kind->paint(lane, f);
        p.setClipping(false);
        p.setPen(ctx.colors->color(Palette::Role::Separator));
        p.drawLine(g, lane.top + lane.height - 1, width, lane.top + lane.height - 1);
        lane.kind->paintGutter(lane, f);
    }
    // OOM moments cross every data lane, so what ran at that instant lines up with them.
    const int top = dataTop(layout);
    if (top >= 0) {
        p.setClipRect(QRect(g, top, width - g, bodyHeight - top).intersected(f.exposed));
        lanes.oomLines(f.rank, top, bodyHeight - 1);
        p.setClipping(false);
    }
    if (!layout.lanes().empty()) {
        const Lane &head = layout.lanes().front();
        const int below = head.top + head.height;
        AnalysisOverlay::paintHighlight(p, f.highlight, f.rank, f.view, QRect(g, below, width - g, bodyHeight - below),
                                        QRect(0, head.top, width, head.height));
    }
    // The colour stripe ties every lane of the group to its rank; the selected rank gets a frame.
    const bool selected = f.header && f.header->selected;
    p.fillRect(QRect(0, 0, selected ? GutterPainter::kStripe + 2 : GutterPainter::kStripe, bodyHeight), RankColors::color(f.rank));
    if (selected) {
        p.setPen(QPen(RankColors::color(f.rank), 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(1, 1, width - 2, bodyHeight - 2));
    }
    if (f.figure) { // a figure's groups sit on white paper: close the right edge
        p.setPen(ctx.colors->color(Palette::Role::Separator));
        p.drawLine(width - 1, 0, width - 1, bodyHeight - 1);
    }
    f.lanes = nullptr;
    f.gutter = nullptr;
}

void RankGroupPainter::paintLane(LaneFrame &f, const Lane &lane)
{
    QPainter &p = *f.painter;
    TimelineContext &ctx = *f.ctx;
    const int g = ctx.gutterWidth;
    const QRect full(0, lane.top, f.width, lane.height);
    p.fillRect(full, ctx.colors->color(Palette::Role::Base));
    QFont laneFont = f.font;
    laneFont.setPixelSize(11);
    LanePainter lanes(p, ctx, f.view, f.offset, f.width);
    GutterPainter gutter(p, ctx, f.width, f.font);
    f.lanes = &lanes;
    f.gutter = &gutter;
    const QRect data = QRect(g, lane.top, f.width - g, lane.height);
    p.setClipRect(data);
    p.setFont(laneFont);
    if (lane.kind->drawsGrid())
        lanes.grid(lane.top, lane.height - 1);
    lane.kind->paint(lane, f);
    lanes.oomLines(f.rank, lane.top, lane.top + lane.height - 2);
    p.setClipping(false);
    p.setPen(ctx.colors->color(Palette::Role::Separator));
    p.drawLine(0, lane.top + lane.height - 1, f.width, lane.top + lane.height - 1);
    lane.kind->paintGutter(lane, f);
    p.fillRect(QRect(0, lane.top, GutterPainter::kStripe, lane.height - 1), RankColors::color(f.rank));
    f.lanes = nullptr;
    f.gutter = nullptr;
}

EventRef RankGroupPainter::hitTest(const LaneFrame &f, QPoint pos)
{
    if (pos.x() < f.ctx->gutterWidth || pos.x() >= f.width)
        return {};
    const Lane *lane = f.layout->laneAt(pos.y());
    return lane ? lane->kind->hitTest(*lane, pos, f) : EventRef{};
}

QString RankGroupPainter::tooltip(const LaneFrame &f, QPoint pos, const EventRef &hit)
{
    const Lane *lane = f.layout->laneAt(pos.y());
    if (!lane)
        return {};
    // The header explains itself from anywhere on its row; data lanes only right of the gutter.
    if (!lane->kind->fullRow() && pos.x() < f.ctx->gutterWidth)
        return {};
    return lane->kind->tooltip(*lane, pos, hit, f);
}

} // namespace rs
