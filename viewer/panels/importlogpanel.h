#pragma once
// What was imported and what went wrong: the sources table on top, their diagnostics below. Select
// a source to see only its diagnostics; type to filter both tables. "Source settings…" (button and
// context menu) asks for the selected source's rank, GPU → rank map and time zone.

#include "analysisresult.h"
#include "session.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace rs {

class DiagnosticsModel;
class ImportLogModel;

class ImportLogPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ImportLogPanel(QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// Lists what the analysis' view extent leaves out (a source decades away from the incident, a
    /// memory counter above its GPU's capacity) with the source's diagnostics.
    void setAnalysis(const std::shared_ptr<const AnalysisResult> &analysis);

    ImportLogModel *sourcesModel() const { return m_sources; }
    DiagnosticsModel *diagnosticsModel() const { return m_diagnostics; }
    QSortFilterProxyModel *sourcesProxy() const { return m_sourcesProxy; }
    QSortFilterProxyModel *diagnosticsProxy() const { return m_diagnosticsProxy; }
    QTableView *sourcesView() const { return m_sourcesView; }
    QTableView *diagnosticsView() const { return m_diagnosticsView; }
    /// Applies `text` (case-insensitive, any column) to both tables.
    void setFilterText(const QString &text);
    /// The source selected in the sources table, if any.
    std::optional<SourceId> selectedSource() const;
    QPushButton *sourceSettingsButton() const { return m_settings; }

Q_SIGNALS:
    /// The user asked to change how `source` is read (rank, rank map, time zone).
    void sourceSettingsRequested(rs::SourceId source);

private:
    void sourceSelectionChanged();
    void updateSummary();

    ImportLogModel *m_sources;
    DiagnosticsModel *m_diagnostics;
    QSortFilterProxyModel *m_sourcesProxy;
    QSortFilterProxyModel *m_diagnosticsProxy;
    QTableView *m_sourcesView;
    QTableView *m_diagnosticsView;
    QLineEdit *m_filter;
    QLabel *m_summary;
    QPushButton *m_settings;
};

} // namespace rs
