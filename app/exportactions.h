#pragma once
// File ▸ Export: the current view as an image (PNG, SVG, PDF through the export dialog), the view
// image on the clipboard, the incident report (Markdown with its images beside it) and the merged
// aligned Chrome trace. Kept apart from MainWindow so the window stays wiring only; the slow
// writers (the report hashes every input, the merged trace streams every event) run on the thread
// pool and report back in the status bar.

#include "export/figureexporter.h"
#include "export/figureoptions.h"
#include "taskcontrol.h"

#include <functional>

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

public:
    /// The writers behind the dialogs, each a task of the window (TaskMonitor) with its progress
    /// and Cancel; a cancelled one leaves no file. Each ends with written().
    void writeFigure(const QString &path, FigureExporter::Format format, const FigureOptions &options);
    void writeReport(const QString &path);
    void writeTrace(const QString &path);

Q_SIGNALS:
    /// A writer finished: `ok`, or why not (a cancelled one says "cancelled").
    void written(const QString &path, bool ok, const QString &message);

private:
    struct Outcome;
    /// Runs `work` on the pool as a task labelled `label`, then reports its outcome.
    void runTask(const QString &label, const QString &path, std::function<Outcome(const TaskControl &)> work,
                 std::function<QString(const Outcome &)> success);
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
