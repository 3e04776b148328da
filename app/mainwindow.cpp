#include "mainwindow.h"

#include "dialogs/sourcesettingsdialog.h"
#include "panels/detailspanel.h"
#include "panels/importlogpanel.h"
#include "panels/logpanel.h"
#include "panels/memorysummarypanel.h"
#include "plural.h"
#include "rankcolors.h"
#include "timeformat.h"
#include "timeline/timelineview.h"
#include "viewstate.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

#include <algorithm>

namespace rs {

namespace {

const QString kRecentKey = QStringLiteral("recent/entries");
const QString kGeometryKey = QStringLiteral("window/geometry");
const QString kStateKey = QStringLiteral("window/state");

// Paths opened together are stored as one string; a newline never appears in a path we accept.
const QChar kPathSeparator = QLatin1Char('\n');

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
{
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_timeline = new TimelineView(m_state);
    m_details = new DetailsPanel(m_state);
    m_importLog = new ImportLogPanel;
    m_logs = new LogPanel(m_state);
    m_summaries = new MemorySummaryPanel(m_state);
    connect(m_logs, &LogPanel::revealRequested, m_timeline, &TimelineView::ensureEventVisible);
    connect(m_importLog, &ImportLogPanel::sourceSettingsRequested, this, &MainWindow::editSourceSettings);

    m_stack = new QStackedWidget;
    m_stack->addWidget(createWelcomePage());
    m_stack->addWidget(m_timeline);
    setCentralWidget(m_stack);

    createActions();
    createMenus();
    createDocks();
    createStatusBar();

    QSettings settings;
    if (!restoreGeometry(settings.value(kGeometryKey).toByteArray()))
        resize(1600, 1000);
    restoreState(settings.value(kStateKey).toByteArray());
    rebuildRecentMenu();
    setSession(nullptr);
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions()
{
    m_openFiles = new QAction(tr("&Open Files…"), this);
    m_openFiles->setShortcut(QKeySequence::Open);
    connect(m_openFiles, &QAction::triggered, this, &MainWindow::openFilesDialog);

    m_openFolder = new QAction(tr("Open &Folder…"), this);
    m_openFolder->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(m_openFolder, &QAction::triggered, this, &MainWindow::openFolderDialog);

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
                              "<p>Everything stays on this machine; nothing is uploaded.</p>")
                               .arg(QCoreApplication::applicationVersion().toHtmlEscaped()));
    });
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openFiles);
    file->addAction(m_openFolder);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addSeparator();
    file->addAction(m_close);
    file->addSeparator();
    file->addAction(m_quit);

    QMenu *view = menuBar()->addMenu(tr("&View"));
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
    m_importLogDock = new QDockWidget(tr("Import Log"), this);
    m_importLogDock->setObjectName(QStringLiteral("importLogDock"));
    m_importLogDock->setWidget(m_importLog);
    addDockWidget(Qt::BottomDockWidgetArea, m_importLogDock);
    tabifyDockWidget(m_logDock, m_summaryDock);
    tabifyDockWidget(m_summaryDock, m_importLogDock);
    m_logDock->raise();
    resizeDocks({m_detailsDock}, {380}, Qt::Horizontal);
    resizeDocks({m_logDock}, {260}, Qt::Vertical);

    QMenu *view = menuBar()->findChild<QMenu *>(QStringLiteral("viewMenu"));
    int key = Qt::Key_1;
    for (QDockWidget *dock : {m_detailsDock, m_logDock, m_summaryDock, m_importLogDock}) {
        QAction *toggle = dock->toggleViewAction();
        toggle->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(key++)));
        view->addAction(toggle);
    }
}

void MainWindow::createStatusBar()
{
    m_statusText = new QLabel;
    m_progress = new QProgressBar;
    m_progress->setMaximumWidth(260);
    m_progress->setTextVisible(false);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setToolTip(tr("Stop the import"));
    connect(m_cancel, &QPushButton::clicked, this, &MainWindow::cancelRequested);
    statusBar()->addWidget(m_statusText, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_cancel);
    m_progress->hide();
    m_cancel->hide();
}

QWidget *MainWindow::createWelcomePage()
{
    auto *page = new QWidget;
    page->setObjectName(QStringLiteral("welcome"));
    page->setStyleSheet(QStringLiteral(
        "#welcome { background: #f6f7f9; }"
        "QLabel#title { font-size: 26px; font-weight: 600; color: #1f232b; }"
        "QLabel#hint { font-size: 14px; color: #4b5563; }"
        "QLabel#recentTitle { font-size: 13px; font-weight: 600; color: #1f232b; margin-top: 18px; }"
        "QPushButton[recent=\"true\"] { text-align: left; border: none; color: #2f5d8a; padding: 3px 0; font-size: 13px; }"
        "QPushButton[recent=\"true\"]:hover { text-decoration: underline; }"));
    auto *title = new QLabel(tr("RankScope"));
    title->setObjectName(QStringLiteral("title"));
    auto *hint = new QLabel(tr("Drop everything a failed job left behind — per-rank profiler traces, memory "
                               "summaries, nvidia-smi CSVs, NCCL and torchrun logs, allocator snapshots — "
                               "or a whole folder, anywhere in this window."));
    hint->setObjectName(QStringLiteral("hint"));
    hint->setWordWrap(true);
    auto *openFiles = new QPushButton(tr("Open Files…"));
    connect(openFiles, &QPushButton::clicked, this, &MainWindow::openFilesDialog);
    auto *openFolder = new QPushButton(tr("Open Folder…"));
    connect(openFolder, &QPushButton::clicked, this, &MainWindow::openFolderDialog);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(openFiles);
    buttons->addWidget(openFolder);
    buttons->addStretch(1);
    auto *recentTitle = new QLabel(tr("Recent"));
    recentTitle->setObjectName(QStringLiteral("recentTitle"));
    m_welcomeRecent = new QVBoxLayout;
    m_welcomeRecent->setSpacing(0);

    auto *column = new QVBoxLayout;
    column->addStretch(2);
    column->addWidget(title);
    column->addSpacing(8);
    column->addWidget(hint);
    column->addSpacing(16);
    column->addLayout(buttons);
    column->addWidget(recentTitle);
    column->addLayout(m_welcomeRecent);
    column->addStretch(3);
    auto *outer = new QHBoxLayout(page);
    outer->addStretch(1);
    outer->addLayout(column, 3);
    outer->addStretch(1);
    return page;
}

QString MainWindow::entryLabel(const QStringList &paths)
{
    if (paths.isEmpty())
        return {};
    const QString first = QFileInfo(paths.front()).fileName();
    return paths.size() == 1 ? first : tr("%1 + %2 more").arg(first).arg(paths.size() - 1);
}

QList<QStringList> MainWindow::recentEntries() const
{
    QList<QStringList> out;
    for (const QString &e : QSettings().value(kRecentKey).toStringList())
        out << e.split(kPathSeparator, Qt::SkipEmptyParts);
    return out;
}

void MainWindow::setRecentEntries(const QList<QStringList> &entries)
{
    QStringList flat;
    for (const QStringList &e : entries)
        flat << e.join(kPathSeparator);
    QSettings().setValue(kRecentKey, flat);
}

void MainWindow::addRecent(const QStringList &paths)
{
    QStringList absolute;
    for (const QString &p : paths)
        absolute << QFileInfo(p).absoluteFilePath();
    QList<QStringList> entries = recentEntries();
    entries.removeAll(absolute);
    entries.prepend(absolute);
    while (entries.size() > kMaxRecent)
        entries.removeLast();
    setRecentEntries(entries);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    // Files that were moved or deleted since are dropped here, so the list never offers dead ends.
    QList<QStringList> kept;
    for (QStringList entry : recentEntries()) {
        entry.erase(std::remove_if(entry.begin(), entry.end(), [](const QString &p) { return !QFileInfo::exists(p); }),
                    entry.end());
        if (!entry.isEmpty() && !kept.contains(entry))
            kept << entry;
    }
    if (kept != recentEntries())
        setRecentEntries(kept);

    m_recentMenu->clear();
    for (int i = 0; i < kept.size(); ++i) {
        const QStringList entry = kept[i];
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1  %2").arg((i + 1) % 10).arg(entryLabel(entry)));
        a->setToolTip(entry.join(QLatin1Char('\n')));
        connect(a, &QAction::triggered, this, [this, entry] { openPaths(entry); });
    }
    if (!kept.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Menu"), this, [this] {
            setRecentEntries({});
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!kept.isEmpty());
    rebuildWelcomeRecent();
}

void MainWindow::rebuildWelcomeRecent()
{
    while (QLayoutItem *item = m_welcomeRecent->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const QList<QStringList> entries = recentEntries();
    if (entries.isEmpty()) {
        auto *none = new QLabel(tr("Nothing opened yet."));
        none->setStyleSheet(QStringLiteral("color: #6b7280;"));
        m_welcomeRecent->addWidget(none);
        return;
    }
    for (const QStringList &entry : entries) {
        auto *b = new QPushButton(entryLabel(entry) + QStringLiteral("   —   ") + QFileInfo(entry.front()).absolutePath());
        b->setProperty("recent", true);
        b->setCursor(Qt::PointingHandCursor);
        b->setToolTip(entry.join(QLatin1Char('\n')));
        connect(b, &QPushButton::clicked, this, [this, entry] { openPaths(entry); });
        m_welcomeRecent->addWidget(b);
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

void MainWindow::openPaths(const QStringList &paths)
{
    if (paths.isEmpty())
        return;
    addRecent(paths);
    Q_EMIT openRequested(paths);
}

void MainWindow::openFilesDialog()
{
    const QStringList files = QFileDialog::getOpenFileNames(
        this, tr("Open Files"), QString(),
        tr("Traces and logs (*.json *.json.gz *.json.zst *.gz *.zst *.txt *.log *.out *.csv *.pickle *.pkl *.pt);;"
           "All files (*)"));
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
    if (m_importing)
        Q_EMIT cancelRequested();
    setSession(nullptr);
}

void MainWindow::setSession(SessionPtr session)
{
    m_session = std::move(session);
    m_timeline->setSession(m_session);
    m_details->setSession(m_session);
    m_importLog->setSession(m_session);
    m_logs->setSession(m_session);
    m_summaries->setSession(m_session);
    rebuildRanksMenu();
    m_stack->setCurrentIndex(m_session ? 1 : 0);
    for (QAction *a : {m_close, m_zoomIn, m_zoomOut, m_zoomReset, m_focus, m_expandAll, m_collapseAll})
        a->setEnabled(m_session != nullptr);
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
        + countOf(static_cast<qint64>(m_session->spanCount()), tr("span"), tr("spans")) + QStringLiteral("  ·  ")
        + TimeFormat::duration(m_session->timeRange().duration());
    if (errors) {
        text += QStringLiteral("  ·  ") + countOf(static_cast<qint64>(errors), tr("file"), tr("files")) + tr(" with errors — see Import Log");
        m_importLogDock->show();
        m_importLogDock->raise();
    }
    m_statusText->setText(text);
    m_timeline->setFocus();
}

void MainWindow::setLoaderOptions(const SessionLoader::Options &options)
{
    m_options = options;
}

namespace {

QString originWords(RankOrigin o)
{
    switch (o) {
    case RankOrigin::Content: return MainWindow::tr("the file's content");
    case RankOrigin::FileName: return MainWindow::tr("the file name");
    case RankOrigin::User: return MainWindow::tr("your setting");
    case RankOrigin::Assigned: return MainWindow::tr("the lowest free rank (nothing in the file said)");
    case RankOrigin::DeviceIndex: return MainWindow::tr("the GPU index taken as the rank (no NCCL lines to map it)");
    case RankOrigin::NcclDevice: return MainWindow::tr("NCCL's \"rank R … cudaDev D\" lines");
    }
    return {};
}

// The user's entry for `path` in a path-keyed option map: the same path, or the same file named
// another way (the command line's relative path).
template<typename Map>
auto findPath(Map &map, const std::string &path)
{
    if (auto it = map.find(path); it != map.end())
        return it;
    const QString canonical = QFileInfo(QString::fromStdString(path)).canonicalFilePath();
    for (auto it = map.begin(); it != map.end(); ++it)
        if (!canonical.isEmpty() && QFileInfo(QString::fromStdString(it->first)).canonicalFilePath() == canonical)
            return it;
    return map.end();
}

} // namespace

SourceSettings MainWindow::sourceSettings(SourceId id) const
{
    SourceSettings out;
    if (!m_session || id >= m_session->sources().size())
        return out;
    const Source &src = m_session->sources()[id];
    out.path = QString::fromStdString(src.path);
    out.format = QString::fromStdString(src.format);
    out.timeZone = QString::fromStdString(m_options.timeZone);
    for (const Source &s : m_session->sources())
        if (s.format == "nvidia-smi" || s.format == "nccl-log" || s.format == "job-log")
            out.zoneSources << QFileInfo(QString::fromStdString(s.path)).fileName();

    const auto userMap = findPath(m_options.rankMaps, src.path);
    const bool byDevice = src.rankOrigin == RankOrigin::DeviceIndex || src.rankOrigin == RankOrigin::NcclDevice
        || (src.format == "nvidia-smi");
    out.multiRank = byDevice || src.ranks.size() > 1 || userMap != m_options.rankMaps.end();
    if (!out.multiRank) {
        out.currentRank = src.ranks.empty() ? kNoRank : src.ranks.front();
        out.rankOrigin = originWords(src.rankOrigin);
        if (const auto it = findPath(m_options.rankOverrides, src.path); it != m_options.rankOverrides.end())
            out.rankOverride = it->second;
        return out;
    }
    out.mapOrigin = originWords(src.rankOrigin);
    if (byDevice) {
        // The GPU index stays on every track of the file; the rank it was given is the track's.
        out.mapKeyName = tr("GPU index");
        for (const Track &t : m_session->tracks())
            if (t.source == id && t.device >= 0 && t.rank >= 0)
                out.currentMap[t.device] = t.rank;
    } else {
        out.mapKeyName = tr("Rank in the file");
        for (RankId r : src.ranks)
            out.currentMap[r] = r;
    }
    if (userMap != m_options.rankMaps.end()) {
        out.rankMap = std::map<int, RankId>(userMap->second.begin(), userMap->second.end());
        // Keys the user mapped always get a row, even when the session no longer shows them.
        for (const auto &[key, rank] : *out.rankMap)
            out.currentMap.try_emplace(key, rank);
    }
    return out;
}

SessionLoader::Options MainWindow::applySourceSettings(SessionLoader::Options options, const SourceSettings &settings)
{
    const std::string path = settings.path.toStdString();
    if (settings.multiRank) {
        if (auto it = findPath(options.rankMaps, path); it != options.rankMaps.end())
            options.rankMaps.erase(it);
        if (settings.rankMap)
            options.rankMaps[path] = std::map<RankId, RankId>(settings.rankMap->begin(), settings.rankMap->end());
    } else {
        if (auto it = findPath(options.rankOverrides, path); it != options.rankOverrides.end())
            options.rankOverrides.erase(it);
        if (settings.rankOverride)
            options.rankOverrides[path] = *settings.rankOverride;
    }
    options.timeZone = settings.timeZone.toStdString();
    return options;
}

void MainWindow::editSourceSettings(SourceId source)
{
    if (!m_session || source >= m_session->sources().size())
        return;
    SourceSettingsDialog dialog(sourceSettings(source), this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    const SessionLoader::Options next = applySourceSettings(m_options, dialog.settings());
    m_options = next;
    Q_EMIT optionsChanged(next);
}

void MainWindow::updateTitle()
{
    if (!m_session || m_session->sources().empty()) {
        setWindowTitle(tr("RankScope"));
        return;
    }
    QStringList names;
    for (const Source &s : m_session->sources())
        names << QString::fromStdString(s.path);
    setWindowTitle(tr("%1 — RankScope").arg(entryLabel(names)));
}

void MainWindow::setImportProgress(qint64 done, qint64 total, const QString &currentFile)
{
    if (!m_importing)
        importStarted();
    if (total > 0) {
        m_progress->setRange(0, 1000);
        m_progress->setValue(static_cast<int>(std::clamp<qint64>(done * 1000 / total, 0, 1000)));
    } else {
        m_progress->setRange(0, 0); // busy indicator until the size is known
    }
    m_statusText->setText(tr("Reading %1…").arg(currentFile));
}

void MainWindow::importStarted()
{
    m_importing = true;
    m_progress->setRange(0, 0);
    m_progress->show();
    m_cancel->show();
    m_cancel->setEnabled(true);
    m_statusText->setText(tr("Reading…"));
}

void MainWindow::importFinished()
{
    m_importing = false;
    m_progress->hide();
    m_cancel->hide();
    // setSession() (which usually follows) writes the session summary; until then say what happened.
    if (!m_session)
        m_statusText->setText(tr("Import ended."));
}

void MainWindow::closeEvent(QCloseEvent *event)
{
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
