#pragma once
// Every log record of the session, one row each, in source order: when (relative to the session
// start, "—" when the line had no usable time stamp), which rank (or the job's agent), how severe,
// who wrote it, which file and line, and the message. INFO rows are dimmed, warnings amber, errors
// red, so a scroll through thousands of NCCL INFO lines stops at the ones that matter.

#include "analysisresult.h"
#include "session.h"

#include <QAbstractTableModel>
#include <QIcon>
#include <QPointer>

#include <array>

namespace rs {

class ViewState;

class LogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { TimeColumn, RankColumn, LevelColumn, KindColumn, SourceColumn, MessageColumn, ColumnCount };

    /// Typed roles; each returns the same value for every column of a row unless noted.
    enum Role {
        RecordIndexRole = Qt::UserRole + 1, ///< index into Session::logs().records (uint)
        TimeRole,     ///< wall-clock ns (qlonglong); an invalid QVariant when the record is untimed
        RankRole,     ///< RankId (int): >= 0, kJobLevel for torchrun's agent, kNoRank when unknown
        LevelRole,    ///< LogLevel (int) as the writer stated it
        MarkRole,     ///< LogStyle::Mark (int): the level, raised to Oom for out-of-memory records
        KindRole,     ///< LogKind (int)
        FlagsRole,    ///< LogFlag bits (int)
        SourceRole,   ///< full path of the record's file (QString), empty when it cannot be told
        LineRole,     ///< 1-based line in its file (qlonglong)
        TextRole,     ///< the message (QString)
        SortRole,     ///< per column: a value that sorts naturally (untimed rows sort first by time)
    };

    explicit LogModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    SessionPtr session() const { return m_session; }
    /// Times are shown relative to `state`'s full range and shifted by its clock offsets, like
    /// the ruler; without a state they are relative to the first timed record. Not owned.
    void setViewState(const ViewState *state);
    /// Untimed OOM lines the analysis placed by an anchor show the placed time as "≈ …" (italic),
    /// the tooltip naming the anchor. Null: none.
    void setAnalysis(std::shared_ptr<const AnalysisResult> analysis);
    /// Re-reads origin and offsets (after the full range or clock offsets changed).
    void refreshTimes();
    /// The row of record `index` (rows are records in order, so this is the identity when valid).
    QModelIndex indexOfRecord(std::uint32_t index, int column = 0) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    TimeNs origin() const;
    TimeNs offset(RankId rank) const;

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    QPointer<const ViewState> m_state;
    TimeNs m_firstTime = 0;
    mutable std::array<QIcon, 4> m_icons; // level markers, built on first use
};

} // namespace rs
