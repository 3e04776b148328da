#include "mainwindow.h"

#include "sessioncontext.h"

#include "annotations/annotationspanel.h"
#include "annotations/annotationstore.h"
#include "compare/compareview.h"
#include "dialogs/sourcesettingsdialog.h"
#include "exportactions.h"
#include "oomincidents.h"
#include "sessionfileactions.h"
#include "panels/clockoffsetspanel.h"
#include "panels/detailspanel.h"
#include "panels/findingspanel.h"
#include "panels/importlogpanel.h"
#include "panels/logpanel.h"
#include "panels/memorysummarypanel.h"
#include "panels/allocatorpanel.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "taskmonitor.h"
#include "timeline/annotationoverlay.h"
#include "timeline/ranksoverview.h"
#include "timeline/timelineview.h"
#include "viewstate.h"
#include "welcomepage.h"
#include "cache/sourcecache.h"
#include "fulldetail.h"
#include "panels/searchpanel.h"
#include "versioninfo.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QGuiApplication>
#include <QScreen>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QUndoStack>

#include <algorithm>
#include <array>

namespace rs {

namespace {

const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");

QStringList localPaths(const QMimeData *mime)
{
    QStringList paths;
    if (!mime || !mime->hasUrls())
        return paths;
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    return paths;
}

QIcon colorIcon(const QColor &c)
{
    QPixmap pm(12, 12);
    pm.fill(c);
    return QIcon(pm);
}

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_state(new ViewState(this))
    , m_tasks(new TaskMonitor(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_timeline = new TimelineView(m_state);
    m_details = new DetailsPanel(m_state);
    connect(m_details, &DetailsPanel::revealRequested, m_timeline, &TimelineView::ensureEventVisible);
    // What to click next while an arrow is placed, in the status bar too (the pointer's label can be off screen).
    connect(m_timeline->annotationOverlay(), &AnnotationOverlay::placementHintChanged, this, [this](const QString &hint) {
        if (hint.isEmpty())
            statusBar()->clearMessage();
        else
            statusBar()->showMessage(hint);
    });
    m_importLog = new ImportLogPanel;
    m_logs = new LogPanel(m_state);
    m_search = new SearchPanel(m_state);
    connect(m_search, &SearchPanel::revealRequested, this, [this](const EventRef &event) {
        m_views->setCurrentWidget(m_timeline);
        m_timeline->ensureEventVisible(event);
    });
    m_summaries = new MemorySummaryPanel(m_state);
    m_allocator = new AllocatorPanel(m_state);
    connect(m_logs, &LogPanel::revealRequested, m_timeline, &TimelineView::ensureEventVisible);
    connect(m_importLog, &ImportLogPanel::sourceSettingsRequested, this, &MainWindow::editSourceSettings);
    m_findings = new FindingsPanel(m_state);
    m_offsets = new ClockOffsetsPanel;
    connect(m_findings, &FindingsPanel::logRecordRequested, this, [this](std::uint32_t index) {
        m_logDock->show();
        m_logDock->raise();
        m_logs->jumpToRecord(index);
    });
    connect(m_offsets, &ClockOffsetsPanel::clockOffsetsEdited, this, [this](const std::map<RankId, TimeNs> &offsets) {
        // The timeline moves now; the findings follow when the re-analysis returns.
        m_state->setClockOffsets(m_offsets->effectiveOffsets());
        Q_EMIT clockOffsetsEdited(offsets);
    });

    m_annotations = new AnnotationStore(this);
    m_timeline->setAnnotationStore(m_annotations);
    m_annotationsPanel = new AnnotationsPanel(m_annotations, m_state);
    m_annotationsPanel->setTimelineView(m_timeline);
    // Unsaved annotation edits mark the window modified; saving the session marks it clean.
    connect(m_annotations->undoStack(), &QUndoStack::cleanChanged, this, [this](bool clean) { setWindowModified(!clean); });
    m_compare = new CompareView(m_state);
    m_compare->setTaskMonitor(m_tasks);
    m_compare->setTimeline(m_timeline); // its overview rows paint from the timeline, like the dock

    // The views subscribe to the incident: a new session reaches them in this order, then its
    // analysis (first none, then the result) in the second order. The clock offsets come first so
    // the timeline draws the analysis' alignment at once.
    m_context = new SessionContext(this);
    m_context->subscribeSession(m_timeline);
    m_context->subscribeSession(m_details);
    m_context->subscribeSession(m_importLog);
    m_context->subscribeSession(m_logs);
    m_context->subscribeSession(m_search);
    m_context->subscribeSession(m_summaries);
    m_context->subscribeSession(m_allocator);
    m_context->subscribeSession(m_findings);
    connect(m_context, &SessionContext::sessionChanged, m_offsets, &ClockOffsetsPanel::clear);
    m_context->subscribeSession(m_compare);
    connect(m_context, &SessionContext::analysisChanged, this, [this](const AnalysisPtr &analysis) {
        if (!analysis)
            return; // a new session: its offsets were cleared with it
        m_offsets->setResult(analysis);
        m_state->setClockOffsets(m_offsets->effectiveOffsets());
    });
    m_context->subscribeAnalysis(m_timeline);
    m_context->subscribeAnalysis(m_importLog);
    m_context->subscribeAnalysis(m_details);
    m_context->subscribeAnalysis(m_logs);
    m_context->subscribeAnalysis(m_summaries);
    connect(m_context, &SessionContext::analysisChanged, m_findings, &FindingsPanel::setResult);
    m_context->subscribeAnalysis(m_compare);

    m_welcome = new WelcomePage;
    connect(m_welcome, &WelcomePage::openRequested, this, &MainWindow::openPaths);
    connect(m_welcome, &WelcomePage::openFilesRequested, this, &MainWindow::openFilesDialog);
    connect(m_welcome, &WelcomePage::openFolderRequested, this, &MainWindow::openFolderDialog);
    // The timeline and the rank comparison are two ways of looking at the same view state.
    m_views = new QTabWidget;
    m_views->setObjectName(QStringLiteral("views"));
    m_views->setDocumentMode(true);
    m_views->addTab(m_timeline, tr("Timeline"));
    m_views->addTab(m_compare, tr("Compare Ranks"));
    m_stack = new QStackedWidget;
    m_stack->addWidget(m_welcome);
    m_stack->addWidget(m_views);
    setCentralWidget(m_stack);

    m_export = new ExportActions(this);
    m_sessionFiles = new SessionFileActions(this);
    connect(m_sessionFiles, &SessionFileActions::saveRequested, this, &MainWindow::saveSessionRequested);
    connect(m_sessionFiles, &SessionFileActions::documentPathChanged, this, &MainWindow::updateTitle);
    createActions();
    createMenus();
    createDocks();
    createStatusBar();

    m_defaultDockState = saveState();
    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray())) {
        // 1600 × 1000 where it fits, else most of the screen: a laptop's 1366 × 768 included.
        QSize size(1600, 1000);
        if (const QScreen *screen = QGuiApplication::primaryScreen())
            size = size.boundedTo(screen->availableGeometry().size() * 0.92);
        resize(size);
    }
    restoreState(settings.value(kStateKey).toByteArray());
    m_welcome->attachMenu(m_recentMenu);
    setSession(nullptr);
}

MainWindow::~MainWindow() = default;

bool MainWindow::compareShown() const
{
    return m_views->currentWidget() == m_compare;
}

void MainWindow::createActions()
{
    m_openFiles = new QAction(tr("&Open Files…"), this);
    m_openFiles->setShortcut(QKeySequence::Open);
    connect(m_openFiles, &QAction::triggered, this, &MainWindow::openFilesDialog);

    m_openFolder = new QAction(tr("Open &Folder…"), this);
    m_openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(m_openFolder, &QAction::triggered, this, &MainWindow::openFolderDialog);

    m_undo = m_annotations->undoStack()->createUndoAction(this, tr("&Undo"));
    m_undo->setShortcut(QKeySequence::Undo);
    m_redo = m_annotations->undoStack()->createRedoAction(this, tr("&Redo"));
    m_redo->setShortcut(QKeySequence::Redo);

    m_close = new QAction(tr("&Close"), this);
    m_close->setShortcut(QKeySequence::Close);
    connect(m_close, &QAction::triggered, this, &MainWindow::closeSession);

    m_quit = new QAction(tr("&Quit"), this);
    m_quit->setShortcut(QKeySequence::Quit);
    m_quit->setMenuRole(QAction::QuitRole);
    connect(m_quit, &QAction::triggered, this, &QWidget::close);

    m_zoomIn = new QAction(tr("Zoom &In"), this);
    m_zoomIn->setShortcuts({QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)});
    connect(m_zoomIn, &QAction::triggered, m_timeline, &TimelineView::zoomIn);

    m_zoomOut = new QAction(tr("Zoom &Out"), this);
    m_zoomOut->setShortcut(QKeySequence::ZoomOut);
    connect(m_zoomOut, &QAction::triggered, m_timeline, &TimelineView::zoomOut);

    m_zoomReset = new QAction(tr("Show &Whole Session"), this);
    m_zoomReset->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    connect(m_zoomReset, &QAction::triggered, m_timeline, &TimelineView::resetZoom);

    m_back = new QAction(tr("&Back"), this);
    m_back->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Left));
    connect(m_back, &QAction::triggered, m_timeline, &TimelineView::goBack);

    m_forward = new QAction(tr("&Forward"), this);
    m_forward->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Right));
    connect(m_forward, &QAction::triggered, m_timeline, &TimelineView::goForward);
    connect(m_state, &ViewState::historyChanged, this, [this](bool back, bool forward) {
        m_back->setEnabled(back);
        m_forward->setEnabled(forward);
    });
    m_back->setEnabled(false);
    m_forward->setEnabled(false);

    // F, W/A/S/D and the rest act on the timeline's key focus; the menu shows them for discovery.
    m_focus = new QAction(tr("&Focus Selection") + QStringLiteral("\tF"), this);
    connect(m_focus, &QAction::triggered, m_timeline, &TimelineView::focusSelection);

    m_expandAll = new QAction(tr("&Expand All Ranks"), this);
    connect(m_expandAll, &QAction::triggered, m_timeline, &TimelineView::expandAll);
    m_collapseAll = new QAction(tr("&Collapse All Ranks"), this);
    connect(m_collapseAll, &QAction::triggered, m_timeline, &TimelineView::collapseAll);
    // The screen's compact detail is the figure's: the lane kinds decide what stays.
    m_compactLanes = new QAction(tr("Co&mpact Lanes"), this);
    m_compactLanes->setCheckable(true);
    m_compactLanes->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    connect(m_compactLanes, &QAction::toggled, m_state, &ViewState::setCompactLanes);
    // A rank the user picks that is only a summary is read again from its trace, when reachable.
    connect(m_state, &ViewState::selectedRankChanged, this, [this](RankId rank) { openFullDetail(rank); });
    connect(m_state, &ViewState::compactLanesChanged, m_compactLanes, &QAction::setChecked);
    m_resetLayout = new QAction(tr("Reset &Layout"), this);
    connect(m_resetLayout, &QAction::triggered, this, &MainWindow::resetLayout);

    m_shortcuts = new QAction(tr("&Keyboard Shortcuts"), this);
    m_shortcuts->setShortcut(QKeySequence(Qt::Key_Question));
    connect(m_shortcuts, &QAction::triggered, m_timeline, &TimelineView::showShortcutSheet);

    m_about = new QAction(tr("&About RankScope"), this);
    m_about->setMenuRole(QAction::AboutRole);
    connect(m_about, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About RankScope"),
                           tr("<h3>RankScope %1</h3>"
                              "<p>A viewer for distributed PyTorch training incidents: every rank's profiler "
                              "traces, memory counters, NCCL and job logs on one time axis.</p>"
                              "<p>Everything stays on this machine; nothing is uploaded.</p>"
                              "<p>Running with %2.</p>")
                               .arg(VersionInfo::version().toHtmlEscaped(),
                                    VersionInfo::libraries().join(QStringLiteral(", ")).toHtmlEscaped()));
    });
}

void MainWindow::setImportCacheEnabled(bool enabled)
{
    if (m_options.cache == enabled)
        return;
    m_options.cache = enabled;
    QSettings().setValue(QStringLiteral("cache/enabled"), enabled);
    Q_EMIT importCacheChanged(enabled, m_options.cacheMaxBytes);
}

void MainWindow::setImportCacheLimit(qint64 bytes)
{
    m_options.cacheMaxBytes = std::max<qint64>(bytes, 1LL << 30);
    QSettings().setValue(QStringLiteral("cache/maxBytes"), qint64(m_options.cacheMaxBytes));
    const SourceCache cache(m_options.cacheDir.empty() ? SourceCache::defaultDir() : m_options.cacheDir, m_options.cacheMaxBytes);
    std::string why;
    if (!cache.trim(&why))
        m_statusText->setText(tr("Could not trim the import cache: %1").arg(QString::fromStdString(why)));
    Q_EMIT importCacheChanged(m_options.cache, m_options.cacheMaxBytes);
}

bool MainWindow::clearImportCache(bool ask)
{
    const SourceCache cache(m_options.cacheDir.empty() ? SourceCache::defaultDir() : m_options.cacheDir);
    const SourceCache::Stats before = cache.stats();
    const QString where = QDir::toNativeSeparators(QString::fromStdString(cache.dir()));
    if (ask
        && QMessageBox::question(this, tr("Clear Import Cache"),
                                 tr("Remove %1 (%2) from %3? Files opened again are read in full the next time.")
                                     .arg(countOf(before.entries, tr("cached file"), tr("cached files")),
                                          locale().formattedDataSize(before.bytes), where))
            != QMessageBox::Yes)
        return false;
    std::string why;
    const bool ok = cache.clear(&why);
    m_statusText->setText(ok ? tr("Cleared the import cache: %1, %2 freed")
                                   .arg(countOf(before.entries, tr("file"), tr("files")), locale().formattedDataSize(before.bytes))
                             : tr("Could not clear the import cache in %1: %2").arg(where, QString::fromStdString(why)));
    return ok;
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openFiles);
    file->addAction(m_openFolder);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(m_sessionFiles->saveAction());
    file->addAction(m_sessionFiles->saveAsAction());
    file->addSeparator();
    // The import cache: reopening a trace reads its model back instead of parsing it again.
    QMenu *cacheMenu = file->addMenu(tr("Import &Cache"));
    QAction *useCache = cacheMenu->addAction(tr("&Use the Import Cache"));
    useCache->setCheckable(true);
    useCache->setChecked(m_options.cache);
    useCache->setToolTip(tr("Keep what is read from each file in %1, so opening it again is fast").arg(QDir::toNativeSeparators(QString::fromStdString(SourceCache::defaultDir()))));
    connect(useCache, &QAction::toggled, this, &MainWindow::setImportCacheEnabled);
    connect(cacheMenu, &QMenu::aboutToShow, useCache, [this, useCache] { useCache->setChecked(m_options.cache); });
    cacheMenu->addAction(tr("Size &Limit…"), this, [this] {
        const qint64 current = m_options.cacheMaxBytes > 0 ? m_options.cacheMaxBytes : SourceCache::kDefaultMaxBytes;
        bool ok = false;
        const int gib = QInputDialog::getInt(this, tr("Import Cache Size Limit"),
                                             tr("Keep at most this many GiB; the least recently opened files go first:"),
                                             int(current >> 30), 1, 100000, 1, &ok);
        if (ok)
            setImportCacheLimit(qint64(gib) << 30);
    });
    cacheMenu->addAction(tr("&Clear Import Cache…"), this, [this] { clearImportCache(true); });
    file->addSeparator();
    QMenu *exportMenu = file->addMenu(tr("&Export"));
    m_export->addTo(exportMenu);
    file->addSeparator();
    file->addAction(m_close);
    file->addSeparator();
    file->addAction(m_quit);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undo);
    edit->addAction(m_redo);
    edit->addSeparator();
    edit->addAction(tr("Add &Note at View Centre…"), m_annotationsPanel, &AnnotationsPanel::addNoteAtCenter);
    edit->addAction(tr("&Mark Range"), m_annotationsPanel, &AnnotationsPanel::markRange);
    QAction *addArrow = edit->addAction(tr("Add &Arrow"), this, [this] {
        if (!m_session)
            return;
        m_views->setCurrentWidget(m_timeline);
        m_annotationsPanel->addArrow();
    });
    addArrow->setObjectName(QStringLiteral("addArrow"));
    edit->addSeparator();
    QAction *findSlices = edit->addAction(tr("Find &Slices…"), this, [this] {
        if (!m_session)
            return;
        m_searchDock->show();
        m_searchDock->raise();
        m_search->focusSearch();
    });
    findSlices->setObjectName(QStringLiteral("findSlices"));
    findSlices->setShortcuts({QKeySequence::Find, QKeySequence(Qt::Key_Slash)});
    QAction *showFindings = edit->addAction(tr("Show &Finding Annotations"));
    showFindings->setCheckable(true);
    showFindings->setChecked(m_annotations->findingAnnotationsVisible());
    connect(showFindings, &QAction::toggled, m_annotations, &AnnotationStore::setFindingAnnotationsVisible);
    connect(m_annotations, &AnnotationStore::changed, showFindings,
            [this, showFindings] { showFindings->setChecked(m_annotations->findingAnnotationsVisible()); });

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Timeline"), this, [this] { m_views->setCurrentWidget(m_timeline); });
    view->addAction(tr("Compare &Ranks"), this, [this] { m_views->setCurrentWidget(m_compare); });
    QAction *analyseAgain = view->addAction(tr("&Analyse Again"), this, [this] {
        if (m_session)
            Q_EMIT analysisRequested();
    });
    analyseAgain->setObjectName(QStringLiteral("analyseAgain"));
    QAction *findTrack = view->addAction(tr("&Find Track…"), this, [this] {
        if (!m_session)
            return;
        m_views->setCurrentWidget(m_timeline);
        m_timeline->showTrackFinder();
    });
    findTrack->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_P));
    view->addSeparator();
    view->addAction(m_zoomIn);
    view->addAction(m_zoomOut);
    view->addAction(m_zoomReset);
    view->addSeparator();
    view->addAction(m_back);
    view->addAction(m_forward);
    view->addAction(m_focus);
    view->addSeparator();
    view->addAction(m_expandAll);
    view->addAction(m_collapseAll);
    view->addAction(m_compactLanes);
    view->addAction(m_resetLayout);
    m_ranksMenu = view->addMenu(tr("&Ranks"));
    view->addSeparator();
    // Dock toggles are appended by createDocks().
    view->setObjectName(QStringLiteral("viewMenu"));

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(m_shortcuts);
    help->addSeparator();
    help->addAction(m_about);
}

void MainWindow::createDocks()
{
    m_detailsDock = new QDockWidget(tr("Details"), this);
    m_detailsDock->setObjectName(QStringLiteral("detailsDock"));
    m_detailsDock->setWidget(m_details);
    addDockWidget(Qt::RightDockWidgetArea, m_detailsDock);

    // The evidence tables share the bottom area as tabs; the log usually matters most.
    m_logDock = new QDockWidget(tr("Log"), this);
    m_logDock->setObjectName(QStringLiteral("logDock"));
    m_logDock->setWidget(m_logs);
    addDockWidget(Qt::BottomDockWidgetArea, m_logDock);
    m_summaryDock = new QDockWidget(tr("Memory Summaries"), this);
    m_summaryDock->setObjectName(QStringLiteral("memorySummaryDock"));
    m_summaryDock->setWidget(m_summaries);
    addDockWidget(Qt::BottomDockWidgetArea, m_summaryDock);
    m_allocatorDock = new QDockWidget(tr("Allocator"), this);
    m_allocatorDock->setObjectName(QStringLiteral("allocatorDock"));
    m_allocatorDock->setWidget(m_allocator);
    addDockWidget(Qt::BottomDockWidgetArea, m_allocatorDock);
    m_importLogDock = new QDockWidget(tr("Import Log"), this);
    m_importLogDock->setObjectName(QStringLiteral("importLogDock"));
    m_importLogDock->setWidget(m_importLog);
    addDockWidget(Qt::BottomDockWidgetArea, m_importLogDock);
    m_offsetsDock = new QDockWidget(tr("Clock Offsets"), this);
    m_offsetsDock->setObjectName(QStringLiteral("clockOffsetsDock"));
    m_offsetsDock->setWidget(m_offsets);
    addDockWidget(Qt::BottomDockWidgetArea, m_offsetsDock);
    m_annotationsDock = new QDockWidget(tr("Annotations"), this);
    m_annotationsDock->setObjectName(QStringLiteral("annotationsDock"));
    m_annotationsDock->setWidget(m_annotationsPanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_annotationsDock);
    // Findings are where an incident starts: top of the right column, the event details below.
    m_findingsDock = new QDockWidget(tr("Findings"), this);
    m_findingsDock->setObjectName(QStringLiteral("findingsDock"));
    m_findingsDock->setWidget(m_findings);
    addDockWidget(Qt::RightDockWidgetArea, m_findingsDock);
    splitDockWidget(m_findingsDock, m_detailsDock, Qt::Vertical);
    tabifyDockWidget(m_logDock, m_summaryDock);
    tabifyDockWidget(m_summaryDock, m_allocatorDock);
    tabifyDockWidget(m_allocatorDock, m_importLogDock);
    tabifyDockWidget(m_importLogDock, m_offsetsDock);
    tabifyDockWidget(m_offsetsDock, m_annotationsDock);
    m_searchDock = new QDockWidget(tr("Find Slices"), this);
    m_searchDock->setObjectName(QStringLiteral("searchDock"));
    m_searchDock->setWidget(m_search);
    addDockWidget(Qt::BottomDockWidgetArea, m_searchDock);
    tabifyDockWidget(m_annotationsDock, m_searchDock);
    m_searchDock->hide(); // until Ctrl+F
    m_logDock->raise();
    resizeDocks({m_detailsDock}, {460}, Qt::Horizontal);
    // The findings report needs the height; Details is often empty (restoreState still wins).
    resizeDocks({m_findingsDock, m_detailsDock}, {720, 200}, Qt::Vertical);
    resizeDocks({m_logDock}, {260}, Qt::Vertical);

    // Above the timeline, on its time axis; hidden until a job has many ranks (setSession).
    m_overview = new RanksOverview(m_timeline);
    m_overviewDock = new QDockWidget(tr("Ranks Overview"), this);
    m_overviewDock->setObjectName(QStringLiteral("ranksOverviewDock"));
    m_overviewDock->setWidget(m_overview);
    addDockWidget(Qt::TopDockWidgetArea, m_overviewDock);
    m_overviewDock->hide();

    QMenu *view = menuBar()->findChild<QMenu *>(QStringLiteral("viewMenu"));
    int key = Qt::Key_1;
    for (QDockWidget *dock : {m_detailsDock, m_logDock, m_summaryDock, m_importLogDock, m_findingsDock, m_offsetsDock, m_allocatorDock, m_annotationsDock, m_overviewDock}) {
        QAction *toggle = dock->toggleViewAction();
        toggle->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(key++)));
        view->addAction(toggle);
    }
    view->addAction(m_searchDock->toggleViewAction());
}

void MainWindow::arrangeEvidenceDocks()
{
    // The evidence tables show what the inputs hold; an empty one (no log records, no memory
    // tables, no snapshot) only takes height from the timeline. With none left, the bottom tools
    // (import log, offsets, annotations) step aside too: View and Ctrl+digit bring any back.
    const std::pair<QDockWidget *, bool> evidence[] = {{m_logDock, !m_session->logs().records.empty()},
                                                       {m_summaryDock, !m_session->memorySummaries().empty()},
                                                       {m_allocatorDock, !m_session->allocator().empty()}};
    QDockWidget *first = nullptr;
    for (const auto &[dock, has] : evidence) {
        dock->setVisible(has);
        if (has && !first)
            first = dock;
    }
    for (QDockWidget *tool : {m_importLogDock, m_offsetsDock, m_annotationsDock})
        tool->setVisible(first != nullptr);
    if (first)
        first->raise();
}

void MainWindow::createStatusBar()
{
    m_statusText = new QLabel;
    m_statusText->setObjectName(QStringLiteral("statusText"));
    m_taskText = new QLabel;
    m_taskText->setObjectName(QStringLiteral("taskText"));
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(260);
    m_progress->setTextVisible(false);
    m_cancel = new QPushButton(tr("Cancel"));
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (const auto task = m_tasks->current())
            m_tasks->cancel(task->id);
    });
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_taskText);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    connect(m_tasks, &TaskMonitor::changed, this, &MainWindow::showTasks);
    connect(m_tasks, &TaskMonitor::cancelled, this, [this](TaskMonitor::Id, const QString &label) {
        QString what = label;
        if (what.endsWith(QStringLiteral("…")))
            what.chop(1);
        m_statusText->setText(tr("Cancelled: %1").arg(what));
    });
    showTasks();
}

void MainWindow::showTasks()
{
    // The newest task, and how many more run behind it; nothing when all are done.
    const auto task = m_tasks->current();
    m_taskText->setVisible(task.has_value());
    m_progress->setVisible(task.has_value());
    m_cancel->setVisible(task.has_value());
    if (!task)
        return;
    const std::size_t others = m_tasks->tasks().size() - 1;
    m_taskText->setText(others == 0 ? task->label : tr("%1 (and %2 more)").arg(task->label).arg(others));
    if (task->total > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(static_cast<int>(std::clamp<qint64>(task->done * 1000 / task->total, 0, 1000)));
    } else {
        m_progress->setRange(0, 0); // busy indicator until the size is known
    }
    m_cancel->setEnabled(task->cancellable);
    m_cancel->setToolTip(task->cancellable ? tr("Stop: %1").arg(task->label) : tr("This task cannot be stopped"));
}

void MainWindow::resetLayout()
{
    restoreState(m_defaultDockState);
    m_overviewDock->setVisible(m_session && m_session->ranks().size() >= kOverviewRanks);
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        if (dock->isFloating())
            dock->setFloating(false);
    m_state->setCompactLanes(false);
    m_state->setMemoryLaneHeight(0);
    m_state->showHiddenLanes();
    m_state->setPinnedLanes({});
    if (m_session) {
        for (const Rank &r : m_session->ranks())
            m_state->setRankHidden(r.id, false);
        m_timeline->expandAll();
    }
}

void MainWindow::rebuildRanksMenu()
{
    m_ranksMenu->clear();
    if (!m_session || m_session->ranks().empty()) {
        m_ranksMenu->setEnabled(false);
        return;
    }
    m_ranksMenu->setEnabled(true);
    m_ranksMenu->addAction(tr("Show All"), this, [this] {
        for (const Rank &r : m_session->ranks())
            m_state->setRankHidden(r.id, false);
    });
    m_ranksMenu->addSeparator();
    for (const Rank &r : m_session->ranks()) {
        QAction *a = m_ranksMenu->addAction(colorIcon(RankColors::color(r.id)), tr("Rank %1").arg(r.id));
        a->setCheckable(true);
        a->setChecked(!m_state->isRankHidden(r.id));
        const RankId id = r.id;
        connect(a, &QAction::toggled, this, [this, id](bool on) { m_state->setRankHidden(id, !on); });
        connect(m_state, &ViewState::rankHiddenChanged, a, [a, id](RankId rank, bool hidden) {
            if (rank == id)
                a->setChecked(!hidden);
        });
    }
}

void MainWindow::beginNewIncident()
{
    m_sessionFiles->forget();
    m_newIncident = true;
}

bool MainWindow::openFullDetail(RankId rank)
{
    if (!m_session || m_importing || m_autoSelecting || rank == kNoRank)
        return false;
    const auto swaps = FullDetail::reachable(*m_session, rank);
    if (swaps.empty())
        return false;
    QStringList names;
    for (const auto &swap : swaps)
        names << QFileInfo(QString::fromStdString(swap.second)).fileName();
    m_statusText->setText(tr("Rank %1 is shown from its summary: reading its full detail from %2…").arg(rank).arg(names.join(QStringLiteral(", "))));
    m_newIncident = false; // the same incident: annotations stay
    Q_EMIT openRequested(FullDetail::inputsWith(*m_session, swaps));
    return true;
}

void MainWindow::rememberRecent(const QStringList &paths)
{
    if (!paths.isEmpty())
        m_welcome->addRecent(paths);
}

void MainWindow::openPaths(const QStringList &paths)
{
    if (paths.isEmpty() || !m_sessionFiles->confirmDiscardEdits())
        return;
    m_welcome->addRecent(paths);
    if (paths.size() == 1 && SessionDocument::looksLikeSessionFile(paths.front())) {
        m_statusText->setText(tr("Opening %1…").arg(QFileInfo(paths.front()).fileName()));
        Q_EMIT openSessionFileRequested(paths.front());
        return;
    }
    m_sessionFiles->forget();
    m_newIncident = true;
    Q_EMIT openRequested(paths);
}

void MainWindow::openFilesDialog()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open Files"), QString(),
        tr("Traces, logs and sessions (*.json *.json.gz *.json.zst *.gz *.zst *.txt *.log *.out *.csv *.pickle *.pkl "
           "*.pt *.rankscope);;RankScope sessions (*.rankscope);;All files (*)"));
    openPaths(files);
}

void MainWindow::openFolderDialog()
{
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Open Folder"));
    if (!dir.isEmpty())
        openPaths({dir});
}

void MainWindow::closeSession()
{
    if (!m_sessionFiles->confirmDiscardEdits())
        return;
    if (m_importing)
        Q_EMIT cancelRequested();
    m_sessionFiles->forget();
    m_newIncident = true;
    setSession(nullptr);
}

void MainWindow::setSession(SessionPtr session)
{
    const bool newIncident = m_newIncident;
    m_session = std::move(session);
    // A new session's analysis is yet to come; the old one's findings and overrides are void.
    m_analysis.reset();
    m_context->setSession(m_session);
    m_selectTopFinding = m_session != nullptr;
    m_sessionStatus.clear();
    // Annotations belong to an incident: they survive a reload of the same inputs (new source
    // settings) but not other inputs; a session file brings its own.
    if (m_sessionFiles->pendingRestoresView())
        m_selectTopFinding = false; // the saved view wins over "land on the top finding"
    if (!m_sessionFiles->applyPending() && (!m_session || m_newIncident)) {
        m_annotations->reset({});
    }
    // The welcome page (no session yet) is not an incident: the first inputs still are new ones.
    if (m_session)
        m_newIncident = false;
    rebuildRanksMenu();
    // A job of many ranks opens with its overview: one row per rank, the odd one stands out.
    if (m_session && m_session->ranks().size() >= kOverviewRanks)
        m_overviewDock->show();
    if (m_session && newIncident)
        arrangeEvidenceDocks();
    m_stack->setCurrentIndex(m_session ? 1 : 0);
    for (QAction *a : {m_sessionFiles->saveAction(), m_sessionFiles->saveAsAction(), m_close, m_zoomIn, m_zoomOut, m_zoomReset, m_focus, m_expandAll, m_collapseAll})
        a->setEnabled(m_session != nullptr);
    m_export->setEnabled(m_session != nullptr);
    updateTitle();
    if (!m_session) {
        m_statusText->setText(tr("Drop files or folders here, or press %1 to open them.")
                                  .arg(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)));
        return;
    }
    std::size_t errors = 0;
    for (const Source &s : m_session->sources())
        errors += s.hasErrors() ? 1 : 0;
    QString text = countOf(static_cast<qint64>(m_session->sources().size()), tr("file"), tr("files")) + QStringLiteral("  ·  ")
        + countOf(static_cast<qint64>(m_session->ranks().size()), tr("rank"), tr("ranks")) + QStringLiteral("  ·  ")
        + countOf(static_cast<qint64>(m_session->spanCount()), tr("span"), tr("spans")) + QStringLiteral("  ·  ");
    if (!m_session->logs().records.empty())
        text += countOf(static_cast<qint64>(m_session->logs().records.size()), tr("log record"), tr("log records")) + QStringLiteral("  ·  ");
    // Each failure once, however many messages, markers and summaries report it (OomIncidents).
    qint64 ooms = 0;
    for (const RankOoms &r : OomIncidents::find(*m_session))
        ooms += r.count;
    if (ooms > 0)
        text += countOf(ooms, tr("OOM"), tr("OOMs")) + QStringLiteral("  ·  ");
    text += m_timeline->hasTimedData() ? TimeFormat::duration(m_state->fullRange().duration()) : tr("no time stamps");
    if (errors) {
        text += QStringLiteral("  ·  ") + countOf(static_cast<qint64>(errors), tr("file"), tr("files")) + tr(" with errors — see Import Log");
        m_importLogDock->show();
        m_importLogDock->raise();
    }
    m_sessionStatus = text;
    m_statusText->setText(text);
    m_timeline->setFocus();
}

void MainWindow::setAnalysis(AnalysisPtr analysis)
{
    if (!m_session)
        return;
    m_analysis = std::move(analysis);
    m_context->setAnalysis(m_analysis);
    if (!m_analysis)
        return;
    m_annotations->setFindingAnnotations(annotationsFromFindings(*m_analysis));

    // "3 high, 2 medium findings — Rank 2 ran out of GPU memory …" ahead of the session summary.
    std::array<int, 4> counts{};
    for (const Finding &f : m_analysis->findings)
        ++counts[static_cast<std::size_t>(f.severity)];
    QStringList parts;
    for (Severity s : {Severity::High, Severity::Medium, Severity::Low, Severity::Info})
        if (const int n = counts[static_cast<std::size_t>(s)])
            parts << QStringLiteral("%1 %2").arg(n).arg(QString::fromLatin1(severityName(s)));
    QString status = parts.isEmpty() ? tr("No findings")
                                     : tr("%1 %2").arg(parts.join(QStringLiteral(", ")),
                                                       m_analysis->findings.size() == 1 ? tr("finding") : tr("findings"));
    if (!m_analysis->findings.empty()) {
        // The story's first sentence names the culprit and what happened; the top finding otherwise.
        const QString top = QString::fromStdString(m_analysis->summary.headline.empty() ? m_analysis->findings.front().title
                                                                                         : m_analysis->summary.firstSentence());
        status += QStringLiteral(" — ") + m_statusText->fontMetrics().elidedText(top, Qt::ElideRight, 520);
    }
    // A source the axis leaves out (decades away, or a counter above its GPU) is said, not hidden.
    if (const auto left = static_cast<qint64>(m_analysis->extent.leftOut.size()))
        status += QStringLiteral("  ·  ") + countOf(left, tr("source"), tr("sources")) + tr(" left out of the time axis or memory scale — see Import Log");
    m_statusText->setText(m_sessionStatus.isEmpty() ? status : status + QStringLiteral("  ·  ") + m_sessionStatus);

    if (m_selectTopFinding) {
        m_selectTopFinding = false;
        m_autoSelecting = true;
        const bool selected = m_findings->selectTopFinding();
        m_autoSelecting = false;
        if (selected) {
            m_findingsDock->show();
            m_findingsDock->raise();
        }
    }
}

void MainWindow::setLoaderOptions(const SessionLoader::Options &options)
{
    m_options = options;
}

InputChoices MainWindow::inputChoices() const
{
    return {m_options.rankOverrides, m_options.rankMaps, m_options.timeZone};
}

void MainWindow::editSourceSettings(SourceId source)
{
    if (!m_session || source >= m_session->sources().size())
        return;
    SourceSettingsDialog dialog(SourceSettings::forSource(*m_session, source, inputChoices()), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    InputChoices choices = inputChoices();
    dialog.settings().applyTo(choices);
    SessionLoader::Options next = m_options;
    next.rankOverrides = std::move(choices.rankOverrides);
    next.rankMaps = std::move(choices.rankMaps);
    next.timeZone = std::move(choices.timeZone);
    m_options = next;
    Q_EMIT optionsChanged(next);
}

void MainWindow::updateTitle()
{
    if (!m_session || m_session->sources().empty()) {
        setWindowTitle(tr("RankScope"));
        return;
    }
    // "[*]" is where Qt shows the unsaved-edits marker (setWindowModified).
    if (!documentPath().isEmpty()) {
        setWindowTitle(tr("%1[*] — RankScope").arg(QFileInfo(documentPath()).fileName()));
        return;
    }
    QStringList names;
    for (const Source &s : m_session->sources())
        names << QString::fromStdString(s.path);
    setWindowTitle(tr("%1[*] — RankScope").arg(WelcomePage::entryLabel(names)));
}

QString MainWindow::documentPath() const
{
    return m_sessionFiles->documentPath();
}

SessionDocument MainWindow::documentState() const
{
    return m_sessionFiles->capture();
}

void MainWindow::sessionFileOpened(const QString &path, const SessionDocument &document,
                                   const std::vector<SessionDocument::Problem> &problems)
{
    m_newIncident = false;
    m_sessionFiles->opened(path, document, problems);
}

void MainWindow::askOutsideSources(const QString &session, const QStringList &paths, std::function<void(bool)> answer)
{
    auto *box = new QMessageBox(QMessageBox::Question, tr("Files outside the session's folder"),
                                (paths.size() == 1 ? tr("%1 names a file outside its own folder. Open it?")
                                                   : tr("%1 names %2 files outside its own folder. Open them?").arg(QStringLiteral("%1")).arg(paths.size()))
                                    .arg(QFileInfo(session).fileName()),
                                QMessageBox::Open | QMessageBox::Ignore, this);
    box->setObjectName(QStringLiteral("outsideSourcesQuestion"));
    box->setInformativeText(tr("Only open them if you trust where this session file came from. Ignore loads the "
                               "sources inside its folder and leaves these out:\n")
                            + paths.mid(0, 8).join(QLatin1Char('\n')) + (paths.size() > 8 ? tr("\n…") : QString()));
    box->setDetailedText(paths.join(QLatin1Char('\n')));
    box->setDefaultButton(QMessageBox::Ignore);
    box->setAttribute(Qt::WA_DeleteOnClose);
    connect(box, &QMessageBox::finished, this, [answer = std::move(answer)](int result) { answer(result == QMessageBox::Open); });
    box->open();
}

void MainWindow::sessionFileSaved(const QString &path)
{
    m_sessionFiles->saved(path);
    m_welcome->addRecent({path});
}

void MainWindow::sessionFileFailed(const QString &message)
{
    m_sessionFiles->failed(message);
}

void MainWindow::saveSession()
{
    m_sessionFiles->save();
}

void MainWindow::saveSessionAs()
{
    m_sessionFiles->saveAs();
}

void MainWindow::saveSessionTo(const QString &path)
{
    m_sessionFiles->saveTo(path);
}

std::map<RankId, TimeNs> MainWindow::clockOffsetOverrides() const
{
    return m_offsets->overrides();
}

void MainWindow::setImportProgress(qint64 done, qint64 total, const QString &currentFile)
{
    if (!m_importing)
        importStarted();
    m_tasks->setProgress(m_importTask, done, total, tr("Reading %1…").arg(currentFile));
    m_statusText->setText(tr("Reading %1…").arg(currentFile));
}

void MainWindow::analysisCancelled()
{
    m_statusText->setText(tr("Analysis cancelled: no findings are shown. View ▸ Analyse Again runs it."));
}

void MainWindow::importStarted()
{
    m_importing = true;
    m_tasks->end(m_importTask);
    m_importTask = m_tasks->begin(tr("Reading…"), [this] { Q_EMIT cancelRequested(); });
    m_statusText->setText(tr("Reading…"));
}

void MainWindow::importFinished()
{
    m_importing = false;
    m_tasks->end(std::exchange(m_importTask, 0));
    // setSession() (which usually follows) writes the session summary; until then say what happened.
    if (!m_session)
        m_statusText->setText(tr("Import ended."));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_sessionFiles->confirmDiscardEdits()) {
        event->ignore();
        return;
    }
    if (m_importing)
        Q_EMIT cancelRequested();
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!localPaths(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QStringList paths = localPaths(event->mimeData());
    if (paths.isEmpty())
        return;
    event->acceptProposedAction();
    openPaths(paths);
}

} // namespace rs
