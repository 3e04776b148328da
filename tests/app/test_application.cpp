// The viewer as a user drives it, headless: open the demo incident, find the analysis' findings
// drawn as annotations, annotate, hide and fold ranks, override a clock offset, save a .rankscope
// session and reopen it in a fresh window — everything comes back equal. A reopened session whose
// source changed says so. The current view exports as a figure with the annotations in it.

#include "application.h"
#include "cache/sourcecache.h"
#include "summarizecommand.h"
#include "versioninfo.h"
#include "testtrace.h"

#include "annotations/annotationstore.h"
#include "compare/compareview.h"
#include "export/exportdialog.h"
#include "export/figureexporter.h"
#include "exportactions.h"
#include "panels/clockoffsetspanel.h"
#include "panels/importlogpanel.h"
#include "models/diagnosticsmodel.h"
#include "panels/detailspanel.h"
#include "panels/searchpanel.h"
#include "models/slicesearchmodel.h"
#include "palette.h"
#include "taskmonitor.h"
#include "timeline/flowarrows.h"
#include "timeline/lanekind.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/pinnedlanes.h"
#include "timeline/timelineview.h"
#include "timeline/timeruler.h"
#include "timeline/trackfinder.h"
#include "viewstate.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTableView>
#include <QLineEdit>
#include <QTimer>
#include <QPushButton>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoStack>
#include <QLabel>
#include <QRadioButton>

#include <QAction>

#include <functional>
#include <set>

using rs::Annotation;
using rs::Application;

namespace {

const QString kDemo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");

rs::SessionLoader::Options utc()
{
    rs::SessionLoader::Options o;
    o.timeZone = "UTC";
    return o;
}

// Opens `paths` and waits until the session is shown and analysed.
bool openAndWait(Application &app, const QStringList &paths)
{
    QSignalSpy ready(&app, &Application::ready);
    app.open(paths);
    return ready.wait(120000);
}

bool copyTree(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    for (const QFileInfo &fi : QDir(from).entryInfoList(QDir::Files))
        if (!QFile::copy(fi.absoluteFilePath(), QDir(to).filePath(fi.fileName())))
            return false;
    return true;
}

// A copy of the demo at `incident`, opened and saved as the session file `docPath`.
bool savedDemoIncident(const QString &incident, const QString &docPath)
{
    if (!copyTree(kDemo, incident))
        return false;
    Application app(utc());
    if (!openAndWait(app, {incident}))
        return false;
    QSignalSpy done(&app.sessionFiles(), &rs::SessionFileController::saved);
    app.window().saveSessionTo(docPath);
    return done.wait(60000);
}

} // namespace

class TestApplication : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // recent files and window state in a scratch place
    }

    void demoHasFindingAnnotationsAndTabs()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        QVERIFY(w.session());
        QVERIFY(w.analysis());
        const auto expected = rs::annotationsFromFindings(*w.analysis());
        QVERIFY(!expected.empty());
        QCOMPARE(w.annotationStore()->annotations().size(), expected.size());
        for (const Annotation &a : w.annotationStore()->annotations())
            QCOMPARE(a.origin, Annotation::Origin::Finding);
        // Nothing the user did yet: no unsaved edits.
        QVERIFY(w.annotationStore()->undoStack()->isClean());
        auto *tabs = w.findChild<QTabWidget *>(QStringLiteral("views"));
        QVERIFY(tabs);
        QCOMPARE(tabs->count(), 2);
        QCOMPARE(tabs->indexOf(w.compareView()), 1);
        QVERIFY(w.compareView()->referenceRank() != rs::kNoRank);
        // The status bar leads with the story's first sentence (the culprit), not a contributing finding.
        auto *status = w.findChild<QLabel *>(QStringLiteral("statusText"));
        QVERIFY(status);
        QVERIFY2(status->text().contains(QLatin1String("Rank 2 ran out of GPU memory")), qPrintable(status->text()));
    }

    void importCacheFromTheMenu()
    {
        // The viewer fills the cache, reopens from it, turns it off from File > Import Cache, and
        // clears it.
        QTemporaryDir cacheDir;
        rs::SessionLoader::Options o = utc();
        o.cache = true;
        o.cacheDir = cacheDir.path().toStdString();
        const rs::SourceCache cache(o.cacheDir);
        Application app(o);
        QVERIFY(openAndWait(app, {kDemo}));
        const std::int64_t kept = cache.stats().entries;
        QVERIFY(kept >= 5); // the demo's traces, nvidia-smi CSV and job log
        const std::size_t spans = app.window().session()->tracks().size();
        QVERIFY(openAndWait(app, {kDemo}));
        QCOMPARE(app.window().session()->tracks().size(), spans);
        QCOMPARE(cache.stats().entries, kept);
        QVERIFY(app.window().clearImportCache(false));
        QCOMPARE(cache.stats().entries, std::int64_t(0));
        bool said = false; // the status bar says what was freed
        for (const QLabel *label : app.window().findChildren<QLabel *>())
            said = said || label->text().startsWith(QStringLiteral("Cleared the import cache: %1 files").arg(kept));
        QVERIFY(said);
        app.window().setImportCacheLimit(qint64(5) << 30); // File > Import Cache > Size Limit…
        QCOMPARE(app.window().loaderOptions().cacheMaxBytes, qint64(5) << 30);
        QCOMPARE(QSettings().value(QStringLiteral("cache/maxBytes")).toLongLong(), qint64(5) << 30);
        app.window().setImportCacheEnabled(false);
        QVERIFY(openAndWait(app, {kDemo}));
        QCOMPARE(cache.stats().entries, std::int64_t(0)); // off: nothing kept
        app.window().setImportCacheEnabled(true);
        QVERIFY(openAndWait(app, {kDemo}));
        QCOMPARE(cache.stats().entries, kept);
    }

    // A folder of summaries opens like the incident; selecting a rank whose trace is on this
    // machine reads that trace in place of its summary (the window's own pick of the top finding
    // does not), and the findings stay the same.
    void summaryRankOpensItsTrace()
    {
        QTemporaryDir dir;
        const QString incident = dir.filePath(QStringLiteral("incident"));
        const QString summaries = dir.filePath(QStringLiteral("summaries"));
        QVERIFY(copyTree(kDemo, incident));
        std::FILE *devnull = std::fopen("/dev/null", "w");
        const int status = rs::SummarizeCommand::run({QStringLiteral("--time-zone=UTC"), QStringLiteral("--output"), summaries, incident},
                                                     devnull, devnull);
        std::fclose(devnull);
        QCOMPARE(status, 0);
        Application app(utc());
        QVERIFY(openAndWait(app, {summaries}));
        rs::MainWindow &w = app.window();
        for (const rs::Source &s : w.session()->sources())
            QCOMPARE(s.format, std::string("summary"));
        const std::size_t findings = w.analysis()->findings.size();
        QVERIFY(findings > 0);
        QSignalSpy ready(&app, &Application::ready);
        QVERIFY(!ready.wait(500)); // landing on the top finding opened nothing

        QVERIFY(w.openFullDetail(rs::kNoRank) == false);
        w.viewState()->setSelectedRank(rs::kNoRank);
        w.viewState()->setSelectedRank(2); // the culprit, as a click in the Findings panel does
        QVERIFY(ready.wait(120000));
        int traces = 0, stillSummaries = 0;
        for (const rs::Source &s : w.session()->sources()) {
            if (s.format == "pytorch-trace") {
                ++traces;
                QCOMPARE(s.ranks, std::vector<rs::RankId>{2});
                QVERIFY2(QString::fromStdString(s.path).startsWith(incident), s.path.c_str());
            } else {
                QCOMPARE(s.format, std::string("summary"));
                ++stillSummaries;
            }
        }
        QCOMPARE(traces, 1);
        QVERIFY(stillSummaries > 0);
        QCOMPARE(w.analysis()->findings.size(), findings);
        // Rank 2 is a trace now: selecting it again reads nothing.
        QVERIFY(!w.openFullDetail(2));
    }

    // A trace alone has no log records, memory tables or snapshot: those docks give their height
    // to the timeline; the demo (with its job log) shows the Log again, in front.
    void emptyDocksGiveWayToTheTimeline()
    {
        Application app(utc());
        rs::MainWindow &w = app.window();
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto dock = [&w](const char *name) { return w.findChild<QDockWidget *>(QLatin1String(name)); };
        QVERIFY(openAndWait(app, {kDemo + QStringLiteral("/rank-0.pt.trace.json.gz")}));
        QCoreApplication::processEvents();
        for (const char *name : {"logDock", "memorySummaryDock", "allocatorDock", "clockOffsetsDock", "annotationsDock"})
            QVERIFY2(dock(name)->isHidden(), name);
        const int alone = w.timeline()->height();
        if (const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS"); !keep.isEmpty())
            w.grab().save(QDir(keep).filePath(QStringLiteral("app-trace-alone.png")));
        QVERIFY(openAndWait(app, {kDemo}));
        QCoreApplication::processEvents();
        QVERIFY(dock("logDock")->isVisible());
        QVERIFY(!dock("logDock")->visibleRegion().isEmpty()); // the tab in front
        QCOMPARE(dock("memorySummaryDock")->isHidden(), w.session()->memorySummaries().empty());
        QVERIFY(dock("allocatorDock")->isHidden()); // no snapshot in the demo
        QVERIFY2(w.timeline()->height() < alone, qPrintable(QStringLiteral("%1 vs %2").arg(w.timeline()->height()).arg(alone)));
    }

    // Edit > Find Slices (Ctrl+F, /): every rank's slices by name, Enter / Shift+Enter step through
    // them (selected on the timeline), the count says where, the list sorts by duration, a regular
    // expression works and a broken one says why.
    void findSlices()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto *panel = w.findChild<rs::SearchPanel *>();
        QVERIFY(panel && !panel->isVisible());
        w.timeline()->setFocus();
        QTest::keyClick(w.timeline(), Qt::Key_Slash); // as Ctrl+F
        QTRY_VERIFY(panel->isVisible());
        QCOMPARE(QApplication::focusWidget(), static_cast<QWidget *>(panel->field()));
        QAbstractItemModelTester tester(panel->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        // Every span whose name contains it, on every rank (case ignored).
        const std::shared_ptr<const rs::Session> session = w.session();
        int expected = 0;
        std::set<rs::RankId> ranks;
        for (const rs::Track &t : session->tracks())
            for (const rs::Span &s : t.spans)
                if (QString::fromStdString(std::string(session->str(s.name))).contains(QStringLiteral("allreduce"), Qt::CaseInsensitive)) {
                    ++expected;
                    ranks.insert(t.rank);
                }
        QVERIFY(expected > 4 && ranks.size() == 4);
        QTest::keyClicks(panel->field(), QStringLiteral("AllReduce"));
        QSignalSpy found(panel->model(), &rs::SliceSearchModel::searchFinished);
        panel->searchNow(); // on the pool: the window keeps answering meanwhile
        QVERIFY(panel->model()->isSearching());
        QCOMPARE(panel->countLabel()->text(), QStringLiteral("Searching…"));
        QVERIFY(panel->stopButton()->isVisible());
        QVERIFY(found.wait(30000));
        QVERIFY(!panel->stopButton()->isVisible());
        QCOMPARE(panel->model()->rowCount(), expected);
        QCOMPARE(panel->countLabel()->text(), QStringLiteral("%1 matches").arg(expected));

        QTest::keyClick(panel->field(), Qt::Key_Return);
        QCOMPARE(w.viewState()->selection(), panel->model()->eventAt(0));
        QCOMPARE(panel->countLabel()->text(), QStringLiteral("1 of %1").arg(expected));
        QTest::keyClick(panel->field(), Qt::Key_Return);
        QCOMPARE(w.viewState()->selection(), panel->model()->eventAt(1));
        QTest::keyClick(panel->field(), Qt::Key_Return, Qt::ShiftModifier);
        QTest::keyClick(panel->field(), Qt::Key_Return, Qt::ShiftModifier); // wraps to the last
        QCOMPARE(w.viewState()->selection(), panel->model()->eventAt(expected - 1));
        // Matches are in time order; the selected one is in view.
        for (int i = 1; i < expected; ++i)
            QVERIFY(panel->model()->index(i, 0).data(rs::SliceSearchModel::StartRole).toLongLong()
                    >= panel->model()->index(i - 1, 0).data(rs::SliceSearchModel::StartRole).toLongLong());

        // Sorted by duration, longest first; stepping to it brings it into a zoomed-in window.
        for (int i = 0; i < 8; ++i)
            QTest::keyClick(w.timeline(), Qt::Key_W);
        auto inView = [&](const rs::EventRef &e) {
            const rs::Track &t = session->tracks()[e.track];
            const rs::TimeNs at = t.spans[e.index].start + w.viewState()->clockOffset(t.rank);
            return at >= w.viewState()->visibleRange().begin && at <= w.viewState()->visibleRange().end;
        };
        panel->results()->sortByColumn(rs::SliceSearchModel::DurationColumn, Qt::DescendingOrder);
        QAbstractItemModel *sorted = panel->results()->model();
        for (int i = 1; i < sorted->rowCount(); ++i)
            QVERIFY(sorted->index(i, 0).data(rs::SliceSearchModel::DurationRole).toLongLong()
                    <= sorted->index(i - 1, 0).data(rs::SliceSearchModel::DurationRole).toLongLong());
        const auto longest = sorted->index(0, 0).data(rs::SliceSearchModel::EventRole).value<rs::EventRef>();
        QTest::keyClick(panel->field(), Qt::Key_Return); // steps in the list's order now: the longest
        QCOMPARE(w.viewState()->selection(), longest);
        QVERIFY(inView(longest));
        if (const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS"); !keep.isEmpty()) {
            w.resize(1600, 1000);
            QCoreApplication::processEvents();
            w.grab().save(QDir(keep).filePath(QStringLiteral("app-find-slices.png")));
        }

        // Enter right after typing (before the pause that starts a search) selects the first match
        // once the search it starts is done; Esc stops a running search.
        panel->results()->sortByColumn(rs::SliceSearchModel::StartColumn, Qt::AscendingOrder);
        panel->field()->clear();
        QTest::keyClicks(panel->field(), QStringLiteral("ProfilerStep#413"));
        QTest::keyClick(panel->field(), Qt::Key_Return);
        QVERIFY(panel->model()->isSearching());
        QVERIFY(found.wait(30000));
        QVERIFY(panel->model()->rowCount() >= 4);
        QCOMPARE(w.viewState()->selection(), panel->results()->model()->index(0, 0).data(rs::SliceSearchModel::EventRole).value<rs::EventRef>());
        QCOMPARE(panel->countLabel()->text(), QStringLiteral("1 of %1").arg(panel->model()->rowCount()));
        QTest::keyClicks(panel->field(), QStringLiteral("4"));
        panel->searchNow();
        QTest::keyClick(panel->field(), Qt::Key_Escape);
        QVERIFY(!panel->model()->isSearching());
        QCOMPARE(panel->countLabel()->text(), QStringLiteral("Search stopped"));
        QVERIFY(!found.wait(300)); // the stopped search's result never lands

        // A regular expression, and a broken one.
        int steps = 0;
        for (const rs::Track &t : session->tracks())
            for (const rs::Span &sp : t.spans)
                steps += session->str(sp.name) == "ProfilerStep#413" || session->str(sp.name) == "ProfilerStep#414";
        QVERIFY(steps >= 8);
        panel->model()->search(QStringLiteral("^ProfilerStep#41[34]$"), true, false);
        QCOMPARE(panel->model()->rowCount(), steps);
        panel->model()->search(QStringLiteral("("), true, false);
        QCOMPARE(panel->model()->rowCount(), 0);
        QVERIFY(panel->model()->error().startsWith(QStringLiteral("Invalid expression")));
    }

    // A CPU launch links to the kernel it queued and back (Details rows), following a link selects
    // the other end and shows both, and an arrow joins them on the timeline.
    // File ▸ Open Recent lists what was opened, from the command line too: a folder (shown as
    // "name/", with or without its trailing slash) and a saved session; each entry reopens it, and
    // the list outlives the window.
    void openRecentSessionsAndFolders()
    {
        QSettings().remove(QStringLiteral("recent"));
        QTemporaryDir dir;
        const QString incident = dir.filePath(QStringLiteral("incident"));
        const QString docPath = dir.filePath(QStringLiteral("incident.rankscope"));
        QVERIFY(copyTree(kDemo, incident));
        const auto labels = [](const QMenu *menu) {
            QStringList out;
            for (const QAction *a : menu->actions())
                if (!a->isSeparator() && a->text() != QStringLiteral("Clear Menu"))
                    out << a->text();
            return out;
        };
        const auto entry = [](const QMenu *menu, const QString &label) -> QAction * {
            for (QAction *a : menu->actions())
                if (a->text().endsWith(QStringLiteral("  ") + label))
                    return a;
            return nullptr;
        };
        {
            Application app(utc());
            QVERIFY(openAndWait(app, {incident + QLatin1Char('/')})); // as a shell completes it
            QMenu *recent = app.window().recentMenu();
            QVERIFY(recent->isEnabled());
            QCOMPARE(labels(recent), QStringList{QStringLiteral("&1  incident/")});
            QSignalSpy saved(&app.sessionFiles(), &rs::SessionFileController::saved);
            app.window().saveSessionTo(docPath);
            QVERIFY(saved.wait(60000));
            QCOMPARE(labels(recent), (QStringList{QStringLiteral("&1  incident.rankscope"), QStringLiteral("&2  incident/")}));
            QVERIFY(openAndWait(app, {incident})); // the same folder again: one entry, moved to the top
            QCOMPARE(labels(recent), (QStringList{QStringLiteral("&1  incident/"), QStringLiteral("&2  incident.rankscope")}));
        }
        Application app(utc());
        rs::MainWindow &w = app.window();
        QMenu *recent = w.recentMenu();
        QCOMPARE(labels(recent), (QStringList{QStringLiteral("&1  incident/"), QStringLiteral("&2  incident.rankscope")}));
        QSignalSpy ready(&app, &Application::ready);
        QAction *session = entry(recent, QStringLiteral("incident.rankscope"));
        QVERIFY(session);
        session->trigger();
        QVERIFY(ready.wait(120000));
        QCOMPARE(w.documentPath(), docPath);
        QVERIFY(w.session() && !w.session()->sources().empty());
        QAction *folder = entry(recent, QStringLiteral("incident/"));
        QVERIFY(folder);
        folder->trigger();
        QVERIFY(ready.wait(120000));
        QVERIFY(w.documentPath().isEmpty()); // the folder, not the session
        for (const rs::Source &s : w.session()->sources())
            QVERIFY2(QString::fromStdString(s.path).startsWith(incident), s.path.c_str());
    }

    // Every long task shows in the status bar with Cancel: the analysis, the compare view's op
    // totals and each writer (figure, report, merged trace). Cancel stops it, says so and leaves no
    // file; View ▸ Analyse Again brings a cancelled analysis back.
    void longTasksShowProgressWithCancel()
    {
        QTemporaryDir dir;
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        rs::TaskMonitor *tasks = w.tasks();
        QVERIFY(!tasks->current());
        QVERIFY(!w.cancelButton()->isVisible());
        auto *status = w.findChild<QLabel *>(QStringLiteral("statusText"));
        auto *taskText = w.findChild<QLabel *>(QStringLiteral("taskText"));

        // The analysis.
        QSignalSpy ready(&app, &Application::ready);
        auto *again = w.findChild<QAction *>(QStringLiteral("analyseAgain"));
        QVERIFY(again);
        again->trigger();
        QVERIFY(tasks->current() && tasks->current()->label.startsWith(QStringLiteral("Analysing 4 ranks")));
        QVERIFY(w.cancelButton()->isVisible() && w.cancelButton()->isEnabled());
        QCOMPARE(taskText->text(), tasks->current()->label);
        QTest::mouseClick(w.cancelButton(), Qt::LeftButton);
        QVERIFY(!tasks->current());
        QVERIFY2(status->text().startsWith(QStringLiteral("Analysis cancelled")), qPrintable(status->text()));
        QVERIFY(!ready.wait(1500)); // its result is dropped
        again->trigger();
        QVERIFY(ready.wait(60000));
        QVERIFY(!tasks->current());

        // The compare view's op totals.
        rs::CompareView *compare = w.compareView();
        const rs::RankId a = compare->diffRankA() == 0 && compare->diffRankB() == 3 ? 1 : 0;
        compare->setDiffRanks(a, 3);
        QVERIFY(tasks->current() && tasks->current()->label.contains(QStringLiteral("op totals")));
        QTest::mouseClick(w.cancelButton(), Qt::LeftButton);
        QVERIFY(!compare->diffPending());
        QVERIFY2(compare->diffStatusLabel()->text().contains(QStringLiteral("stopped")), qPrintable(compare->diffStatusLabel()->text()));
        QVERIFY2(status->text().startsWith(QStringLiteral("Cancelled: Comparing rank %1 with rank 3").arg(a)), qPrintable(status->text()));

        // The writers: each cancelled right after it starts leaves nothing behind; one left alone writes.
        auto *exporter = w.findChild<rs::ExportActions *>();
        QVERIFY(exporter);
        QSignalSpy written(exporter, &rs::ExportActions::written);
        const auto cancelNow = [&](const QString &file, const std::function<void(const QString &)> &start) {
            const QString path = dir.filePath(file);
            start(path);
            QVERIFY(tasks->current()
                    && (tasks->current()->label == QStringLiteral("Writing %1…").arg(file)
                        || tasks->current()->label == QStringLiteral("Exporting %1…").arg(file)));
            QTest::mouseClick(w.cancelButton(), Qt::LeftButton);
            QVERIFY(written.wait(60000));
            QCOMPARE(written.back().at(0).toString(), path);
            QCOMPARE(written.back().at(1).toBool(), false);
            QVERIFY2(written.back().at(2).toString().startsWith(QStringLiteral("cancelled")), qPrintable(written.back().at(2).toString()));
            QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
        };
        cancelNow(QStringLiteral("merged.json.gz"), [&](const QString &p) { exporter->writeTrace(p); });
        cancelNow(QStringLiteral("incident.md"), [&](const QString &p) { exporter->writeReport(p); });
        cancelNow(QStringLiteral("view.png"), [&](const QString &p) {
            exporter->writeFigure(p, rs::FigureExporter::Format::Png, exporter->currentView());
        });
        exporter->writeTrace(dir.filePath(QStringLiteral("merged.json")));
        QVERIFY(written.wait(60000));
        QVERIFY2(written.back().at(1).toBool(), qPrintable(written.back().at(2).toString()));
        QVERIFY(QFileInfo(dir.filePath(QStringLiteral("merged.json"))).size() > 1000);
        QVERIFY(!tasks->current());
        QVERIFY(!w.cancelButton()->isVisible());
    }

    void flowsLinkLaunchAndKernel()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const std::shared_ptr<const rs::Session> session = w.session();
        QVERIFY(session->flows().size() > 100);
        // A launch on rank 1 whose kernel starts a while after it (so the arrow bends visibly).
        const rs::Flow *flow = nullptr;
        for (const rs::Flow &f : session->flows()) {
            const rs::Track &from = session->tracks()[f.from.track];
            const rs::Track &to = session->tracks()[f.to.track];
            if (f.kind == rs::FlowKind::Launch && from.rank == 1 && to.kind == rs::TrackKind::GpuStream
                && to.spans[f.to.span].start - from.spans[f.from.span].start > 20'000) {
                flow = &f;
                break;
            }
        }
        QVERIFY(flow);
        const rs::Span &launch = session->tracks()[flow->from.track].spans[flow->from.span];
        const rs::Span &kernel = session->tracks()[flow->to.track].spans[flow->to.span];
        const rs::TimeNs offset = w.viewState()->clockOffset(1);
        w.viewState()->setVisibleRange({launch.start + offset - 200'000, launch.start + offset + 10'000});
        w.timeline()->ensureEventVisible(rs::EventRef::span(flow->from.track, flow->from.span));
        w.viewState()->setSelection(rs::EventRef::span(flow->from.track, flow->from.span));

        auto *details = w.findChild<rs::DetailsPanel *>();
        QVERIFY(details);
        QList<QTreeWidgetItem *> links = details->flowItems();
        QCOMPARE(links.size(), 1);
        QCOMPARE(links[0]->text(rs::DetailsPanel::FieldColumn), QStringLiteral("Launches"));
        QVERIFY(links[0]->text(rs::DetailsPanel::ValueColumn).contains(QString::fromStdString(std::string(session->str(kernel.name)))));
        // The kernel starts after the window's end: following the link brings both ends in.
        QVERIFY(kernel.start + offset > w.viewState()->visibleRange().end);
        details->followFlow(links[0]);
        QCOMPARE(w.viewState()->selection(), rs::EventRef::span(flow->to.track, flow->to.span));
        const rs::TimeRange visible = w.viewState()->visibleRange();
        QVERIFY(visible.contains(launch.start + offset) && visible.contains(kernel.start + offset));
        links = details->flowItems();
        QCOMPARE(links.size(), 1);
        QCOMPARE(links[0]->text(rs::DetailsPanel::FieldColumn), QStringLiteral("Launched by"));
        QCoreApplication::processEvents();

        // The arrow: from the launch on its CPU lane down to the kernel on its stream, at their starts.
        const std::vector<rs::FlowArrows::Arrow> arrows = rs::FlowArrows::of(*w.timeline(), w.viewState()->selection());
        QCOMPARE(arrows.size(), std::size_t(1));
        const rs::TimeScale scale = w.timeline()->viewScale();
        QCOMPARE(arrows[0].tail.x(), scale.toX(launch.start + offset));
        QCOMPARE(arrows[0].head.x(), scale.toX(kernel.start + offset));
        QVERIFY(arrows[0].head.y() > arrows[0].tail.y()); // GPU streams are laid out under CPU threads
        QVERIFY(arrows[0].head.x() > arrows[0].tail.x());
        // It is painted: the overlay has pixels of the outline colour along the curve's middle.
        const QImage shot = w.timeline()->grab().toImage();
        const QPoint mid = w.timeline()->viewport()->mapTo(w.timeline(), rs::FlowArrows::path(arrows[0]).pointAtPercent(0.5).toPoint());
        const QColor ink = rs::Palette::screen().color(rs::Palette::Role::Outline);
        bool inked = false;
        for (int dy = -3; dy <= 3; ++dy)
            for (int dx = -3; dx <= 3; ++dx) {
                const QColor c = shot.pixelColor(mid + QPoint(dx, dy));
                inked |= std::abs(c.red() - ink.red()) + std::abs(c.green() - ink.green()) + std::abs(c.blue() - ink.blue()) < 60;
            }
        QVERIFY2(inked, "no pixel of the arrow's colour at the middle of its curve");
        if (const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS"); !keep.isEmpty())
            w.grab().save(QDir(keep).filePath(QStringLiteral("app-flow.png")));
        // Clicking the row follows it back (queued, once the view is done with the click).
        details->tree()->scrollToItem(links[0]);
        const QRect row = details->tree()->visualItemRect(links[0]);
        QVERIFY(details->tree()->viewport()->rect().contains(row.center()));
        QTest::mouseClick(details->tree()->viewport(), Qt::LeftButton, {},
                          QPoint(details->tree()->columnViewportPosition(rs::DetailsPanel::ValueColumn) + 10, row.center().y()));
        QTRY_COMPARE(w.viewState()->selection(), rs::EventRef::span(flow->from.track, flow->from.span));
    }

    // Help > About names the version (with the commit it was built from) and the libraries, as
    // --version does.
    void aboutNamesVersionAndLibraries()
    {
        Application app(utc());
        QAction *about = nullptr;
        for (QAction *a : app.window().findChildren<QAction *>())
            if (a->menuRole() == QAction::AboutRole)
                about = a;
        QVERIFY(about);
        QString shown;
        QTimer::singleShot(0, &app.window(), [&shown] {
            for (QWidget *w : QApplication::topLevelWidgets())
                if (auto *box = qobject_cast<QMessageBox *>(w); box && box->isVisible()) {
                    shown = box->text();
                    box->accept();
                }
        });
        about->trigger();
        QVERIFY2(shown.contains(rs::VersionInfo::version().toHtmlEscaped()), qPrintable(shown));
        for (const QString &lib : rs::VersionInfo::libraries())
            QVERIFY2(shown.contains(lib.toHtmlEscaped()), qPrintable(shown));
    }

    // Ctrl+S with the timeline focused after an annotation was edited saves the session; it never
    // zooms the timeline out, also when Save cannot run; Ctrl+W does not zoom either (W alone does).
    void windowShortcutsWinOverTimelineKeys()
    {
        QTemporaryDir dir;
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        QSignalSpy saved(&app.sessionFiles(), &rs::SessionFileController::saved);
        w.saveSessionTo(dir.filePath(QStringLiteral("incident.rankscope")));
        QVERIFY(saved.wait(60000));
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QAction *save = nullptr;
        for (QAction *a : w.findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(QKeySequence::Save))
                save = a;
        QVERIFY(save && save->isEnabled());

        rs::AnnotationStore *store = w.annotationStore();
        QVERIFY(!store->annotations().empty());
        Annotation edited = store->annotations().front();
        edited.text += QStringLiteral(" (checked)");
        QVERIFY(store->update(edited));
        w.timeline()->setFocus();
        QTest::keyClick(w.timeline(), Qt::Key_W); // zoomed in, so a zoom out would show
        const rs::TimeRange before = w.viewState()->visibleRange();
        QVERIFY(before.duration() < w.viewState()->fullRange().duration());
        QTest::keyClick(w.timeline(), Qt::Key_S, Qt::ControlModifier);
        QVERIFY(saved.wait(60000));
        QCOMPARE(saved.count(), 2);
        QCOMPARE(w.viewState()->visibleRange(), before);

        save->setEnabled(false);
        QTest::keyClick(w.timeline(), Qt::Key_S, Qt::ControlModifier);
        QCOMPARE(w.viewState()->visibleRange(), before);
        QTest::keyClick(w.timeline(), Qt::Key_W, Qt::ControlModifier);
        QCOMPARE(w.viewState()->visibleRange(), before);
        QTest::keyClick(w.timeline(), Qt::Key_S); // the plain key still zooms out
        QVERIFY(w.viewState()->visibleRange().duration() > before.duration());
    }

    // The desktop switching to a dark theme while the incident is open turns the timeline dark at
    // once (the palette change reaches it live); back to light, it is white again.
    void timelineFollowsTheDesktopTheme()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        const QPalette light = QApplication::palette();
        QPalette dark = light;
        dark.setColor(QPalette::Window, QColor(0x1f, 0x22, 0x27));
        dark.setColor(QPalette::Base, QColor(0x18, 0x1a, 0x1f));
        dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe8, 0xec));
        dark.setColor(QPalette::Text, QColor(0xe6, 0xe8, 0xec));
        dark.setColor(QPalette::Button, QColor(0x2a, 0x2d, 0x33));
        dark.setColor(QPalette::ButtonText, QColor(0xe6, 0xe8, 0xec));
        QApplication::setPalette(dark);
        QTRY_VERIFY(rs::Palette::screen().isDark());
        rs::TimelineView *timeline = w.timeline();
        QTRY_VERIFY(timeline->viewport()->palette().color(QPalette::Window).lightness() < 80);
        const QImage shot = w.grab().toImage();
        if (const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS"); !keep.isEmpty())
            shot.save(QDir(keep).filePath(QStringLiteral("app-dark.png")));
        // The ruler, right of its labels, is dark.
        const QPoint ruler = timeline->ruler()->mapTo(&w, QPoint(timeline->ruler()->width() - 4, 3));
        QVERIFY2(shot.pixelColor(ruler).lightness() < 80, qPrintable(shot.pixelColor(ruler).name()));
        QApplication::setPalette(light);
        QTRY_VERIFY(!rs::Palette::screen().isDark());
        QTRY_VERIFY(timeline->viewport()->palette().color(QPalette::Window).lightness() > 200);
    }

    // View ▸ Compact Lanes keeps what a compact figure keeps (memory, steps, log, launcher, GPU
    // streams); View ▸ Reset Layout brings back full lanes, every rank shown and expanded.
    void compactLanesAndResetLayout()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        auto action = [&w](const QString &text) -> QAction * {
            for (QAction *a : w.findChildren<QAction *>())
                if (a->text().remove(QLatin1Char('&')) == text)
                    return a;
            return nullptr;
        };
        QAction *compact = action(QStringLiteral("Compact Lanes"));
        QAction *reset = action(QStringLiteral("Reset Layout"));
        QVERIFY(compact && reset && compact->isCheckable());
        rs::RankGroupWidget *g2 = w.timeline()->rankGroup(2);
        QVERIFY(g2);
        const int fullHeight = g2->height();
        auto cpuLanes = [&w](const rs::RankGroupWidget *g) {
            int n = 0;
            for (const rs::Lane &l : g->layout().lanes())
                n += l.is(rs::LaneId::Spans) && w.session()->tracks()[l.track].kind == rs::TrackKind::CpuThread;
            return n;
        };
        QVERIFY(cpuLanes(g2) > 0);
        compact->trigger();
        QVERIFY(w.viewState()->compactLanes());
        QCOMPARE(cpuLanes(g2), 0); // the demo's ranks have GPU streams: they stand for the work
        QVERIFY(g2->layout().memoryLane() && g2->layout().lane(rs::LaneId::Steps) && g2->layout().logLane());
        QVERIFY(g2->layout().lane(rs::LaneId::Launcher)); // why the job ended stays in view
        QTRY_VERIFY(g2->height() < fullHeight);
        if (const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS"); !keep.isEmpty())
            w.grab().save(QDir(keep).filePath(QStringLiteral("app-compact-lanes.png")));

        w.viewState()->setRankHidden(3, true);
        w.viewState()->setRankCollapsed(1, true);
        w.viewState()->setMemoryLaneHeight(200);
        w.viewState()->setLaneHidden(0, QStringLiteral("memory"), rs::kNoTrack, true);
        w.viewState()->setLanePinned(1, QStringLiteral("memory"), rs::kNoTrack, true);
        reset->trigger();
        QVERIFY(w.viewState()->pinnedLanes().empty());
        QCOMPARE(w.viewState()->memoryLaneHeight(), 0);
        QCOMPARE(w.viewState()->hiddenLaneCount(), 0);
        QVERIFY(!w.viewState()->compactLanes());
        QVERIFY(!compact->isChecked());
        QVERIFY(!w.viewState()->isRankHidden(3));
        QVERIFY(!w.viewState()->isRankCollapsed(1));
        QVERIFY(cpuLanes(g2) > 0);
        QTRY_COMPARE(g2->height(), fullHeight);
    }

    // One bad source beside the demo (its trace's clock 30 years off) does not squeeze the view: the
    // axis is the demo's, the status bar says a source was left out, the Import Log says which and why.
    void badSourceIsLeftOutOfTheAxis()
    {
        QTemporaryDir dir;
        const long long thirtyYears = 30LL * 365 * 86400 * 1000000000LL;
        const QString bad = dir.filePath(QStringLiteral("broken-clock.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(rs::test::kinetoTrace(3, 4, 2, 1719792000000000000LL + thirtyYears)));
        }
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        const rs::TimeRange demoRange = app.window().viewState()->fullRange();
        QVERIFY(openAndWait(app, {kDemo, bad}));
        rs::MainWindow &w = app.window();
        QCOMPARE(w.viewState()->fullRange(), demoRange);
        auto *status = w.findChild<QLabel *>(QStringLiteral("statusText"));
        QVERIFY2(status->text().contains(QLatin1String("1 source left out of the time axis")), qPrintable(status->text()));
        const rs::DiagnosticsModel *log = w.importLogPanel()->diagnosticsModel();
        bool named = false;
        for (int row = 0; row < log->rowCount(); ++row)
            named |= log->index(row, rs::DiagnosticsModel::CodeColumn).data().toString() == QLatin1String("time-outside-incident")
                && log->index(row, rs::DiagnosticsModel::FileColumn).data().toString() == QLatin1String("broken-clock.json")
                && log->index(row, rs::DiagnosticsModel::MessageColumn).data().toString().contains(QLatin1String("30 years after"));
        QVERIFY(named);
    }

    // Both tabs render for the demo; with RANKSCOPE_SCREENSHOTS=DIR the pictures are kept to look at.
    void bothTabsRender()
    {
        Application app(utc());
        app.window().resize(1600, 1000);
        app.window().show();
        QVERIFY(openAndWait(app, {kDemo}));
        auto *tabs = app.window().findChild<QTabWidget *>(QStringLiteral("views"));
        QVERIFY(tabs);
        const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS");
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            QTest::qWait(300); // the compare diff runs in the background
            const QImage shot = app.window().grab().toImage();
            QCOMPARE(shot.size(), QSize(1600, 1000));
            if (!keep.isEmpty())
                QVERIFY(shot.save(QDir(keep).filePath(QStringLiteral("app-tab%1.png").arg(i))));
        }
    }

    // File ▸ Export ▸ View as Image opens on the current view with a live preview of the figure.
    void exportDialogPreviewsTheView()
    {
        Application app(utc());
        app.window().resize(1600, 1000);
        app.window().show();
        QVERIFY(openAndWait(app, {kDemo}));
        auto *exporter = app.window().findChild<rs::ExportActions *>();
        QVERIFY(exporter);
        rs::ExportDialog dialog(app.window().session(), app.window().analysis(), exporter->currentView(), &app.window());
        dialog.show();
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.previewLabel()->pixmap().isNull(), 10000);
        QVERIFY(dialog.visibleRangeButton()->isChecked());
        // The whole figure fits the preview box: nothing of it is cut off.
        const QPixmap preview = dialog.previewLabel()->pixmap();
        const QSizeF shown = preview.deviceIndependentSize();
        QVERIFY2(shown.width() <= dialog.previewLabel()->contentsRect().width() + 1
                     && shown.height() <= dialog.previewLabel()->contentsRect().height() + 1,
                 qPrintable(QStringLiteral("preview %1x%2 in a %3x%4 box").arg(shown.width()).arg(shown.height())
                                .arg(dialog.previewLabel()->contentsRect().width()).arg(dialog.previewLabel()->contentsRect().height())));
        const QImage shot = dialog.grab().toImage();
        QVERIFY(!shot.isNull());
        const QString keep = qEnvironmentVariable("RANKSCOPE_SCREENSHOTS");
        if (!keep.isEmpty())
            QVERIFY(shot.save(QDir(keep).filePath(QStringLiteral("export-dialog.png"))));
        if (!keep.isEmpty())
            QVERIFY(preview.toImage().save(QDir(keep).filePath(QStringLiteral("export-preview.png"))));
    }

    // View ▸ Find Track (Ctrl+P) brings the timeline forward and opens the track finder on it.
    void findTrackFromTheMenu()
    {
        Application app(utc());
        app.window().show();
        QVERIFY(openAndWait(app, {kDemo}));
        auto *tabs = app.window().findChild<QTabWidget *>(QStringLiteral("views"));
        tabs->setCurrentWidget(app.window().compareView());
        QAction *find = nullptr;
        for (QAction *a : app.window().findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(Qt::CTRL | Qt::Key_P))
                find = a;
        QVERIFY(find);
        find->trigger();
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget *>(app.window().timeline()));
        auto *finder = app.window().timeline()->findChild<rs::TrackFinder *>();
        QVERIFY(finder);
        QTRY_VERIFY(finder->isVisible());
    }

    // Edit ▸ Copy View Image puts the figure of what the timeline shows on the clipboard.
    void copyViewImage()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        auto *exporter = app.window().findChild<rs::ExportActions *>();
        QVERIFY(exporter);
        QVERIFY(exporter->copyImageAction()->isEnabled());
        QApplication::clipboard()->clear();
        exporter->copyImageAction()->trigger();
        const QImage image = QApplication::clipboard()->image();
        QVERIFY(!image.isNull());
        const qreal dpr = app.window().devicePixelRatioF();
        QCOMPARE(image.width(), qRound(exporter->currentView().width * dpr));
        QVERIFY(image.height() > 600); // four rank groups, legend and the findings block
    }

    // On the Compare Ranks tab, File ▸ Export exports the compare figure against the tab's reference.
    void compareTabExportsCompareFigure()
    {
        Application app(utc());
        QVERIFY(openAndWait(app, {kDemo}));
        rs::MainWindow &w = app.window();
        auto *exporter = w.findChild<rs::ExportActions *>();
        QVERIFY(exporter);
        QCOMPARE(exporter->currentView().view, rs::FigureOptions::View::Timeline);
        auto *tabs = w.findChild<QTabWidget *>(QStringLiteral("views"));
        QVERIFY(tabs);
        tabs->setCurrentWidget(w.compareView());
        QVERIFY(w.compareShown());
        w.compareView()->setReferenceRank(3);
        const rs::FigureOptions view = exporter->currentView();
        QCOMPARE(view.view, rs::FigureOptions::View::Compare);
        QCOMPARE(view.referenceRank, rs::RankId(3));
        QApplication::clipboard()->clear();
        exporter->copyImageAction()->trigger();
        const QImage compare = QApplication::clipboard()->image();
        QVERIFY(!compare.isNull());
        // Not the timeline figure: that one is taller (four rank groups of lanes and the findings).
        rs::FigureOptions timeline = view;
        timeline.view = rs::FigureOptions::View::Timeline;
        timeline.devicePixelRatio = w.devicePixelRatioF();
        QVERIFY(compare.height() < rs::FigureExporter(w.session(), w.analysis()).image(timeline).height());
    }

    void sessionRoundTrip()
    {
        QTemporaryDir dir;
        const QString incident = dir.filePath(QStringLiteral("incident"));
        QVERIFY(copyTree(kDemo, incident));
        const QString docPath = incident + QStringLiteral("/incident.rankscope");

        rs::SessionDocument saved;
        {
            Application app(utc());
            QVERIFY(openAndWait(app, {incident}));
            rs::MainWindow &w = app.window();
            rs::ViewState *state = w.viewState();
            const rs::TimeRange full = state->fullRange();
            Annotation note;
            note.rank = 2;
            note.time = full.begin + full.duration() / 3;
            note.endTime = note.time;
            note.text = QStringLiteral("rank 2 picks up a 10th micro-batch here");
            w.annotationStore()->add(note);
            Annotation range;
            range.kind = Annotation::Kind::Range;
            range.rank = rs::kNoRank;
            range.time = full.begin + full.duration() / 2;
            range.endTime = range.time + full.duration() / 10;
            range.text = QStringLiteral("peers wait in all-reduce");
            w.annotationStore()->add(range);
            QVERIFY(w.isWindowModified());
            // Delete one finding annotation: it must stay deleted after reopening.
            const auto findingIt = std::find_if(w.annotationStore()->annotations().begin(), w.annotationStore()->annotations().end(),
                                                [](const Annotation &a) { return a.origin == Annotation::Origin::Finding; });
            QVERIFY(findingIt != w.annotationStore()->annotations().end());
            w.annotationStore()->remove(findingIt->id);
            state->setRankHidden(3, true);
            state->setRankCollapsed(0, true);
            state->setCompactLanes(true);
            state->setMemoryLaneHeight(150);
            state->setLanePinned(2, QStringLiteral("memory"), rs::kNoTrack, true);
            state->setSelectedRank(2);
            state->setVisibleRange({full.begin + full.duration() / 4, full.begin + full.duration() / 2});
            w.compareView()->setReferenceRank(1);
            QSignalSpy analysed(&app, &Application::ready);
            w.clockOffsetsPanel()->setOffset(1, 1'234'000);
            QVERIFY(analysed.wait(60000));

            QSignalSpy done(&app.sessionFiles(), &rs::SessionFileController::saved);
            w.saveSessionTo(docPath);
            QVERIFY(done.wait(60000));
            QCOMPARE(w.documentPath(), docPath);
            QVERIFY(!w.isWindowModified());
            QVERIFY(w.windowTitle().contains(QLatin1String("incident.rankscope")));
            saved = w.documentState();
        }
        QVERIFY(QFileInfo::exists(docPath));

        Application app(utc());
        QVERIFY(openAndWait(app, {docPath}));
        rs::MainWindow &w = app.window();
        const rs::SessionDocument back = w.documentState();
        QCOMPARE(back.annotations.size(), saved.annotations.size());
        for (std::size_t i = 0; i < saved.annotations.size(); ++i)
            QVERIFY2(back.annotations[i] == saved.annotations[i], qPrintable(saved.annotations[i].text));
        QCOMPARE(back.deletedFindingKeys, saved.deletedFindingKeys);
        QCOMPARE(back.clockOffsets, saved.clockOffsets);
        QCOMPARE(back.clockOffsets.at(1), rs::TimeNs(1'234'000));
        QVERIFY(back.view == saved.view);
        QVERIFY(back.view.compactLanes);
        QVERIFY(w.viewState()->compactLanes());
        QCOMPARE(back.view.memoryLaneHeight, 150);
        QCOMPARE(w.viewState()->memoryLaneHeight(), 150);
        QCOMPARE(back.view.pinned.size(), std::size_t(1));
        QCOMPARE(w.viewState()->pinnedLanes().size(), std::size_t(1));
        QCOMPARE(w.timeline()->pinnedLanes()->rows().size(), std::size_t(1)); // rank 2's memory, under the ruler
        QCOMPARE(w.viewState()->clockOffset(1), rs::TimeNs(1'234'000));
        QCOMPARE(w.documentPath(), docPath);
        QVERIFY(!w.isWindowModified());
        QVERIFY(!w.findChild<QMessageBox *>()); // nothing moved or changed

        // What the window shows exports with the user's annotations in it.
        auto *exporter = w.findChild<rs::ExportActions *>();
        QVERIFY(exporter);
        const rs::FigureOptions view = exporter->currentView();
        QCOMPARE(view.range, saved.view.visible.value());
        QVERIFY(std::any_of(view.annotations.begin(), view.annotations.end(),
                            [](const Annotation &a) { return a.text.contains(QLatin1String("10th micro-batch")); }));
        QVERIFY(std::find(view.ranks.begin(), view.ranks.end(), 3) == view.ranks.end());
        const QString svg = dir.filePath(QStringLiteral("view.svg"));
        QString error;
        QVERIFY2(rs::FigureExporter(w.session(), w.analysis()).exportTo(svg, rs::FigureExporter::Format::Svg, view, &error),
                 qPrintable(error));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("10th micro-batch"));
    }

    void changedSourceIsReported()
    {
        QTemporaryDir dir;
        const QString incident = dir.filePath(QStringLiteral("incident"));
        const QString docPath = incident + QStringLiteral("/incident.rankscope");
        QVERIFY(savedDemoIncident(incident, docPath));
        {
            QFile log(incident + QStringLiteral("/torchrun.log"));
            QVERIFY(log.open(QIODevice::Append));
            log.write("[rank0]: one more line written after the session was saved\n");
        }
        QVERIFY(QFile::remove(incident + QStringLiteral("/nvidia-smi.csv")));
        Application app(utc());
        QVERIFY(openAndWait(app, {docPath}));
        auto *box = app.window().findChild<QMessageBox *>();
        QVERIFY(box);
        QVERIFY2(box->detailedText().contains(QLatin1String("torchrun.log: changed")), qPrintable(box->detailedText()));
        QVERIFY2(box->detailedText().contains(QLatin1String("nvidia-smi.csv: missing")), qPrintable(box->detailedText()));
        // The rest still loaded: four ranks of traces and the log.
        QCOMPARE(app.window().session()->ranks().size(), std::size_t(4));
    }

    // A session file naming a file outside its folder asks before reading it: Ignore loads the rest
    // only, Open loads everything.
    void outsideSourcesNeedConsent_data()
    {
        QTest::addColumn<bool>("open");
        QTest::newRow("ignore") << false;
        QTest::newRow("open") << true;
    }
    void outsideSourcesNeedConsent()
    {
        QFETCH(bool, open);
        QTemporaryDir dir;
        const QString incident = dir.filePath(QStringLiteral("incident"));
        const QString docPath = incident + QStringLiteral("/incident.rankscope");
        QVERIFY(savedDemoIncident(incident, docPath));
        // The log now lives beside the folder: its saved absolute path leads outside.
        const QString outside = dir.filePath(QStringLiteral("torchrun.log"));
        QVERIFY(QFile::rename(incident + QStringLiteral("/torchrun.log"), outside));
        QVERIFY(QFile::link(outside, incident + QStringLiteral("/torchrun.log")));
        Application app(utc());
        QSignalSpy ready(&app, &Application::ready);
        app.open({docPath});
        QMessageBox *question = nullptr;
        QTRY_VERIFY_WITH_TIMEOUT((question = app.window().findChild<QMessageBox *>(QStringLiteral("outsideSourcesQuestion"))), 60000);
        QVERIFY2(question->detailedText().contains(outside), qPrintable(question->detailedText()));
        QVERIFY(ready.isEmpty()); // nothing loads before the answer
        question->button(open ? QMessageBox::Open : QMessageBox::Ignore)->click();
        QVERIFY(ready.wait(120000));
        bool logRead = false;
        for (const rs::Source &src : app.window().session()->sources())
            logRead = logRead || QString::fromStdString(src.path).endsWith(QLatin1String("torchrun.log"));
        QCOMPARE(logRead, open);
        QCOMPARE(app.window().session()->ranks().size(), std::size_t(4));
    }
};

QTEST_MAIN(TestApplication)
#include "test_application.moc"
