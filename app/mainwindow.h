#pragma once
// The main window: wiring only. It lays out the timeline and the panels, owns the menus, recent
// files, drag-and-drop and the import progress display. It never reads files: it asks for them
// with openRequested() and is handed a frozen session through setSession(). Likewise it never owns
// the loader's options: it is told them (setLoaderOptions) and, when the user changes a source's
// settings, hands the new ones back with optionsChanged() for the owner to reload with.

#include "analysiscontroller.h"
#include "session.h"
#include "sessiondocument.h"
#include "sessionloader.h"

#include <QMainWindow>

#include <functional>
#include <QStringList>

#include <map>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTabWidget;

namespace rs {

class ClockOffsetsPanel;
class DetailsPanel;
class FindingsPanel;
class ImportLogPanel;
class LogPanel;
class SearchPanel;
class MemorySummaryPanel;
class AllocatorPanel;
class AnnotationsPanel;
class AnnotationStore;
class CompareView;
class ExportActions;
class SessionFileActions;
class SessionContext;
class TaskMonitor;
class TimelineView;
class RanksOverview;
class WelcomePage;
class ViewState;
struct InputChoices;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    SessionPtr session() const { return m_session; }
    ViewState *viewState() const { return m_state; }
    TimelineView *timeline() const { return m_timeline; }
    DetailsPanel *detailsPanel() const { return m_details; }
    ImportLogPanel *importLogPanel() const { return m_importLog; }
    LogPanel *logPanel() const { return m_logs; }
    MemorySummaryPanel *memorySummaryPanel() const { return m_summaries; }
    AllocatorPanel *allocatorPanel() const { return m_allocator; }
    FindingsPanel *findingsPanel() const { return m_findings; }
    ClockOffsetsPanel *clockOffsetsPanel() const { return m_offsets; }
    AnnotationStore *annotationStore() const { return m_annotations; }
    AnnotationsPanel *annotationsPanel() const { return m_annotationsPanel; }
    CompareView *compareView() const { return m_compare; }
    /// The long tasks under way (import, analysis, compare totals, exports): the status bar shows
    /// the newest with its progress and Cancel.
    TaskMonitor *tasks() const { return m_tasks; }
    /// The status bar's Cancel button (it cancels TaskMonitor::current()).
    QPushButton *cancelButton() const { return m_cancel; }
    /// True while the Compare Ranks tab is the one shown (File ▸ Export then exports its figure).
    bool compareShown() const;
    /// The `.rankscope` file the session was opened from or last saved to ("" when none).
    QString documentPath() const;
    /// Everything a session file keeps besides the sources: annotations, clock-offset overrides,
    /// the view (visible range, hidden/collapsed/selected ranks, compare reference).
    SessionDocument documentState() const;
    /// The user's clock-offset overrides (rank → ns) that the analysis must honour.
    std::map<RankId, TimeNs> clockOffsetOverrides() const;
    /// The analysis shown (null before the first result of the session).
    AnalysisPtr analysis() const { return m_analysis; }
    /// The session and analysis as the views receive them.
    SessionContext *sessionContext() const { return m_context; }
    /// The loader options the current session was read with (as last told by setLoaderOptions).
    const SessionLoader::Options &loaderOptions() const { return m_options; }
    /// The rank and time-zone parts of loaderOptions(), as the Source Settings dialog takes them.
    InputChoices inputChoices() const;

public Q_SLOTS:
    /// Empties the import cache (after asking when `ask`); says in the status bar what it freed.
    bool clearImportCache(bool ask = true);
    /// Turns the import cache on or off for the next loads (kept in the settings).
    void setImportCacheEnabled(bool enabled);
    /// Sets the import cache's size limit (bytes, kept in the settings) and evicts down to it.
    void setImportCacheLimit(qint64 bytes);
    /// Shows `session` in every view (null: back to the welcome page).
    void setSession(rs::SessionPtr session);
    /// Shows the analysis of the current session: findings, clock offsets (applied to the view),
    /// spikes and divergence on the timeline. The first result of a session selects the top finding.
    void setAnalysis(rs::AnalysisPtr analysis);
    /// Import progress: bytes done of total (total <= 0: unknown) and what is being read.
    void setImportProgress(qint64 done, qint64 total, const QString &currentFile);
    /// An import began: shows the progress bar and the Cancel button.
    void importStarted();
    /// The import ended (finished, failed or cancelled): hides the progress display.
    void importFinished();
    /// View ▸ Reset Layout: the docks as first arranged, every rank shown and expanded, full lanes.
    void resetLayout();
    /// The running analysis was cancelled: says that no findings are shown and how to get them.
    void analysisCancelled();
    /// The next session comes from other inputs (opened by the owner, not through openPaths):
    /// annotations start empty and the docks are arranged for it.
    void beginNewIncident();
    /// When `rank` is shown from a summary (`rankscope summarize`) whose original file is on this
    /// machine, reads the session again with that file in its place (annotations stay) and says
    /// so in the status bar; called when the user selects a rank. False when there is nothing to open.
    bool openFullDetail(rs::RankId rank);
    /// Records `paths` as a recent entry and emits openRequested(paths).
    void openPaths(const QStringList &paths);
    /// Adds `paths` (files, folders or a session file opened together) to File ▸ Open Recent and
    /// the welcome page, for inputs the owner opens itself (the command line).
    void rememberRecent(const QStringList &paths);
    /// File ▸ Open Recent.
    QMenu *recentMenu() const { return m_recentMenu; }
    /// The options the loader uses now (rank overrides, rank maps, time zone); pre-fills the
    /// Source Settings dialog. Call it whenever the owner changes them.
    void setLoaderOptions(const rs::SessionLoader::Options &options);
    /// Opens the Source Settings dialog for `source`; on Apply emits optionsChanged().
    void editSourceSettings(rs::SourceId source);
    /// A session file names `paths` outside its folder: asks whether to open them (a session from
    /// someone else must not read arbitrary files), then calls `answer` with the choice.
    void askOutsideSources(const QString &session, const QStringList &paths, std::function<void(bool)> answer);
    /// A session file was read: its sources are being loaded now. When the session arrives
    /// (setSession), `document`'s annotations, offsets and view are applied; `problems` (moved,
    /// missing, changed sources) are shown now.
    void sessionFileOpened(const QString &path, const rs::SessionDocument &document,
                           const std::vector<rs::SessionDocument::Problem> &problems);
    /// The session was written to `path`: it becomes the document path and the edits are saved.
    void sessionFileSaved(const QString &path);
    /// Opening or saving a session file failed.
    void sessionFileFailed(const QString &message);
    /// Save Session: to documentPath(), or asks for a path when there is none.
    void saveSession();
    /// Save Session As: asks for a path, then saveSessionTo().
    void saveSessionAs();
    /// Saves the session to `path` (in the background: sessionFileSaved or sessionFileFailed follows).
    void saveSessionTo(const QString &path);

Q_SIGNALS:
    /// The user asked to open these files or folders.
    void openRequested(const QStringList &paths);
    /// The user pressed Cancel (or closed the session) while an import was running.
    void cancelRequested();
    /// The user changed how sources are read: the owner should store `options` and reload the
    /// same paths with them.
    void optionsChanged(const rs::SessionLoader::Options &options);
    /// The import cache was turned on or off, or its limit changed: the next load uses the new
    /// choice (nothing reloads).
    void importCacheChanged(bool enabled, qint64 maxBytes);
    /// The user edited clock offsets: the owner should re-analyse with these overrides.
    void clockOffsetsEdited(const std::map<rs::RankId, rs::TimeNs> &offsets);
    /// The user opened a `.rankscope` session file.
    void openSessionFileRequested(const QString &path);
    /// The user saves the session to `path`; `state` is documentState() (the owner adds the sources).
    void saveSessionRequested(const QString &path, const rs::SessionDocument &state);
    /// View ▸ Analyse Again: the owner should analyse the session once more (after a cancel).
    void analysisRequested();

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createDocks();
    void createStatusBar();
    void showTasks();
    /// A new incident's evidence docks: shown when the session has what they list, else hidden.
    void arrangeEvidenceDocks();
    void rebuildRanksMenu();
    void openFilesDialog();
    void openFolderDialog();
    void closeSession();
    void updateTitle();

    SessionPtr m_session;
    SessionContext *m_context = nullptr; // what the views subscribe to
    ViewState *m_state;
    QStackedWidget *m_stack;
    TimelineView *m_timeline;
    DetailsPanel *m_details;
    ImportLogPanel *m_importLog;
    LogPanel *m_logs;
    MemorySummaryPanel *m_summaries;
    AllocatorPanel *m_allocator;
    FindingsPanel *m_findings;
    ClockOffsetsPanel *m_offsets;
    AnnotationStore *m_annotations;
    AnnotationsPanel *m_annotationsPanel;
    CompareView *m_compare;
    WelcomePage *m_welcome;
    QTabWidget *m_views;
    ExportActions *m_export = nullptr;
    AnalysisPtr m_analysis;
    SessionFileActions *m_sessionFiles = nullptr; // Save Session, the .rankscope file of this session
    bool m_newIncident = true;                  // the next session is other inputs: annotations start empty
    bool m_selectTopFinding = false; // the next result is the session's first: land on the incident
    bool m_autoSelecting = false;    // the window, not the user, is selecting (no full detail opened)
    QString m_sessionStatus;         // the session summary, kept to follow the findings summary
    QDockWidget *m_findingsDock = nullptr;
    QDockWidget *m_offsetsDock = nullptr;
    SessionLoader::Options m_options;
    QDockWidget *m_detailsDock = nullptr;
    QDockWidget *m_importLogDock = nullptr;
    QDockWidget *m_logDock = nullptr;
    QDockWidget *m_summaryDock = nullptr;
    QDockWidget *m_allocatorDock = nullptr;
    QDockWidget *m_annotationsDock = nullptr;
    QDockWidget *m_searchDock = nullptr;
    SearchPanel *m_search = nullptr;

    QMenu *m_recentMenu = nullptr;
    QMenu *m_ranksMenu = nullptr;
    QAction *m_openFiles = nullptr;
    QAction *m_openFolder = nullptr;
    QAction *m_undo = nullptr;
    QAction *m_redo = nullptr;
    QAction *m_close = nullptr;
    QAction *m_quit = nullptr;
    QAction *m_zoomIn = nullptr;
    QAction *m_zoomOut = nullptr;
    QAction *m_zoomReset = nullptr;
    QAction *m_back = nullptr;
    QAction *m_forward = nullptr;
    QAction *m_focus = nullptr;
    QAction *m_expandAll = nullptr;
    QAction *m_collapseAll = nullptr;
    QAction *m_compactLanes = nullptr;
    RanksOverview *m_overview = nullptr;
    QDockWidget *m_overviewDock = nullptr;
    static constexpr std::size_t kOverviewRanks = 16; ///< jobs this large open with the Ranks Overview shown
    QAction *m_resetLayout = nullptr;
    QByteArray m_defaultDockState; // the docks as createDocks() arranged them, for View ▸ Reset Layout
    QAction *m_shortcuts = nullptr;
    QAction *m_about = nullptr;

    QLabel *m_statusText = nullptr;
    TaskMonitor *m_tasks = nullptr;
    QLabel *m_taskText = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    bool m_importing = false;
    quint64 m_importTask = 0;
};

} // namespace rs
