#include "activememoryview.h"

#include "activememory.h"
#include "allocator/activememoryplot.h"
#include "models/segmentmodel.h"
#include "plural.h"
#include "timeformat.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>

#include <cmath>

namespace rs {

ActiveMemoryView::ActiveMemoryView(ViewState *state, QWidget *parent)
    : QWidget(parent)
    , m_state(state)
{
    m_device = new QComboBox;
    m_device->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_detail = new QSlider(Qt::Horizontal);
    m_detail->setRange(0, static_cast<int>(std::size(kDetailSteps)) - 1);
    m_detail->setValue(4); // 2,000 bands: every allocation that matters, drawn in a few ms
    m_detail->setPageStep(1);
    m_detail->setMaximumWidth(160);
    m_detail->setToolTip(tr("How many of the largest allocations get a band of their own; the smaller ones are summed in the grey band on top"));
    m_detailText = new QLabel;
    m_note = new QLabel;
    m_note->setWordWrap(true);
    m_plot = new ActiveMemoryPlot;
    m_plot->setMinimumHeight(160);

    auto *controls = new QHBoxLayout;
    controls->addWidget(m_device);
    controls->addSpacing(12);
    controls->addWidget(new QLabel(tr("Detail")));
    controls->addWidget(m_detail);
    controls->addWidget(m_detailText, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_note);
    layout->addWidget(m_plot, 1);

    connect(m_device, &QComboBox::currentIndexChanged, this, [this](int) { rebuild(); });
    connect(m_detail, &QSlider::valueChanged, this, [this](int) { rebuild(); });
    connect(m_plot, &ActiveMemoryPlot::bandClicked, this, [this](int band) {
        const std::int32_t stack = band >= 0 && m_layout ? m_layout->bands[static_cast<std::size_t>(band)].stack : -1;
        Q_EMIT stackRequested(stack);
    });
    // One time axis with the timeline when the snapshot has a clock.
    connect(m_plot->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this, [this](const QCPRange &range) {
        if (m_syncing || !m_layout || !m_layout->clocked)
            return;
        const TimeNs offset = m_state->clockOffset(m_layout->rank);
        const TimeNs begin = m_plot->timeOf(range.lower) + offset;
        const TimeNs end = m_plot->timeOf(range.upper) + offset;
        if (end > begin) {
            m_syncing = true;
            m_state->setVisibleRange({begin, end}, ViewState::Change::Continuous);
            m_syncing = false;
        }
    });
    connect(m_state, &ViewState::visibleRangeChanged, this, &ActiveMemoryView::followViewState);
    connect(m_state, &ViewState::clockOffsetsChanged, this, &ActiveMemoryView::rebuild);
}

QWidget *ActiveMemoryView::plotWidget() const
{
    return m_plot;
}

void ActiveMemoryView::setSession(SessionPtr session)
{
    m_session = std::move(session);
    const QSignalBlocker block(m_device);
    m_device->clear();
    if (m_session)
        for (const auto &[rank, device] : ActiveMemory::devices(*m_session))
            m_device->addItem(rank == kNoRank ? tr("GPU %1").arg(device) : tr("Rank %1 · GPU %2").arg(rank).arg(device),
                              QVariantList{rank, device});
    m_device->setEnabled(m_device->count() > 1);
    rebuild();
}

void ActiveMemoryView::rebuild()
{
    const std::size_t maxBands = kDetailSteps[static_cast<std::size_t>(std::clamp(m_detail->value(), 0, int(std::size(kDetailSteps)) - 1))];
    m_layout.reset();
    if (m_session && m_device->currentIndex() >= 0) {
        const QVariantList key = m_device->currentData().toList();
        m_layout = std::make_shared<const ActiveMemory>(
            ActiveMemory::build(*m_session, static_cast<RankId>(key.value(0).toInt()), key.value(1).toInt(), maxBands));
    }
    const TimeNs offset = m_layout ? m_state->clockOffset(m_layout->rank) : 0;
    m_syncing = true;
    m_plot->setLayout(m_layout, m_session, m_state->fullRange().begin, offset);
    m_syncing = false;
    if (m_layout && m_layout->clocked)
        followViewState();
    m_detailText->setText(maxBands == 0 ? tr("every allocation") : tr("%L1 largest").arg(static_cast<qulonglong>(maxBands)));
    updateNote();
}

void ActiveMemoryView::followViewState()
{
    if (m_syncing || !m_layout || !m_layout->clocked)
        return;
    // The timeline's window, where it overlaps the trace; the whole trace when it does not.
    const TimeNs offset = m_state->clockOffset(m_layout->rank);
    const TimeRange visible = m_state->visibleRange();
    TimeRange shown{visible.begin - offset, visible.end - offset};
    if (shown.end <= m_layout->range.begin || shown.begin >= m_layout->range.end)
        shown = m_layout->range;
    m_syncing = true;
    m_plot->xAxis->setRange(m_plot->keyOf(shown.begin), m_plot->keyOf(shown.end));
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    m_syncing = false;
}

void ActiveMemoryView::updateNote()
{
    QStringList notes;
    if (!m_session || m_session->allocator().empty()) {
        m_note->setText(tr("No allocator snapshot in this session."));
        return;
    }
    if (!m_layout) {
        m_note->setText(tr("The snapshot has no allocation history (it was taken without torch.cuda.memory._record_memory_history), "
                           "so there is no timeline; its segments are in the Segment map."));
        return;
    }
    const ActiveMemory &m = *m_layout;
    notes << tr("%1, peak %2 live.").arg(countOf(static_cast<qint64>(m.allocations), tr("allocation"), tr("allocations")),
                                         TimeFormat::bytes(static_cast<double>(m.peak)));
    if (m.rest.count > 0)
        notes << tr("%1 smaller than %2 are summed in the grey band.")
                     .arg(countOf(static_cast<qint64>(m.rest.count), tr("allocation"), tr("allocations")),
                          TimeFormat::bytes(static_cast<double>(m.threshold)));
    if (m.beforeTrace > 0)
        notes << tr("%1 (%2) allocated before the trace began and still held at the snapshot start at its left edge.")
                     .arg(countOf(static_cast<qint64>(m.beforeTrace), tr("block"), tr("blocks")), TimeFormat::bytes(static_cast<double>(m.beforeTraceBytes)));
    const std::size_t traced = m.allocations - m.beforeTrace;
    if (m.withoutStack > 0)
        notes << (m.withoutStack == traced
                      ? tr("No allocation has a stack: history was recorded without stacks (stacks=\"python\" records them).")
                      : tr("%L1 of %L2 allocations were recorded without a stack (grey).").arg(static_cast<qulonglong>(m.withoutStack))
                            .arg(static_cast<qulonglong>(traced)));
    if (m.reservedSteady)
        notes << tr("No segment was allocated or freed while the trace recorded: reserved memory stayed at %1 throughout.")
                     .arg(TimeFormat::bytes(static_cast<double>(m.reservedBytes)));
    if (!m.clocked)
        notes << tr("The trace has no time stamps: allocations are placed in trace order, not on the timeline's clock.");
    m_note->setText(notes.join(QLatin1Char(' ')));
}

int ActiveMemoryView::bandAt(QPoint pos) const
{
    return m_plot->bandAt(pos);
}

QPoint ActiveMemoryView::bandCenter(int band) const
{
    if (!m_layout || band < 0 || static_cast<std::size_t>(band) >= m_layout->bands.size())
        return {};
    const ActiveMemory::Band &b = m_layout->bands[static_cast<std::size_t>(band)];
    const TimeNs lo = std::max(b.begin, m_plot->timeOf(m_plot->xAxis->range().lower));
    const TimeNs hi = std::min(b.end, m_plot->timeOf(m_plot->xAxis->range().upper));
    const TimeNs t = lo + (hi - lo) / 2;
    return pixelOf(t, static_cast<double>(b.offsetAt(t)) + static_cast<double>(b.size) / 2);
}

QPoint ActiveMemoryView::pixelOf(TimeNs t, double bytes) const
{
    return QPoint(static_cast<int>(std::lround(m_plot->xAxis->coordToPixel(m_plot->keyOf(t)))),
                  static_cast<int>(std::lround(m_plot->yAxis->coordToPixel(bytes))));
}

QColor ActiveMemoryView::bandColor(int band) const
{
    return m_plot->bandColor(band);
}

TimeRange ActiveMemoryView::shownRange() const
{
    return {m_plot->timeOf(m_plot->xAxis->range().lower), m_plot->timeOf(m_plot->xAxis->range().upper)};
}

QString ActiveMemoryView::bandText(int band) const
{
    return m_plot->describe(band);
}

} // namespace rs
