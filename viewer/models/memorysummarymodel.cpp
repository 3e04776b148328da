#include "memorysummarymodel.h"

#include "palette.h"

#include "placements.h"

#include "rankcolors.h"
#include "timeformat.h"

#include <QFileInfo>
#include <QFont>
#include <QIcon>
#include <QPixmap>
#include <QLocale>

#include <algorithm>
#include <cmath>
#include <map>

namespace rs {

namespace {

// Below these magnitudes a median says too little to divide by: a rank with 3 MiB in the small
// pool against a median of 0 is not "infinitely" off, one OOM against none is.
constexpr double kByteFloor = 16.0 * 1024 * 1024;
constexpr double kCountFloor = 1.0;

std::int64_t statOf(const MemorySummaryRow &r, MemorySummaryModel::Statistic s)
{
    switch (s) {
    case MemorySummaryModel::Statistic::Current: return r.current;
    case MemorySummaryModel::Statistic::Peak: return r.peak;
    case MemorySummaryModel::Statistic::TotalAllocated: return r.allocated;
    case MemorySummaryModel::Statistic::TotalFreed: return r.freed;
    }
    return -1;
}

} // namespace

MemorySummaryModel::MemorySummaryModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void MemorySummaryModel::setSession(SessionPtr session)
{
    beginResetModel();
    m_session = std::move(session);
    rebuild();
    endResetModel();
}

void MemorySummaryModel::setAnalysis(std::shared_ptr<const AnalysisResult> analysis)
{
    m_analysis = std::move(analysis);
    if (columnCount() > 0)
        Q_EMIT headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

void MemorySummaryModel::setStatistic(Statistic statistic)
{
    if (statistic == m_statistic)
        return;
    m_statistic = statistic;
    computeStats();
    if (rowCount() > 0 && columnCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void MemorySummaryModel::setSelectedRank(RankId rank)
{
    if (rank == m_selectedRank)
        return;
    const int before = columnOf(m_selectedRank);
    m_selectedRank = rank;
    for (int c : {before, columnOf(rank)})
        if (c >= 0)
            Q_EMIT headerDataChanged(Qt::Horizontal, c, c);
}

int MemorySummaryModel::columnOf(RankId rank) const
{
    for (std::size_t i = 0; i < m_columns.size(); ++i)
        if (m_columns[i].rank == rank)
            return static_cast<int>(i);
    return -1;
}

int MemorySummaryModel::rowOf(RowKind kind, const std::string &metric, const std::string &pool) const
{
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].kind == kind && (kind != RowKind::Metric || (m_rows[i].metric == metric && m_rows[i].pool == pool)))
            return static_cast<int>(i);
    return -1;
}

void MemorySummaryModel::rebuild()
{
    m_columns.clear();
    m_rows.clear();
    m_medians.clear();
    if (!m_session)
        return;
    const auto &summaries = m_session->memorySummaries();
    // The latest table of each rank: the last one with a time, else the last one printed.
    std::map<RankId, Column> byRank;
    for (std::uint32_t i = 0; i < summaries.size(); ++i) {
        const MemorySummary &m = summaries[i];
        if (m.rank < 0)
            continue;
        auto [it, fresh] = byRank.try_emplace(m.rank, Column{m.rank, i, 0});
        Column &c = it->second;
        ++c.count;
        const MemorySummary &best = summaries[c.summary];
        if (!fresh && (m.time != kNoTime ? (best.time == kNoTime || m.time >= best.time) : best.time == kNoTime))
            c.summary = i;
    }
    for (const auto &[rank, c] : byRank)
        m_columns.push_back(c);
    if (m_columns.empty())
        return;

    m_rows.push_back({RowKind::OomCount, {}, {}, false, tr("OOM count")});
    m_rows.push_back({RowKind::AllocRetries, {}, {}, false, tr("cudaMalloc retries")});
    m_rows.push_back({RowKind::OomRequested, {}, {}, true, tr("OOM: tried to allocate")});
    m_rows.push_back({RowKind::ReservedMinusAllocated, {}, {}, true, tr("Reserved − allocated")});
    // Metric rows in printed order, over every shown table (older layouts lack some rows). Count
    // rows keep only their total; the pools matter for bytes.
    for (const Column &c : m_columns) {
        for (const MemorySummaryRow &r : summaries[c.summary].rows) {
            if (r.pool != "all" && !r.isBytes)
                continue;
            if (rowOf(RowKind::Metric, r.metric, r.pool) >= 0)
                continue;
            Row row{RowKind::Metric, r.metric, r.pool, r.isBytes,
                    r.pool == "all" ? QString::fromStdString(r.metric) : tr("    from %1 pool").arg(QString::fromStdString(r.pool))};
            if (r.pool == "all") {
                m_rows.push_back(std::move(row));
                continue;
            }
            // After its parent and the parent's other sub-rows.
            auto at = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row &x) { return x.kind == RowKind::Metric && x.metric == r.metric; });
            while (at != m_rows.end() && at->kind == RowKind::Metric && at->metric == r.metric)
                ++at;
            m_rows.insert(at, std::move(row));
        }
    }
    computeStats();
}

std::optional<std::int64_t> MemorySummaryModel::value(int row, int column) const
{
    const Row &r = m_rows[static_cast<std::size_t>(row)];
    const MemorySummary &m = m_session->memorySummaries()[m_columns[static_cast<std::size_t>(column)].summary];
    auto nonNegative = [](std::int64_t v) { return v >= 0 ? std::optional<std::int64_t>(v) : std::nullopt; };
    switch (r.kind) {
    case RowKind::OomCount: return nonNegative(m.ooms);
    case RowKind::AllocRetries: return nonNegative(m.allocRetries);
    case RowKind::OomRequested:
        if (m.oom >= 0 && static_cast<std::size_t>(m.oom) < m_session->ooms().size())
            return nonNegative(m_session->ooms()[static_cast<std::size_t>(m.oom)].requested);
        return std::nullopt;
    case RowKind::ReservedMinusAllocated: {
        const MemorySummaryRow *reserved = m.row("GPU reserved memory");
        const MemorySummaryRow *allocated = m.row("Allocated memory");
        if (!reserved || !allocated || reserved->current < 0 || allocated->current < 0)
            return std::nullopt;
        return reserved->current - allocated->current;
    }
    case RowKind::Metric:
        if (const MemorySummaryRow *x = m.row(r.metric, r.pool))
            return nonNegative(statOf(*x, m_statistic));
        return std::nullopt;
    }
    return std::nullopt;
}

void MemorySummaryModel::computeStats()
{
    m_medians.assign(m_rows.size(), std::nullopt);
    for (std::size_t r = 0; r < m_rows.size(); ++r) {
        std::vector<double> values;
        for (std::size_t c = 0; c < m_columns.size(); ++c)
            if (const auto v = value(static_cast<int>(r), static_cast<int>(c)))
                values.push_back(static_cast<double>(*v));
        if (values.empty())
            continue;
        std::sort(values.begin(), values.end());
        const std::size_t n = values.size();
        m_medians[r] = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
}

QColor MemorySummaryModel::deviationColor(double deviation)
{
    const double a = std::abs(deviation);
    if (!(a > kNeutralBand))
        return Qt::white;
    const double t = std::clamp((a - kNeutralBand) / (kFullColour - kNeutralBand), 0.0, 1.0);
    // From a pale tint to a clear colour; text stays dark on both ends.
    const QColor full = deviation > 0 ? QColor(0xf0, 0x8a, 0x5d) : QColor(0x6f, 0xa8, 0xdc);
    const QColor pale = deviation > 0 ? QColor(0xfd, 0xec, 0xe2) : QColor(0xe6, 0xf0, 0xfa);
    auto mix = [t](int p, int f) { return static_cast<int>(std::lround(p + (f - p) * t)); };
    return QColor(mix(pale.red(), full.red()), mix(pale.green(), full.green()), mix(pale.blue(), full.blue()));
}

int MemorySummaryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int MemorySummaryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_columns.size());
}

QVariant MemorySummaryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_session)
        return {};
    const Row &row = m_rows[static_cast<std::size_t>(index.row())];
    const Column &col = m_columns[static_cast<std::size_t>(index.column())];
    const std::optional<std::int64_t> v = value(index.row(), index.column());
    const std::optional<double> median = m_medians[static_cast<std::size_t>(index.row())];
    std::optional<double> deviation;
    int valued = 0;
    for (std::size_t c = 0; c < m_columns.size(); ++c)
        valued += value(index.row(), static_cast<int>(c)) ? 1 : 0;
    if (v && median && valued >= 2)
        deviation = (static_cast<double>(*v) - *median) / std::max(std::abs(*median), row.isBytes ? kByteFloor : kCountFloor);

    switch (role) {
    case ValueRole: return v ? QVariant(static_cast<qlonglong>(*v)) : QVariant();
    case DeviationRole: return deviation ? QVariant(*deviation) : QVariant();
    case MedianRole: return median ? QVariant(static_cast<qlonglong>(std::llround(*median))) : QVariant();
    case RankRole: return col.rank;
    case IsBytesRole: return row.isBytes;
    case RowKindRole: return static_cast<int>(row.kind);
    case SummaryIndexRole: return static_cast<int>(col.summary);
    case Qt::DisplayRole:
        if (!v)
            return QStringLiteral("—");
        return row.isBytes ? TimeFormat::bytes(static_cast<double>(*v)) : QLocale().toString(static_cast<qlonglong>(*v));
    case Qt::ToolTipRole: {
        if (!v)
            return tr("Not in this rank's table");
        QString text = row.isBytes ? tr("%L1 bytes").arg(static_cast<qlonglong>(*v)) : QLocale().toString(static_cast<qlonglong>(*v));
        if (median && valued >= 2) {
            const QString m = row.isBytes ? TimeFormat::bytes(*median) : QLocale().toString(*median, 'g', 6);
            text += deviation && std::abs(*deviation) > kNeutralBand
                ? tr("\n%1 the median of the ranks (%2)").arg(*deviation > 0 ? tr("above") : tr("below"), m)
                : tr("\nnear the median of the ranks (%1)").arg(m);
        }
        return text;
    }
    case Qt::BackgroundRole:
        return deviation ? QVariant(deviationColor(*deviation)) : QVariant();
    case Qt::TextAlignmentRole:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (!v)
            return QVariant(QColor(0x9a, 0xa1, 0xad));
        // The deviation tints are pale on any theme: dark text on them stays readable.
        return deviation && Palette::screen().isDark() ? QVariant(Palette::paper().color(Palette::Role::Title)) : QVariant();
    default: break;
    }
    return {};
}

QVariant MemorySummaryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical) {
        if (section < 0 || section >= rowCount())
            return {};
        const Row &row = m_rows[static_cast<std::size_t>(section)];
        switch (role) {
        case Qt::DisplayRole: return row.label;
        case Qt::ToolTipRole:
            switch (row.kind) {
            case RowKind::OomCount: return tr("\"CUDA OOMs\" of the table's header: out-of-memory errors since the process started");
            case RowKind::AllocRetries: return tr("\"cudaMalloc retries\": times the allocator freed its cache and retried; "
                                                  "a growing count means it is running out of room");
            case RowKind::OomRequested: return tr("What the out-of-memory error printed before this table tried to allocate");
            case RowKind::ReservedMinusAllocated: return tr("GPU reserved memory − Allocated memory (current): cached but unused, "
                                                            "a sign of fragmentation when large");
            case RowKind::Metric: break;
            }
            return {};
        case Qt::TextAlignmentRole: return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        case Qt::FontRole: {
            // The rows people compute by hand lead the table; their names say so.
            QFont f;
            f.setBold(row.kind != RowKind::Metric);
            return f;
        }
        case Qt::ForegroundRole: return row.pool == "all" || row.kind != RowKind::Metric ? QVariant() : QVariant(QColor(0x6b, 0x72, 0x80));
        default: return {};
        }
    }
    if (section < 0 || section >= columnCount())
        return {};
    const Column &col = m_columns[static_cast<std::size_t>(section)];
    switch (role) {
    case Qt::DisplayRole:
        // A table cut off in the middle keeps the rows read before the cut; the header says so.
        return m_session->memorySummaries()[col.summary].partial ? tr("Rank %1 (cut off)").arg(col.rank) : tr("Rank %1").arg(col.rank);
    case RankRole: return col.rank;
    case Qt::DecorationRole: {
        QPixmap swatch(10, 10);
        swatch.fill(RankColors::color(col.rank));
        return QIcon(swatch);
    }
    case Qt::FontRole: {
        QFont f;
        f.setBold(col.rank == m_selectedRank);
        return f;
    }
    case Qt::ToolTipRole: {
        const MemorySummary &m = m_session->memorySummaries()[col.summary];
        QStringList lines;
        lines << tr("Rank %1 · GPU %2").arg(col.rank).arg(m.device);
        if (m.source < m_session->sources().size())
            lines << QStringLiteral("%1:%2").arg(QFileInfo(QString::fromStdString(m_session->sources()[m.source].path)).fileName()).arg(m.line);
        else
            lines << tr("table at line %1").arg(m.line);
        if (m.time != kNoTime)
            lines << TimeFormat::wallClock(m.time);
        else if (const Placement *p = findPlacement(m_analysis.get(), Placement::Kind::MemorySummary, col.summary))
            lines << QStringLiteral("≈ %1 (%2)").arg(TimeFormat::wallClock(placedDataTime(*m_analysis, *p)), placedByText(*p));
        if (m.partial)
            lines << (m.rows.size() == 1 ? tr("the table was cut off: only its 1 complete row before the cut was read")
                                         : tr("the table was cut off: only its %1 complete rows before the cut were read").arg(m.rows.size()));
        if (col.count > 1)
            lines << tr("latest of %1 tables of this rank").arg(col.count);
        lines << tr("Click to select this rank everywhere");
        return lines.join(QLatin1Char('\n'));
    }
    default: return {};
    }
}

} // namespace rs
