// The rank's timed log records, one marker each: INFO thinned to one per pixel column, warnings,
// errors and OOMs always drawn on top. Records without a time stamp have no place on a time axis
// (the Log panel lists them), so a rank without timed records has no log lane.

#include "builtinlanes.h"

#include "lanetooltips.h"
#include "logstyle.h"
#include "timeline/gutterpainter.h"
#include "timeline/lanepainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QLocale>
#include <QPainter>

#include <cmath>

namespace rs {

namespace {

class LogLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LaneLayout)

public:
    std::string_view id() const override { return LaneId::Log; }

    void addLanes(LaneBuilder &b) const override
    {
        if (!b.options.collapsed && b.options.timedLogs)
            b.add(*this, kNoTrack, LaneLayout::kLogHeight, tr("Log"), tr("LOG"));
    }

    void paint(const Lane &lane, LaneFrame &f) const override { f.lanes->logs(lane, f.rank, f.hovered, f.selected); }

    void paintGutter(const Lane &lane, LaneFrame &f) const override
    {
        const GutterPainter::Cell cell = f.gutter->lane(lane);
        const EvidenceIndex &e = f.ctx->evidence;
        const std::size_t timed = e.logs(f.rank).size();
        const std::size_t notable = e.notableLogs(f.rank).size();
        QString text = QLocale().toString(static_cast<qint64>(timed));
        if (notable)
            text += tr(" · %1 ⚠").arg(QLocale().toString(static_cast<qint64>(notable)));
        QPainter &p = *f.painter;
        p.setPen(notable ? LogStyle::color(LogStyle::Mark::Warning).darker(120) : GutterPainter::mutedColor());
        p.drawText(QRect(cell.x, cell.rowTop, f.ctx->gutterWidth - cell.x - 8, cell.rowHeight), Qt::AlignRight | Qt::AlignVCenter, text);
    }

    EventRef hitTest(const Lane &, QPoint pos, const LaneFrame &f) const override
    {
        const TimeScale scale = f.dataScale();
        const auto tol = static_cast<TimeNs>(std::ceil((LanePainter::kLogMarkerRadius + 1) * scale.nsPerPixel()));
        const TimeNs t = scale.toTime(pos.x() + 0.5);
        const TimeRange window{t - tol, t + tol + 1};
        // A warning or error wins over INFO lines in the same pixels: it is drawn on top.
        for (const auto *list : {&f.ctx->evidence.notableLogs(f.rank), &f.ctx->evidence.logs(f.rank)}) {
            const auto [lo, hi] = EvidenceIndex::inRange(*list, window);
            std::size_t best = hi;
            TimeNs bestDistance = tol + 1;
            int bestMark = -1;
            for (std::size_t i = lo; i < hi; ++i) {
                const TimeNs d = std::abs((*list)[i].time - t);
                const int mark = static_cast<int>((*list)[i].mark);
                if (mark > bestMark || (mark == bestMark && d < bestDistance)) {
                    best = i;
                    bestDistance = d;
                    bestMark = mark;
                }
            }
            if (best < hi)
                return EventRef::logRecord((*list)[best].index);
        }
        return {};
    }

    QString tooltip(const Lane &, QPoint, const EventRef &hit, const LaneFrame &f) const override
    {
        return hit.kind == EventRef::Kind::LogRecord ? LaneTooltips::logRecord(f, hit.index) : QString();
    }

    QString finderWords(const Lane &, const Session &) const override { return QStringLiteral("log"); }
    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }
};

} // namespace

std::unique_ptr<LaneKind> makeLogLane()
{
    return std::make_unique<LogLane>();
}

} // namespace rs
