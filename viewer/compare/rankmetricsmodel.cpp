#include "rankmetricsmodel.h"

#include "palette.h"

#include "rankcolors.h"
#include "timeformat.h"

#include <QFont>
#include <QLocale>

#include <cmath>

namespace rs {

namespace {

// Colour stops of the deviation scale: |relative deviation| → background.
struct Stop {
    double at;
    QColor color;
};
const Stop kStops[] = {
    {0.02, QColor(0xff, 0xff, 0xff)},
    {0.05, QColor(0xfe, 0xf3, 0xc7)},
    {0.25, QColor(0xfd, 0xc0, 0x7a)},
    {1.00, QColor(0xf0, 0x6e, 0x5a)},
};

QColor mix(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QString percent(double relative)
{
    return QStringLiteral("%1%2 %").arg(relative >= 0 ? QStringLiteral("+") : QString()).arg(relative * 100, 0, 'f', std::abs(relative) < 0.1 ? 1 : 0);
}

} // namespace

RankMetricsModel::RankMetricsModel(QObject *parent) : QAbstractTableModel(parent) {}

void RankMetricsModel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis, TimeNs origin)
{
    beginResetModel();
    m_analysis = std::move(analysis);
    m_origin = origin;
    endResetModel();
}

void RankMetricsModel::setReferenceRank(RankId rank)
{
    if (rank == m_reference)
        return;
    m_reference = rank;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

int RankMetricsModel::rowOf(RankId rank) const
{
    if (!m_analysis)
        return -1;
    for (std::size_t i = 0; i < m_analysis->metrics.size(); ++i)
        if (m_analysis->metrics[i].rank == rank)
            return int(i);
    return -1;
}

const RankMetrics *RankMetricsModel::reference() const
{
    return m_analysis ? m_analysis->metricsOf(m_reference) : nullptr;
}

std::optional<double> RankMetricsModel::value(const RankMetrics &m, int column)
{
    const auto d = [](const auto &opt) { return opt ? std::optional<double>(double(*opt)) : std::nullopt; };
    switch (column) {
    case RankColumn: return double(m.rank);
    case PeakAllocatedColumn: return d(m.peakAllocatedBytes);
    case PeakReservedColumn: return d(m.peakReservedBytes);
    case PeakTimeColumn: return d(m.peakTimeNs);
    case GpuUsedColumn: return d(m.gpuUsedPeakBytes);
    case StepsColumn: return d(m.steps);
    case StepTimeColumn: return d(m.stepTimeMedianNs);
    case CollectivesColumn: return d(m.collectives);
    case LatenessColumn: return d(m.collectiveLatenessNs);
    case FragmentationColumn: return d(m.fragmentationBytes);
    case OomColumn: return double(m.oomCount);
    default: return std::nullopt;
    }
}

std::optional<double> RankMetricsModel::deviation(const RankMetrics &m, const RankMetrics &ref, int column)
{
    // A moment on the axis is no amount: a peak earlier or later than the reference's is not a
    // deviation (a crashed rank's peak comes early because it stopped), so it is never coloured.
    if (column == RankColumn || column == PeakTimeColumn)
        return std::nullopt;
    const auto v = value(m, column), r = value(ref, column);
    if (!v || !r)
        return std::nullopt;
    const double diff = *v - *r;
    const auto over = [&](double scale) { return scale > 0 ? std::optional<double>(diff / scale) : std::nullopt; };
    switch (column) {
    case LatenessColumn:
        // A delay is measured in the reference's steps.
        if (ref.stepTimeMedianNs && *ref.stepTimeMedianNs > 0)
            return over(double(*ref.stepTimeMedianNs));
        return over(std::max(std::abs(*r), 1e6));
    case FragmentationColumn:
        // Relative to the memory it fragments, not to the reference's (often tiny) slack.
        if (ref.peakReservedBytes && *ref.peakReservedBytes > 0)
            return over(double(*ref.peakReservedBytes));
        return std::nullopt;
    case OomColumn:
        return (*v > 0) == (*r > 0) ? 0.0 : (*v > 0 ? 1.0 : -1.0);
    default:
        if (*r == 0)
            return *v == 0 ? 0.0 : (*v > 0 ? 1.0 : -1.0);
        return diff / std::abs(*r);
    }
}

QColor RankMetricsModel::deviationColor(double relative)
{
    const double a = std::abs(relative);
    if (!(a > kStops[0].at))
        return kStops[0].color;
    for (std::size_t i = 1; i < std::size(kStops); ++i)
        if (a <= kStops[i].at)
            return mix(kStops[i - 1].color, kStops[i].color, (a - kStops[i - 1].at) / (kStops[i].at - kStops[i - 1].at));
    return kStops[std::size(kStops) - 1].color;
}

const std::vector<std::pair<double, QString>> &RankMetricsModel::legendStops()
{
    static const std::vector<std::pair<double, QString>> stops = {
        {0.0, tr("same")}, {0.05, tr("±5 %")}, {0.25, tr("±25 %")}, {1.0, tr("±100 % or more")}};
    return stops;
}

int RankMetricsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_analysis ? 0 : int(m_analysis->metrics.size());
}

int RankMetricsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString RankMetricsModel::cellText(const RankMetrics &m, int column, TimeNs origin)
{
    const auto v = value(m, column);
    if (!v)
        return QStringLiteral("\u2014");
    switch (column) {
    case RankColumn: return tr("rank %1").arg(m.rank);
    case PeakAllocatedColumn:
    case PeakReservedColumn:
    case GpuUsedColumn:
    case FragmentationColumn: return TimeFormat::bytes(*v);
    case PeakTimeColumn: return TimeFormat::precise(static_cast<TimeNs>(*v) - origin);
    case StepTimeColumn:
    case LatenessColumn: return TimeFormat::duration(static_cast<TimeNs>(*v));
    case OomColumn: return *v > 0 ? (*v > 1 ? tr("OOM \u00d7%1").arg(*v) : tr("OOM")) : tr("no");
    default: return QLocale().toString(static_cast<qint64>(*v));
    }
}

QVariant RankMetricsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !m_analysis || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const RankMetrics &m = m_analysis->metrics[std::size_t(index.row())];
    const int col = index.column();
    const RankMetrics *ref = reference();
    const bool isRef = m.rank == m_reference;
    switch (role) {
    case Qt::DisplayRole: return text(m, col);
    case SortRole: {
        const auto v = value(m, col);
        return v ? QVariant(*v) : QVariant();
    }
    case DeviationRole: {
        const auto d = ref ? deviation(m, *ref, col) : std::nullopt;
        return d ? QVariant(*d) : QVariant();
    }
    case RankRole: return m.rank;
    case IsReferenceRole: return isRef;
    case Qt::BackgroundRole: {
        const QColor c = cellBackground(m, ref, col);
        return c.isValid() ? QVariant(c) : QVariant();
    }
    case Qt::ForegroundRole:
        if (col == RankColumn)
            return RankColors::textColor(m.rank, Palette::screen());
        if (!value(m, col))
            return Palette::screen().color(Palette::Role::ChromeTick);
        // The deviation tints are pale on any theme: dark text on them stays readable.
        if (Palette::screen().isDark() && cellBackground(m, ref, col).isValid())
            return Palette::paper().color(Palette::Role::Title);
        return {};
    case Qt::FontRole:
        if (isRef) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::TextAlignmentRole:
        return col == RankColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter) : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole: {
        if (isRef)
            return tr("rank %1 \u2014 reference: the other ranks' colours say how far they are from it").arg(m.rank);
        if (col == RankColumn)
            return tr("rank %1").arg(m.rank);
        const auto d = ref ? deviation(m, *ref, col) : std::nullopt;
        if (col == PeakTimeColumn && value(m, col))
            return tr("rank %1: %2 (a moment, not an amount: not compared)").arg(m.rank).arg(text(m, col));
        if (!d)
            return value(m, col) ? tr("rank %1: %2 (the reference has no value)").arg(m.rank).arg(text(m, col))
                                 : tr("rank %1 has no value").arg(m.rank);
        const QString unit = col == LatenessColumn && ref->stepTimeMedianNs
                                 ? tr(" of a reference step")
                                 : col == FragmentationColumn ? tr(" of the reference's reserved peak") : QString();
        return tr("rank %1: %2, reference rank %3: %4 (%5%6)")
            .arg(m.rank)
            .arg(text(m, col))
            .arg(ref->rank)
            .arg(text(*ref, col), percent(*d), unit);
    }
    default: return {};
    }
}

QColor RankMetricsModel::cellBackground(const RankMetrics &m, const RankMetrics *ref, int column)
{
    const bool isRef = ref && ref->rank == m.rank;
    if (column == RankColumn)
        return RankColors::tint(m.rank, isRef ? 70 : 36);
    const auto d = ref && !isRef ? deviation(m, *ref, column) : std::nullopt;
    return d ? deviationColor(*d) : QColor();
}

QString RankMetricsModel::columnTitle(int column)
{
    static const char *const kNames[ColumnCount] = {
        QT_TR_NOOP("Rank"),          QT_TR_NOOP("Peak allocated"), QT_TR_NOOP("Peak reserved"),
        QT_TR_NOOP("Peak at"),       QT_TR_NOOP("GPU used peak"),  QT_TR_NOOP("Steps"),
        QT_TR_NOOP("Median step"),   QT_TR_NOOP("Collectives"),    QT_TR_NOOP("Coll. lateness"),
        QT_TR_NOOP("Fragmentation"), QT_TR_NOOP("OOM")};
    return column >= 0 && column < ColumnCount ? tr(kNames[column]) : QString();
}

QString RankMetricsModel::columnToolTip(int column)
{
    static const char *const kTips[ColumnCount] = {
        QT_TR_NOOP("The rank (bold: the reference)"),
        QT_TR_NOOP("Largest bytes allocated by PyTorch's caching allocator"),
        QT_TR_NOOP("Largest bytes reserved by the caching allocator"),
        QT_TR_NOOP("When allocated memory peaked, from the session start (aligned axis); a moment, never coloured as a deviation"),
        QT_TR_NOOP("Largest nvidia-smi memory.used of the rank's GPU"),
        QT_TR_NOOP("ProfilerStep count"),
        QT_TR_NOOP("Median ProfilerStep duration"),
        QT_TR_NOOP("Collective kernels (or NCCL COLL calls)"),
        QT_TR_NOOP("Median arrival delay at collectives behind the earliest rank; deviation in reference steps"),
        QT_TR_NOOP("Reserved minus allocated at the allocated peak; deviation relative to the reference's reserved peak"),
        QT_TR_NOOP("Out-of-memory errors reported for the rank")};
    return column >= 0 && column < ColumnCount ? tr(kTips[column]) : QString();
}

QVariant RankMetricsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    if (role == Qt::DisplayRole)
        return columnTitle(section);
    if (role == Qt::ToolTipRole)
        return columnToolTip(section);
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace rs
