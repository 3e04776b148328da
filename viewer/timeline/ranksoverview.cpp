#include "ranksoverview.h"

#include "gutterpainter.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timelinecontext.h"
#include "timelineview.h"
#include "viewstate.h"

#include <QComboBox>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace rs {

namespace {

constexpr int kTop = 30; // the metric chooser's row

} // namespace

RanksOverview::RanksOverview(TimelineView *timeline, QWidget *parent)
    : QWidget(parent)
    , m_timeline(timeline)
    , m_state(timeline->viewState())
    , m_metricBox(new QComboBox(this))
{
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumHeight(80);
    for (auto m : {RanksOverviewPainter::Metric::MemoryShare, RanksOverviewPainter::Metric::Busy, RanksOverviewPainter::Metric::LogProblems})
        m_metricBox->addItem(RanksOverviewPainter::metricName(m), static_cast<int>(m));
    m_metricBox->setGeometry(8, 4, 240, kTop - 8);
    connect(m_metricBox, &QComboBox::currentIndexChanged, this,
            [this](int i) { setMetric(static_cast<RanksOverviewPainter::Metric>(m_metricBox->itemData(i).toInt())); });
    const auto repaint = [this] { update(); };
    connect(m_state, &ViewState::visibleRangeChanged, this, repaint);
    connect(m_state, &ViewState::clockOffsetsChanged, this, repaint);
    connect(m_state, &ViewState::selectedRankChanged, this, repaint);
    connect(m_state, &ViewState::rankHiddenChanged, this, repaint);
    connect(timeline, &TimelineView::contentChanged, this, repaint);
}

void RanksOverview::setMetric(RanksOverviewPainter::Metric metric)
{
    if (metric == m_metric)
        return;
    m_metric = metric;
    m_metricBox->setCurrentIndex(m_metricBox->findData(static_cast<int>(metric)));
    update();
}

QRect RanksOverview::rowsRect() const
{
    const int g = m_timeline->gutterWidth();
    return {g, kTop, std::max(1, width() - g - 2), std::max(1, height() - kTop - 4)};
}

RanksOverviewPainter::Frame RanksOverview::frame() const
{
    RanksOverviewPainter::Frame f;
    f.ctx = &m_timeline->context();
    if (const Session *s = f.ctx->session.get())
        for (const Rank &r : s->ranks())
            if (!m_state->isRankHidden(r.id))
                f.ranks.push_back(r.id);
    f.offsetOf = [state = m_state](RankId r) { return state->clockOffset(r); };
    f.area = rowsRect();
    // The timeline's axis: same window, same left edge of the data, so a column here is a column there.
    f.view = {m_state->visibleRange(), static_cast<double>(f.area.left()), static_cast<double>(f.area.width())};
    f.metric = m_metric;
    f.selected = m_state->selectedRank();
    return f;
}

void RanksOverview::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().window());
    const RanksOverviewPainter::Frame f = frame();
    const QRect area = f.area;
    p.fillRect(QRect(0, area.top(), area.left(), area.height()), GutterPainter::gutterColor());
    if (f.ranks.empty()) {
        p.setPen(GutterPainter::mutedColor());
        p.drawText(area, Qt::AlignCenter, tr("No ranks to show"));
        return;
    }
    RanksOverviewPainter::paint(p, f);
    // Labels where they fit: every rank when rows are tall, else every n-th, always the selected one.
    QFont small = font();
    small.setPixelSize(10);
    p.setFont(small);
    const int lineHeight = QFontMetrics(small).height();
    const double rowHeight = static_cast<double>(area.height()) / static_cast<double>(f.ranks.size());
    const std::size_t every = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(lineHeight / std::max(rowHeight, 0.01))));
    for (std::size_t i = 0; i < f.ranks.size(); i += every) {
        const auto [top, bottom] = RanksOverviewPainter::rowOf(f, f.ranks[i]);
        p.setPen(RankColors::textColor(f.ranks[i]));
        p.drawText(QRect(GutterPainter::kStripe + 6, top, area.left() - 14, std::max(bottom - top, lineHeight)),
                   Qt::AlignRight | Qt::AlignTop, tr("Rank %1").arg(f.ranks[i]));
    }
    if (f.selected != kNoRank) {
        const auto [top, bottom] = RanksOverviewPainter::rowOf(f, f.selected);
        if (bottom > top) {
            QFont bold = small;
            bold.setBold(true);
            p.setFont(bold);
            const QRect label(GutterPainter::kStripe + 6, (top + bottom - lineHeight) / 2, area.left() - 14, lineHeight);
            p.fillRect(label.adjusted(-2, 0, 8, 0), GutterPainter::gutterColor());
            p.setPen(RankColors::textColor(f.selected));
            p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QStringLiteral("▶ ") + tr("Rank %1").arg(f.selected));
            p.setFont(small);
        }
    }
    p.setPen(GutterPainter::mutedColor());
    p.drawText(QRect(area.left() + 256, 4, area.width() - 256, kTop - 8), Qt::AlignLeft | Qt::AlignVCenter,
               tr("%1 · click a row to go to its lanes").arg(countOf(static_cast<qint64>(f.ranks.size()), tr("rank"), tr("ranks"))));
}

void RanksOverview::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const RanksOverviewPainter::Frame f = frame();
    const RankId rank = RanksOverviewPainter::rankAt(f, pos.y());
    if (rank == kNoRank || pos.x() < f.area.left()) {
        QToolTip::hideText();
        return;
    }
    const TimeNs t = f.view.toTime(pos.x() + 0.5);
    const double v = RanksOverviewPainter::valueAt(f, rank, t);
    QString value;
    if (v < 0)
        value = tr("no data here");
    else if (m_metric == RanksOverviewPainter::Metric::MemoryShare)
        value = tr("%1 % of its GPU").arg(std::lround(v * 100));
    else if (m_metric == RanksOverviewPainter::Metric::Busy)
        value = v > 0 ? tr("busy") : tr("idle");
    else
        value = v >= 1 ? tr("error or OOM") : v > 0 ? tr("warning") : tr("nothing notable");
    QToolTip::showText(event->globalPosition().toPoint() + QPoint(12, 16),
                       tr("<b>Rank %1</b> at %2<br/>%3").arg(rank).arg(TimeFormat::precise(t - m_timeline->context().origin()), value), this);
}

void RanksOverview::mousePressEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    const RankId rank = RanksOverviewPainter::rankAt(frame(), event->position().toPoint().y());
    if (rank != kNoRank)
        m_state->setSelectedRank(rank); // the timeline scrolls to the rank's lanes
}

} // namespace rs
