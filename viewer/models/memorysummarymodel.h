#pragma once
// The latest torch.cuda.memory_summary() of every rank, side by side: one column per rank, one row
// per metric of the table (with the large/small pool sub-rows of the byte metrics), plus the rows
// people compute by hand when they read these tables — reserved minus allocated, the OOM and
// cudaMalloc retry counts of the header, and what the OOM the table follows tried to allocate.
// Each cell knows how far it is from the median of the ranks, so the rank that diverged stands out.

#include "analysisresult.h"
#include "session.h"

#include <QAbstractTableModel>
#include <QColor>

#include <optional>
#include <string>
#include <vector>

namespace rs {

class MemorySummaryModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    /// What a row shows.
    enum class RowKind {
        OomCount,             ///< "CUDA OOMs" of the table's header
        AllocRetries,         ///< "cudaMalloc retries" of the table's header
        OomRequested,         ///< bytes the OOM that the table follows tried to allocate
        ReservedMinusAllocated, ///< GPU reserved memory (current) − Allocated memory (current)
        Metric,               ///< a row of the table itself (metric, pool)
    };

    /// Which column of the printed table metric rows show.
    enum class Statistic { Current, Peak, TotalAllocated, TotalFreed };

    enum Role {
        ValueRole = Qt::UserRole + 1, ///< the cell's number (qlonglong): bytes or a count; invalid when absent
        DeviationRole,  ///< (value − median) / max(|median|, floor) over the ranks (double); invalid when < 2 ranks have a value
        MedianRole,     ///< median of the row over the ranks with a value (qlonglong); invalid when none
        RankRole,       ///< the column's rank (int); also on the horizontal header
        IsBytesRole,    ///< true for byte rows (bool)
        RowKindRole,    ///< RowKind (int)
        SummaryIndexRole, ///< index into Session::memorySummaries() of the column's table (int)
    };

    /// Deviations within ±kNeutralBand are drawn neutral; full colour from ±kFullColour on.
    static constexpr double kNeutralBand = 0.05;
    static constexpr double kFullColour = 0.5;

    explicit MemorySummaryModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    SessionPtr session() const { return m_session; }
    /// Untimed tables the analysis placed by an anchor name the placed time and the anchor in
    /// their column header's tooltip. Null: none.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    void setStatistic(Statistic statistic);
    Statistic statistic() const { return m_statistic; }
    /// The rank whose header is drawn highlighted (kNoRank: none).
    void setSelectedRank(RankId rank);

    /// Column of `rank`, or -1 when it has no summary.
    int columnOf(RankId rank) const;
    /// Row of (kind, metric, pool), or -1. `metric` and `pool` only matter for RowKind::Metric.
    int rowOf(RowKind kind, const std::string &metric = {}, const std::string &pool = "all") const;
    /// Background for a deviation: white within the neutral band, warm above, cool below.
    static QColor deviationColor(double deviation);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Column {
        RankId rank = kNoRank;
        std::uint32_t summary = 0; // index into Session::memorySummaries()
        int count = 0;             // summaries the rank has
    };
    struct Row {
        RowKind kind = RowKind::Metric;
        std::string metric;
        std::string pool;
        bool isBytes = true;
        QString label;
    };
    void rebuild();
    void computeStats();
    std::optional<std::int64_t> value(int row, int column) const;

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    Statistic m_statistic = Statistic::Current;
    RankId m_selectedRank = kNoRank;
    std::vector<Column> m_columns;
    std::vector<Row> m_rows;
    std::vector<std::optional<double>> m_medians; // per row
};

} // namespace rs
