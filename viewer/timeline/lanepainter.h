#pragma once
// Paints the lanes of one rank group for one frame. Everything drawn comes out of the level-of-
// detail pass (folded spans, min/max counter columns), so a frame costs about the same at every
// zoom: proportional to pixels, not to events.

#include "lanelayout.h"
#include "timescale.h"
#include "viewstate.h"

#include <QColor>
#include <QRect>

class QPainter;

namespace rs {

struct TimelineContext;

class LanePainter
{
public:
    /// `viewScale` maps view time to group x; the rank's data is shown `dataOffset` ns later
    /// (its clock offset), so data is drawn with the scale shifted by that much.
    LanePainter(QPainter &painter, TimelineContext &context, const TimeScale &viewScale, TimeNs dataOffset,
                int groupWidth);

    /// Light vertical lines at the ruler's ticks between rows `top` and `top + height`.
    void grid(int top, int height);
    /// Spans of a CPU thread or GPU stream, by depth level, only the levels crossing `exposed`.
    void spans(const Lane &lane, TrackId trackId, const QRect &exposed);
    /// ProfilerStep bands of `rank`.
    void steps(const Lane &lane, const Rank &rank);
    /// A counter track as a min/max area scaled to its own maximum.
    void counter(const Lane &lane, TrackId trackId);
    /// Instants of a track as ticks, at most one per pixel column.
    void instants(const Lane &lane, const Track &track);
    /// The rank's timed log records: INFO thinned to one tick per pixel column, every warning,
    /// error and OOM drawn on top. `hovered` and `selected` records get a ring.
    void logs(const Lane &lane, RankId rank, const EventRef &hovered, const EventRef &selected);
    /// Thin red lines at the rank's OOM moments between rows `top` and `bottom` (all lanes below
    /// the header, so the op running at that moment is easy to find).
    void oomLines(RankId rank, int top, int bottom);
    /// The collapsed-group strip: level 0 of `tracks`, folded, in the rank's colour.
    void summary(const Lane &lane, const std::vector<TrackId> &tracks, const QColor &color);
    /// Outline around a span (selection: thick and dark; hover: thin).
    void outline(const Lane &lane, const Span &span, bool selected);

    /// Centre of a log marker at data time `t` in `lane`, for scale `scale`.
    static QPointF logMarkerCenter(const TimeScale &scale, const Lane &lane, TimeNs t);
    /// Half the height of a log marker.
    static constexpr double kLogMarkerRadius = 5.0;

    /// Where `span` of `lane` is drawn (before clipping to the lane area); at least 1 px wide.
    static QRectF spanRect(const TimeScale &scale, const Lane &lane, const Span &span);

private:
    void folded(const QRectF &r, const Span &sample, std::uint32_t count);
    void label(const QRectF &r, const QString &text, const QColor &background);

    QPainter &m_p;
    TimelineContext &m_ctx;
    TimeScale m_view;  // view time → x (grid)
    TimeScale m_scale; // data time → x (events)
    int m_left;
    int m_right;
};

} // namespace rs
