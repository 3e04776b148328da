#pragma once
// One row per rank with the DESIGN.md §3 metrics (plus collective lateness and fragmentation),
// each cell coloured by how far it lies from the reference rank's value: white when they agree,
// warmer the further apart, so the odd rank and the odd metric stand out without reading numbers.
// Amounts only: "Peak at" is a time and stays uncoloured.

#include "comparesortfiltermodel.h"

#include "analysisresult.h"
#include "session.h"

#include <QAbstractTableModel>
#include <QColor>

#include <memory>
#include <optional>

namespace rs {

class RankMetricsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        RankColumn,           ///< "rank 2"
        PeakAllocatedColumn,  ///< peak of the allocator's allocated bytes
        PeakReservedColumn,   ///< peak of reserved bytes
        PeakTimeColumn,       ///< when allocated peaked (aligned axis, relative to the session start)
        GpuUsedColumn,        ///< nvidia-smi memory.used peak
        StepsColumn,          ///< ProfilerStep count
        StepTimeColumn,       ///< median step duration
        CollectivesColumn,    ///< collective kernels
        LatenessColumn,       ///< median arrival delay at collectives
        FragmentationColumn,  ///< reserved − allocated at the allocated peak
        OomColumn,            ///< out-of-memory count
        ColumnCount
    };
    enum Role {
        SortRole = CompareSortRole,       ///< raw number (double); invalid when the rank has no value
        DeviationRole = CompareFirstModelRole, ///< relative deviation from the reference (double); invalid when either is missing
        RankRole,                         ///< the row's RankId (int)
        IsReferenceRole,                  ///< true on the reference rank's row
    };

    explicit RankMetricsModel(QObject *parent = nullptr);

    /// Shows the metrics of `analysis`; `origin` is t = 0 for the peak time column (the session
    /// start on the aligned axis). Null clears the table.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis, TimeNs origin);
    /// The rank the deviations are measured against (kNoRank: none).
    void setReferenceRank(RankId rank);
    RankId referenceRank() const { return m_reference; }
    /// Row of `rank`, or -1.
    int rowOf(RankId rank) const;

    /// Raw value of `column` for `m` (bytes, ns, counts), or nullopt.
    static std::optional<double> value(const RankMetrics &m, int column);
    /// Relative deviation of `v` from the reference `ref`: (v − ref) / |ref|, or for collective
    /// lateness the distance in reference median steps; OOM counts differ by 1.0 when one rank ran
    /// out of memory and the other did not. nullopt when either is missing, and always for the peak
    /// time: a moment on the axis is not an amount, never coloured as a deviation.
    static std::optional<double> deviation(const RankMetrics &m, const RankMetrics &ref, int column);
    /// Background of a cell deviating by `relative` (sign ignored): white below 2 %, then pale
    /// yellow, orange, and red from 100 % on.
    static QColor deviationColor(double relative);
    /// The thresholds the legend shows, with their colours.
    static const std::vector<std::pair<double, QString>> &legendStops();
    /// The text of `column` for `m` as the table shows it ("—" when it has no value); `origin` is
    /// t = 0 of the peak time column. Shared with the exported compare figure.
    static QString cellText(const RankMetrics &m, int column, TimeNs origin);
    /// Background of `m`'s cell in `column` against the reference `ref` (may be null): the rank's
    /// tint in the rank column (stronger on the reference's row), the deviation colour elsewhere;
    /// invalid (no fill) on the reference's row, without a reference, or when a value is missing.
    static QColor cellBackground(const RankMetrics &m, const RankMetrics *ref, int column);
    /// Column title ("Peak allocated") and its tooltip.
    static QString columnTitle(int column);
    static QString columnToolTip(int column);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString text(const RankMetrics &m, int column) const { return cellText(m, column, m_origin); }
    const RankMetrics *reference() const;

    std::shared_ptr<const AnalysisResult> m_analysis;
    TimeNs m_origin = 0;
    RankId m_reference = kNoRank;
};

} // namespace rs
