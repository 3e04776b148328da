#pragma once
// Every diagnostic of every source (or of one source), one row each: severity, file, line or byte
// offset, and the importer's message.

#include "session.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace rs {

class DiagnosticsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, FileColumn, LineColumn, OffsetColumn, CodeColumn, CountColumn, MessageColumn, ColumnCount };

    enum Role {
        SourceIdRole = Qt::UserRole + 1, ///< SourceId (uint) the diagnostic belongs to
        SeverityRole,                    ///< Diagnostic::Severity as int
        LineRole,                        ///< 1-based line (qlonglong), -1 when unknown
        OffsetRole,                      ///< 0-based byte offset (qlonglong), -1 when unknown
        SortRole,                        ///< per column: a value that sorts naturally
    };

    explicit DiagnosticsModel(QObject *parent = nullptr);

    void setSession(SessionPtr session);
    /// Diagnostics found after the import (the analysis' view extent leaving a source out), listed
    /// after each source's own; cleared by setSession.
    void setLaterDiagnostics(std::vector<std::pair<SourceId, Diagnostic>> later);
    /// Shows only the diagnostics of `source`; nullopt shows all.
    void setSourceFilter(std::optional<SourceId> source);
    std::optional<SourceId> sourceFilter() const { return m_filter; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();

    SessionPtr m_session;
    std::optional<SourceId> m_filter;
    struct Row {
        SourceId source = 0;
        std::uint32_t index = 0; // in the source's diagnostics, or in m_later
        bool later = false;
    };
    const Diagnostic &diagnostic(const Row &row) const;

    std::vector<std::pair<SourceId, Diagnostic>> m_later;
    std::vector<Row> m_rows;
};

} // namespace rs
