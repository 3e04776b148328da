#include "analysisoverlay.h"

#include "timeformat.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

QString shortMetric(const std::string &key)
{
    if (key == "peak_allocated_bytes") return AnalysisOverlay::tr("peak allocated");
    if (key == "peak_reserved_bytes") return AnalysisOverlay::tr("peak reserved");
    if (key == "gpu_used_peak_bytes") return AnalysisOverlay::tr("GPU used");
    if (key == "step_time_median_ns") return AnalysisOverlay::tr("step time");
    if (key == "input_elements") return AnalysisOverlay::tr("inputs");
    if (key == "collective_lateness_ns") return AnalysisOverlay::tr("late at collectives");
    if (key == "micro_batches") return AnalysisOverlay::tr("micro-batches");
    return QString::fromStdString(key);
}

} // namespace

QColor AnalysisOverlay::highlightColor(int alpha)
{
    return {0xe0, 0x8e, 0x00, alpha};
}

std::vector<SpikeMark> AnalysisOverlay::spikeMarks(const AnalysisResult &result, RankId rank)
{
    std::vector<SpikeMark> out;
    const TimeNs offset = result.offsetOf(rank);
    for (const Spike &s : result.spikes) {
        if (s.rank != rank)
            continue;
        SpikeMark m;
        m.time = s.timeNs - offset;
        m.duration = s.durationNs;
        m.label = QStringLiteral("+%1").arg(TimeFormat::bytes(static_cast<double>(s.bytes)));
        m.bytes = s.bytes;
        m.tooltip = tr("<b>+%1</b> allocated in %2").arg(TimeFormat::bytes(static_cast<double>(s.bytes)), TimeFormat::duration(s.durationNs));
        if (s.step >= 0)
            m.tooltip += tr(" in step %1").arg(s.step);
        if (!s.attributedTo.empty())
            m.tooltip += tr("<br/>while running %1").arg(QString::fromStdString(s.attributedTo).toHtmlEscaped());
        out.push_back(std::move(m));
    }
    return out;
}

QString AnalysisOverlay::divergenceBadge(const AnalysisResult &result, RankId rank)
{
    QStringList metrics;
    for (const Divergence &d : result.divergent) {
        const QString m = shortMetric(d.metric);
        if (d.rank == rank && !metrics.contains(m))
            metrics << m;
    }
    if (metrics.isEmpty())
        return {};
    const qsizetype shown = std::min<qsizetype>(metrics.size(), 3);
    QString text = tr("diverges: %1").arg(metrics.mid(0, shown).join(QStringLiteral(", ")));
    if (metrics.size() > shown)
        text += tr(" +%1").arg(metrics.size() - shown);
    return text;
}

QString AnalysisOverlay::divergenceDetails(const AnalysisResult &result, RankId rank)
{
    QStringList lines;
    for (const Divergence &d : result.divergent)
        if (d.rank == rank)
            lines << QString::fromStdString(d.reason).toHtmlEscaped();
    return lines.isEmpty() ? QString() : tr("<b>Diverges from its peers</b><br/>%1").arg(lines.join(QStringLiteral("<br/>")));
}

void AnalysisOverlay::paintBadge(QPainter &p, const QRect &header, const QString &badge)
{
    if (badge.isEmpty())
        return;
    QFont f = p.font();
    f.setPixelSize(10);
    f.setWeight(QFont::DemiBold);
    p.setFont(f);
    const QFontMetrics fm(f);
    const int w = fm.horizontalAdvance(badge) + 14;
    const QRectF r(header.right() - w - 8, header.center().y() - 8, w, 16);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(QPen(highlightColor(), 1));
    p.setBrush(QColor(0xfd, 0xf3, 0xdc));
    p.drawRoundedRect(r, 8, 8);
    p.setPen(QColor(0x8a, 0x55, 0x00));
    p.drawText(r, Qt::AlignCenter, badge);
    p.restore();
}

void AnalysisOverlay::paintHighlight(QPainter &p, const Highlight &h, RankId rank, const TimeScale &view, const QRect &body,
                                     const QRect &header)
{
    if (!h.contains(rank))
        return;
    p.save();
    // An amber bar along the header says "this rank is part of the finding" even when the
    // finding's moment is scrolled out of view.
    p.fillRect(QRect(header.left(), header.bottom() - 2, header.width(), 3), highlightColor());
    if (!h.range.isEmpty()) {
        const double x0 = std::max<double>(body.left(), view.toX(h.range.begin));
        const double x1 = std::min<double>(body.right() + 1, std::max(view.toX(h.range.end), view.toX(h.range.begin) + 2));
        if (x1 > body.left() && x0 < body.right()) {
            p.setClipRect(body);
            p.fillRect(QRectF(x0, body.top(), std::max(2.0, x1 - x0), body.height()), highlightColor(34));
            p.setPen(QPen(highlightColor(200), 1, Qt::DashLine));
            p.drawLine(QPointF(x0, body.top()), QPointF(x0, body.bottom()));
            if (x1 - x0 > 3)
                p.drawLine(QPointF(x1, body.top()), QPointF(x1, body.bottom()));
        }
    }
    p.restore();
}

} // namespace rs
