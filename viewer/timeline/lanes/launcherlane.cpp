// What the launcher or the scheduler said about the rank, on the time axis: torchrun's, mpiexec's
// or srun's failed-child entries for this rank (exit code, signal), launcher events naming it, and
// the job-wide ends every rank shares (the scheduler cancelled the job or the step, a node failed,
// the host's OOM killer fired, the launcher itself was signalled). Only timed records have a place
// here; the Log panel lists the rest. Added through the LaneKind interface alone: this file, a line
// in LaneRegistry and one in CMakeLists.txt.

#include "builtinlanes.h"
#include "launchermarker.h"

#include "lanetooltips.h"
#include "timeformat.h"
#include "timeline/gutterpainter.h"
#include "timeline/timelinecontext.h"

#include <QCoreApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

const QColor kLabel(0x37, 0x41, 0x51);

class LauncherLane final : public LaneKind
{
    Q_DECLARE_TR_FUNCTIONS(LauncherLane)

public:
    /// One marker: a failed child or a job event, at its data time.
    struct Mark {
        TimeNs time = 0;
        bool failure = false;
        std::size_t index = 0; // into LogEvidence::failures or ::jobEvents
    };

    std::string_view id() const override { return LaneId::Launcher; }

    static bool jobWide(const JobEvent &e)
    {
        return e.rank == kJobLevel && e.kind != JobEventKind::ProcessKilled; // a killed pid is not this rank
    }

    static std::vector<Mark> marksOf(const Session &s, RankId rank)
    {
        std::vector<Mark> marks;
        const LogEvidence &logs = s.logs();
        for (std::size_t i = 0; i < logs.failures.size(); ++i)
            if (logs.failures[i].rank == rank && logs.failures[i].time != kNoTime)
                marks.push_back({logs.failures[i].time, true, i});
        for (std::size_t i = 0; i < logs.jobEvents.size(); ++i) {
            const JobEvent &e = logs.jobEvents[i];
            if (e.time != kNoTime && (e.rank == rank || jobWide(e)))
                marks.push_back({e.time, false, i});
        }
        std::stable_sort(marks.begin(), marks.end(), [](const Mark &a, const Mark &b) { return a.time < b.time; });
        return marks;
    }

    void addLanes(LaneBuilder &b) const override
    {
        if (!b.options.collapsed && !marksOf(b.session, b.rank.id).empty())
            b.add(*this, kNoTrack, LaneLayout::kLogHeight, tr("Launcher"), tr("JOB"));
    }

    static QString shortText(const Session &s, const Mark &m)
    {
        if (m.failure) {
            const ChildFailure &f = s.logs().failures[m.index];
            return !f.signal.empty() ? QString::fromStdString(f.signal) : tr("exit %1").arg(f.exitCode);
        }
        const JobEvent &e = s.logs().jobEvents[m.index];
        switch (e.kind) {
        case JobEventKind::Cancelled: return e.reason.empty() ? tr("cancelled") : tr("cancelled: %1").arg(QString::fromStdString(e.reason).toLower());
        case JobEventKind::StepAborted: return tr("step aborted");
        case JobEventKind::NodeFailure: return tr("node failure");
        case JobEventKind::OomKill: return tr("host OOM kill");
        case JobEventKind::ProcessKilled: return tr("killed %1").arg(QString::fromStdString(e.signal));
        case JobEventKind::LauncherSignalled: return tr("launcher got %1").arg(QString::fromStdString(e.signal));
        }
        return {};
    }

    void paint(const Lane &lane, LaneFrame &f) const override
    {
        const Session &s = *f.ctx->session;
        const TimeScale scale = f.dataScale();
        QPainter &p = *f.painter;
        const double mid = lane.top + (lane.height - 1) / 2.0;
        const QFontMetrics fm(p.font());
        double freeFrom = -1e9; // labels never overprint: one starts right of the previous one's end
        p.setRenderHint(QPainter::Antialiasing, true);
        for (const Mark &m : marksOf(s, f.rank)) {
            if (m.time < scale.range.begin - scale.range.duration() || m.time > scale.range.end + scale.range.duration())
                continue;
            const double x = std::floor(scale.toX(m.time)) + 0.5;
            const double r = LauncherMarker::kRadius;
            LauncherMarker::paint(p, QPointF(x, mid), m.failure);
            const QString text = shortText(s, m);
            const int w = fm.horizontalAdvance(text);
            // Right of the marker; left of it when that would run off the lane's end.
            double at = x + r + 3;
            if (at + w > f.width - 2 && x - r - 3 - w >= f.ctx->gutterWidth)
                at = x - r - 3 - w;
            if (at >= freeFrom) {
                p.setPen(kLabel);
                p.drawText(QPointF(at, mid + fm.ascent() / 2.0 - 1), text);
                freeFrom = std::max(freeFrom, at + w + 6);
            }
        }
        p.setRenderHint(QPainter::Antialiasing, false);
    }

    static std::int64_t lineOf(const Session &s, const Mark &m)
    {
        return m.failure ? s.logs().failures[m.index].line : s.logs().jobEvents[m.index].line;
    }

    /// The launcher's line the mark was read from, as a log record (selecting it opens its details).
    /// A scan of the records, done only for a mark under the mouse.
    static EventRef recordOf(const Session &s, const Mark &m)
    {
        const std::int64_t line = lineOf(s, m);
        const auto &records = s.logs().records;
        for (std::uint32_t i = 0; i < records.size(); ++i)
            if ((records[i].flags & LogFlagLauncher) && records[i].line == line && records[i].time == m.time)
                return EventRef::logRecord(i);
        return {};
    }

    EventRef hitTest(const Lane &, QPoint pos, const LaneFrame &f) const override
    {
        const Session &s = *f.ctx->session;
        const TimeScale scale = f.dataScale();
        const auto tol = static_cast<TimeNs>(std::ceil(7 * scale.nsPerPixel()));
        const TimeNs t = scale.toTime(pos.x() + 0.5);
        for (const Mark &m : marksOf(s, f.rank))
            if (std::abs(m.time - t) <= tol)
                return recordOf(s, m);
        return {};
    }

    QString tooltip(const Lane &, QPoint, const EventRef &hit, const LaneFrame &f) const override
    {
        if (hit.kind != EventRef::Kind::LogRecord)
            return {};
        const Session &s = *f.ctx->session;
        const LogRecord &record = s.logs().records[hit.index];
        QString head;
        // The marks read from the hit line (a ChildFailedError summary names several failures).
        for (const Mark &m : marksOf(s, f.rank)) {
            if (lineOf(s, m) != record.line || m.time != record.time)
                continue;
            if (m.failure) {
                const ChildFailure &c = s.logs().failures[m.index];
                head += tr("<b style='color:#c91d2e'>%1: rank %2 failed</b> · %3%4<br/>")
                            .arg(QString::fromStdString(c.launcher), QString::number(c.rank), shortText(s, m),
                                 c.rootCause ? tr(" · root cause (first observed failure)") : QString());
            } else {
                const JobEvent &e = s.logs().jobEvents[m.index];
                head += tr("<b style='color:#9a5b13'>%1: %2</b>%3<br/>")
                            .arg(QString::fromStdString(e.launcher), shortText(s, m),
                                 e.rank == kJobLevel ? tr(" · the whole job") : QString());
            }
        }
        return head + LaneTooltips::logRecord(f, hit.index);
    }

    QString finderWords(const Lane &, const Session &) const override
    {
        return QStringLiteral("launcher job torchrun slurm srun mpiexec failure exit signal");
    }
    bool keepInCompact(Lane &, CompactFilter &) const override { return true; }
};

} // namespace

std::unique_ptr<LaneKind> makeLauncherLane()
{
    return std::make_unique<LauncherLane>();
}

} // namespace rs
