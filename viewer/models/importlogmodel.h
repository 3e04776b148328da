#pragma once
// One row per input source of the session: what the file was recognised as, how it was packed,
// which ranks it feeds and why, what was read from it and whether anything went wrong.

#include "session.h"

#include <QAbstractTableModel>

namespace rs {

class ImportLogModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { FileColumn, FormatColumn, CompressionColumn, RanksColumn, CountsColumn, StatusColumn, ColumnCount };

    /// Typed roles; each returns the same value for every column of a row unless noted.
    enum Role {
        SourceIdRole = Qt::UserRole + 1, ///< SourceId (uint) of the row
        PathRole,                        ///< full path as given (QString)
        StatusRole,                      ///< Status (int): Ok, Warnings, Errors, Unrecognised
        ErrorCountRole,                  ///< number of error diagnostics (int)
        WarningCountRole,                ///< number of warning diagnostics (int)
        SortRole,                        ///< per column: a value that sorts naturally (numbers for counts)
    };

    enum Status { Ok, Warnings, Errors, Unrecognised };

    explicit ImportLogModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    SessionPtr session() const { return m_session; }

    /// "0–3, 5 (file name)": ranks with consecutive runs folded, and where they came from.
    static QString ranksText(const Source &source);
    /// Non-zero counts in DESIGN.md §3 order ("1,234 spans · 12 steps"); at most `limit` items
    /// (0: all).
    static QString countsText(const SourceCounts &counts, int limit = 0);
    static Status status(const Source &source);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SessionPtr m_session;
};

} // namespace rs
