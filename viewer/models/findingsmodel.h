#pragma once
// The analysis' findings as a tree: one row per finding (number, severity, title, ranks, time,
// catalog id), most severe first and, within a severity, earliest first (findingOrder()); under each, its evidence lines and the
// fix. Times are relative to the session start, like the ruler. The panel, the details text and the
// tests all read it through the typed roles, so none of them depend on column layout. It also holds
// the incident's story (IncidentSummary): a consequence's title reads "↳ …" and names its cause.

#include "analysisresult.h"

#include <QAbstractItemModel>
#include <QIcon>

#include <array>
#include <memory>
#include <vector>

namespace rs {

class FindingsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    /// NumberColumn: the finding's number (findingNumbers(): row + 1), the one its marker on the
    /// timeline and its badge in an exported figure carry. It is first, so child rows, which span
    /// every column, keep their text in column 0 whatever the layout.
    enum Column { NumberColumn, SeverityColumn, TitleColumn, RanksColumn, TimeColumn, IdColumn, ColumnCount };

    /// What a row stands for.
    enum class RowKind { Finding, Evidence, Fix };

    /// Typed roles; each returns the same value for every column of a row.
    enum Role {
        RowKindRole = Qt::UserRole + 1, ///< RowKind (int)
        FindingIndexRole,  ///< index into AnalysisResult::findings (int), also on child rows
        EvidenceIndexRole, ///< index into Finding::evidence (int); -1 on finding and fix rows
        SeverityRole,      ///< Severity (int) of the finding
        IdRole,            ///< catalog id (QString)
        RanksRole,         ///< ranks concerned (QList<int>); an evidence row: its own rank when it has one
        TimeRole,          ///< aligned ns (qlonglong): the finding's or the evidence's time; invalid when none
        EndRole,           ///< aligned ns (qlonglong) the finding's region ends; invalid when none
        PathRole,          ///< evidence source path (QString), empty when derived
        LineRole,          ///< evidence 1-based line (qlonglong), -1 when none
        TextRole,          ///< title, evidence text or fix (QString), in full
        NumberRole,        ///< the finding's number (int, from 1), also on child rows
        StoryRoleRole,     ///< StoryRole (int): the finding's part in the incident's story
        RelatedNumberRole, ///< number (int) of the finding a consequence followed from or a condition led to; 0 when none
    };

    explicit FindingsModel(QObject *parent = nullptr);

    /// Shows the findings of `result` (null: none).
    void setResult(std::shared_ptr<const AnalysisResult> result);
    std::shared_ptr<const AnalysisResult> result() const { return m_result; }
    /// The incident's story: the result's summary, or told from its findings when the result has
    /// none (one put together by hand). Empty without a result.
    const IncidentSummary &story() const { return m_story; }
    /// The number (row + 1) finding `findingIndex` carries; 0 when it is not shown.
    int numberOf(int findingIndex) const;
    /// t = 0 of the time column (the ruler's origin).
    void setOrigin(TimeNs origin);
    /// The finding at top-level `row` (rows are ordered, findings are not re-sorted in the result).
    const Finding *finding(int row) const;
    /// The top-level index of finding `findingIndex` of the result; invalid when not shown.
    QModelIndex indexOfFinding(int findingIndex, int column = 0) const;

    /// "r2", "r0,1,3", "job": the ranks column's compact text.
    static QString shortRanksText(const std::vector<RankId> &ranks);
    /// "+63.6 s" (relative to the session start); full precision is in tooltips.
    static QString shortTime(TimeNs relative);
    /// "rank 2", "ranks 0, 1, 3", "all 4 ranks" style text.
    static QString ranksText(const std::vector<RankId> &ranks);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant findingData(int row, int column, int role) const;
    QVariant childData(int parentRow, int row, int column, int role) const;
    QIcon severityIcon(Severity s) const;

    std::shared_ptr<const AnalysisResult> m_result;
    std::vector<int> m_order; // top-level row → index into m_result->findings
    IncidentSummary m_story;
    TimeNs m_origin = 0;
    mutable std::array<QIcon, 4> m_icons;
};

} // namespace rs
