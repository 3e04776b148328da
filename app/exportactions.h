#pragma once
// File ▸ Export: the current view as an image (PNG, SVG, PDF through the export dialog), the view
// image on the clipboard, the incident report (Markdown with its images beside it) and the merged
// aligned Chrome trace. Kept apart from MainWindow so the window stays wiring only; the slow
// writers (the report hashes every input, the merged trace streams every event) run on the thread
// pool and report back in the status bar.

#include "export/figureoptions.h"

#include <QObject>

class QAction;
class QMenu;

namespace rs {

class MainWindow;

class ExportActions : public QObject
{
    Q_OBJECT
public:
    explicit ExportActions(MainWindow *window);

    /// Appends the four actions to `menu`.
    void addTo(QMenu *menu) const;
    /// Enables the actions when a session is open.
    void setEnabled(bool enabled);

    /// What the window shows now as figure options: the view (the compare figure while the
    /// Compare Ranks tab is shown, else the timeline), the compare view's reference rank, the
    /// visible range, the shown ranks, offsets, the highlight, the visible annotations (finding
    /// ones unless hidden) and the time zone.
    FigureOptions currentView() const;

    QAction *exportViewAction() const { return m_exportView; }
    QAction *copyImageAction() const { return m_copyImage; }
    QAction *exportReportAction() const { return m_exportReport; }
    QAction *exportTraceAction() const { return m_exportTrace; }

public Q_SLOTS:
    void exportView();
    void copyImage();
    void exportReport();
    void exportTrace();

private:
    QString suggestedPath(const QString &fileName) const;
    void report(const QString &message, bool failed);

    MainWindow *m_window;
    QAction *m_exportView;
    QAction *m_copyImage;
    QAction *m_exportReport;
    QAction *m_exportTrace;
    int m_running = 0; // background writers in flight
};

} // namespace rs
