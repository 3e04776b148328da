#pragma once
// The main window: wiring only. It lays out the timeline and the panels, owns the menus, recent
// files, drag-and-drop and the import progress display. It never reads files: it asks for them
// with openRequested() and is handed a frozen session through setSession(). Likewise it never owns
// the loader's options: it is told them (setLoaderOptions) and, when the user changes a source's
// settings, hands the new ones back with optionsChanged() for the owner to reload with.

#include "session.h"
#include "sessionloader.h"

#include <QMainWindow>
#include <QStringList>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QVBoxLayout;

namespace rs {

class DetailsPanel;
class ImportLogPanel;
class LogPanel;
class MemorySummaryPanel;
class TimelineView;
class ViewState;
struct SourceSettings;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    /// Entries kept in File ▸ Open Recent.
    static constexpr int kMaxRecent = 10;

    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    SessionPtr session() const { return m_session; }
    ViewState *viewState() const { return m_state; }
    TimelineView *timeline() const { return m_timeline; }
    DetailsPanel *detailsPanel() const { return m_details; }
    ImportLogPanel *importLogPanel() const { return m_importLog; }
    LogPanel *logPanel() const { return m_logs; }
    MemorySummaryPanel *memorySummaryPanel() const { return m_summaries; }
    /// The loader options the current session was read with (as last told by setLoaderOptions).
    const SessionLoader::Options &loaderOptions() const { return m_options; }
    /// What the Source Settings dialog shows for `source` of the current session under the
    /// current options (public so the translation can be checked without a dialog).
    SourceSettings sourceSettings(SourceId source) const;
    /// `options` with the dialog's answer for `settings.path` applied.
    static SessionLoader::Options applySourceSettings(SessionLoader::Options options, const SourceSettings &settings);
    /// Recent entries, newest first; each entry is the list of paths opened together.
    QList<QStringList> recentEntries() const;

public Q_SLOTS:
    /// Shows `session` in every view (null: back to the welcome page).
    void setSession(rs::SessionPtr session);
    /// Import progress: bytes done of total (total <= 0: unknown) and what is being read.
    void setImportProgress(qint64 done, qint64 total, const QString &currentFile);
    /// An import began: shows the progress bar and the Cancel button.
    void importStarted();
    /// The import ended (finished, failed or cancelled): hides the progress display.
    void importFinished();
    /// Records `paths` as a recent entry and emits openRequested(paths).
    void openPaths(const QStringList &paths);
    /// The options the loader uses now (rank overrides, rank maps, time zone); pre-fills the
    /// Source Settings dialog. Call it whenever the owner changes them.
    void setLoaderOptions(const rs::SessionLoader::Options &options);
    /// Opens the Source Settings dialog for `source`; on Apply emits optionsChanged().
    void editSourceSettings(rs::SourceId source);

Q_SIGNALS:
    /// The user asked to open these files or folders.
    void openRequested(const QStringList &paths);
    /// The user pressed Cancel (or closed the session) while an import was running.
    void cancelRequested();
    /// The user changed how sources are read: the owner should store `options` and reload the
    /// same paths with them.
    void optionsChanged(const rs::SessionLoader::Options &options);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createDocks();
    void createStatusBar();
    QWidget *createWelcomePage();
    void rebuildRecentMenu();
    void rebuildRanksMenu();
    void rebuildWelcomeRecent();
    void addRecent(const QStringList &paths);
    void setRecentEntries(const QList<QStringList> &entries);
    void openFilesDialog();
    void openFolderDialog();
    void closeSession();
    void updateTitle();
    static QString entryLabel(const QStringList &paths);

    SessionPtr m_session;
    ViewState *m_state;
    QStackedWidget *m_stack;
    TimelineView *m_timeline;
    DetailsPanel *m_details;
    ImportLogPanel *m_importLog;
    LogPanel *m_logs;
    MemorySummaryPanel *m_summaries;
    SessionLoader::Options m_options;
    QDockWidget *m_detailsDock = nullptr;
    QDockWidget *m_importLogDock = nullptr;
    QDockWidget *m_logDock = nullptr;
    QDockWidget *m_summaryDock = nullptr;

    QMenu *m_recentMenu = nullptr;
    QMenu *m_ranksMenu = nullptr;
    QVBoxLayout *m_welcomeRecent = nullptr;
    QAction *m_openFiles = nullptr;
    QAction *m_openFolder = nullptr;
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
    QAction *m_shortcuts = nullptr;
    QAction *m_about = nullptr;

    QLabel *m_statusText = nullptr;
    QProgressBar *m_progress = nullptr;
    QPushButton *m_cancel = nullptr;
    bool m_importing = false;
};

} // namespace rs
