// The analysis in the viewer: the findings tree orders by severity then time, carries evidence and
// fix rows and filters; selecting a finding moves the shared ViewState (window, highlight, rank);
// the clock offsets panel shows methods and emits the user's overrides; offsets move what is drawn.
#include "annotations/annotation.h"
#include "findingstyle.h"
#include "models/findingsfiltermodel.h"
#include "models/findingsmodel.h"
#include "panels/clockoffsetspanel.h"
#include "panels/findingspanel.h"
#include "screenshot.h"
#include "testsession.h"
#include "timeformat.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/timelineview.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QTextBrowser>
#include <QDoubleSpinBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTreeView>

#include <algorithm>

using namespace rs;
using namespace rs::test;

namespace {

constexpr TimeNs kSec = 1'000'000'000;

Finding finding(std::string id, Severity s, std::vector<RankId> ranks, std::optional<TimeNs> t, std::optional<TimeNs> end = {})
{
    Finding f;
    f.id = std::move(id);
    f.severity = s;
    f.ranks = std::move(ranks);
    f.timeNs = t;
    f.endNs = end;
    f.title = "title of " + f.id;
    f.fix = "fix for " + f.id;
    return f;
}

std::shared_ptr<const AnalysisResult> makeResult()
{
    auto r = std::make_shared<AnalysisResult>();
    // Deliberately out of order: the model must order them.
    r->findings.push_back(finding("nccl-error", Severity::Medium, {0, 1}, 50 * kSec));
    r->findings.push_back(finding("collective-desync", Severity::High, {0, 1, 3}, 40 * kSec, 60 * kSec));
    r->findings.push_back(finding("driver-mismatch", Severity::Low, {}, std::nullopt));
    r->findings.push_back(finding("oom", Severity::High, {2}, 30 * kSec));
    r->findings[3].evidence.push_back({"torchrun.log:278: CUDA out of memory", "torchrun.log", 278, 30 * kSec, 2});
    r->findings[3].evidence.push_back({"peak allocated 77 GiB of 80 GiB", "", -1, std::nullopt, 2});
    r->findings[0].evidence.push_back({"comm aborted (NCCL WARN)", "", -1, 50 * kSec, 1});
    for (RankId rank : {0, 1, 2, 3}) {
        RankAlignment a;
        a.rank = rank;
        a.offsetNs = rank * 1000;
        a.method = rank == 0 ? AlignmentMethod::Collectives : rank == 3 ? AlignmentMethod::None : AlignmentMethod::Steps;
        a.anchors = rank == 3 ? 0 : 30;
        if (rank != 3)
            a.residualNs = 150;
        r->alignment.push_back(a);
    }
    return r;
}

} // namespace

class TestFindings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void modelOrdersBySeverityThenTime();
    void modelHasEvidenceAndFixChildren();
    void numberColumnMatchesMarkers();
    void filterBySeverityAndText();
    void selectingAFindingMovesTheView();
    void findingPickedElsewhereIsSelected();
    void evidenceJumpsToItsTime();
    void storyAboveTheList_data();
    void storyAboveTheList();
    void consequencesShownAsSuch();
    void offsetsPanelShowsMethods();
    void editingAnOffsetEmitsOverrides();
    void offsetsMoveDrawnSpans();
};

void TestFindings::modelOrdersBySeverityThenTime()
{
    FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setResult(makeResult());
    model.setOrigin(10 * kSec);
    QCOMPARE(model.rowCount(), 4);
    const QStringList expected{"oom", "collective-desync", "nccl-error", "driver-mismatch"};
    for (int row = 0; row < 4; ++row)
        QCOMPARE(model.index(row, 0).data(FindingsModel::IdRole).toString(), expected[row]);
    QCOMPARE(model.index(0, FindingsModel::TimeColumn).data().toString(), QStringLiteral("+20.0 s"));
    QCOMPARE(model.index(0, FindingsModel::TimeColumn).data(Qt::ToolTipRole).toString(), TimeFormat::precise(20 * kSec));
    QCOMPARE(model.index(3, FindingsModel::TimeColumn).data().toString(), QStringLiteral("—"));
    QCOMPARE(model.index(1, FindingsModel::RanksColumn).data().toString(), QStringLiteral("r0,1,3"));
    QCOMPARE(model.index(1, FindingsModel::RanksColumn).data(Qt::ToolTipRole).toString(), QStringLiteral("ranks 0, 1, 3"));
    QCOMPARE(FindingsModel::shortRanksText({2}), QStringLiteral("r2"));
    QCOMPARE(FindingsModel::shortTime(63'600'000'000), QStringLiteral("+63.6 s"));
    QCOMPARE(FindingStyle::severityShortLabel(Severity::Medium), QStringLiteral("Med"));
    QCOMPARE(model.index(0, 0).data(FindingsModel::FindingIndexRole).toInt(), 3);
    QCOMPARE(model.indexOfFinding(3).row(), 0);
    QVERIFY(!model.index(0, FindingsModel::SeverityColumn).data(Qt::DecorationRole).isNull());
    model.setResult(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestFindings::modelHasEvidenceAndFixChildren()
{
    FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setResult(makeResult());
    const QModelIndex oom = model.index(0, 0);
    QCOMPARE(model.rowCount(oom), 3); // two evidence lines + the fix
    const QModelIndex first = model.index(0, 0, oom);
    QCOMPARE(first.parent(), oom);
    QCOMPARE(first.data(FindingsModel::RowKindRole).toInt(), static_cast<int>(FindingsModel::RowKind::Evidence));
    QCOMPARE(first.data(FindingsModel::PathRole).toString(), QStringLiteral("torchrun.log"));
    QCOMPARE(first.data(FindingsModel::LineRole).toLongLong(), 278);
    QCOMPARE(first.data(FindingsModel::TimeRole).toLongLong(), 30 * kSec);
    QVERIFY(!model.index(1, 0, oom).data(FindingsModel::TimeRole).isValid());
    const QModelIndex fix = model.index(2, 0, oom);
    QCOMPARE(fix.data(FindingsModel::RowKindRole).toInt(), static_cast<int>(FindingsModel::RowKind::Fix));
    QCOMPARE(fix.data(FindingsModel::TextRole).toString(), QStringLiteral("fix for oom"));
    QCOMPARE(model.rowCount(first), 0);
}

void TestFindings::numberColumnMatchesMarkers()
{
    // The "#" column is the number the finding's marker carries on the timeline and its badge in a
    // figure (findingNumbers()): row + 1, even for a result that is out of order like this one.
    FindingsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto result = makeResult();
    model.setResult(result);
    QCOMPARE(FindingsModel::NumberColumn, 0);
    QCOMPARE(model.headerData(FindingsModel::NumberColumn, Qt::Horizontal).toString(), QStringLiteral("#"));
    const FindingNumbers numbers = findingNumbers(*result);
    const std::vector<Annotation> annotations = annotationsFromFindings(*result);
    QCOMPARE(annotations.size(), std::size_t(3)); // driver-mismatch has no time
    for (int row = 0; row < model.rowCount(); ++row) {
        const QModelIndex index = model.index(row, FindingsModel::NumberColumn);
        QCOMPARE(index.data().toString(), QString::number(row + 1));
        QCOMPARE(index.data(FindingsModel::NumberRole).toInt(), row + 1);
        const Finding &f = result->findings[static_cast<std::size_t>(index.data(FindingsModel::FindingIndexRole).toInt())];
        QCOMPARE(numbers.at(findingKey(f)), row + 1);
        for (const Annotation &a : annotations)
            if (a.findingKey == findingKey(f))
                QCOMPARE(findingNumber(numbers, a), row + 1);
        // Child rows carry their finding's number, and keep their text in the first column.
        const QModelIndex parent = model.index(row, 0);
        for (int c = 0; c < model.rowCount(parent); ++c) {
            QCOMPARE(model.index(c, 0, parent).data(FindingsModel::NumberRole).toInt(), row + 1);
            QVERIFY(!model.index(c, 0, parent).data().toString().isEmpty());
            QVERIFY(!model.index(c, FindingsModel::NumberColumn + 1, parent).data().isValid());
        }
    }
    QCOMPARE(findingOrder(*result), (std::vector<int>{3, 1, 0, 2}));
    Annotation user = annotations.front();
    user.origin = Annotation::Origin::User;
    QCOMPARE(findingNumber(numbers, user), 0); // a user annotation has no number
    Annotation stale = annotations.front();
    stale.findingKey = "gone|1|5";
    QCOMPARE(findingNumber(numbers, stale), 0); // nor one whose finding the analysis dropped
}

void TestFindings::filterBySeverityAndText()
{
    FindingsModel model;
    FindingsFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setResult(makeResult());
    QCOMPARE(proxy.rowCount(), 4);
    proxy.setMinimumSeverity(Severity::High);
    QCOMPARE(proxy.rowCount(), 2);
    proxy.setMinimumSeverity(Severity::Medium);
    QCOMPARE(proxy.rowCount(), 3);
    proxy.setMinimumSeverity(Severity::Info);
    proxy.setText(QStringLiteral("cuda OUT of memory")); // an evidence line
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.index(0, 0).data(FindingsModel::IdRole).toString(), QStringLiteral("oom"));
    QCOMPARE(proxy.rowCount(proxy.index(0, 0)), 3); // children follow their finding
    proxy.setText(QStringLiteral("desync"));
    QCOMPARE(proxy.rowCount(), 1);
    proxy.setText(QString());
    QCOMPARE(proxy.rowCount(), 4);
}

void TestFindings::selectingAFindingMovesTheView()
{
    ViewState state;
    state.setFullRange({0, 100 * kSec});
    FindingsPanel panel(&state);
    QSignalSpy highlight(&state, &ViewState::highlightChanged);
    panel.setResult(makeResult());
    QVERIFY(panel.selectTopFinding());
    QCOMPARE(panel.currentFinding(), 3);
    QCOMPARE(state.highlight().ranks, std::vector<RankId>{2});
    QCOMPARE(state.visibleRange(), *FindingsPanel::windowFor(makeResult()->findings[3]));
    QVERIFY(state.visibleRange().contains(30 * kSec));
    QCOMPARE(state.selectedRank(), 2);
    QCOMPARE(highlight.count(), 1);
    QVERIFY(panel.detailsView()->toPlainText().contains(QStringLiteral("fix for oom")));

    // A region finding shows its whole region.
    panel.selectFinding(1);
    QCOMPARE(state.highlight().ranks, (std::vector<RankId>{0, 1, 3}));
    QCOMPARE(state.highlight().range, (TimeRange{40 * kSec, 60 * kSec}));
    QVERIFY(state.visibleRange().begin < 40 * kSec && state.visibleRange().end > 60 * kSec);
    QCOMPARE(state.selectedRank(), 0);

    // A re-analysis keeps the selection and does not move the view.
    state.setVisibleRange({1 * kSec, 2 * kSec});
    panel.setResult(makeResult());
    QCOMPARE(panel.currentFinding(), 1);
    QCOMPARE(state.visibleRange(), (TimeRange{1 * kSec, 2 * kSec}));

    // A hidden finding is revealed by clearing the filter.
    panel.severityCombo()->setCurrentIndex(3); // high only
    panel.selectFinding(0);                    // medium
    QCOMPARE(panel.currentFinding(), 0);
    panel.setResult(nullptr);
    QVERIFY(state.highlight().isNone());
}

void TestFindings::findingPickedElsewhereIsSelected()
{
    // A click on a finding's marker on the timeline sets ViewState::selectedFinding: the panel
    // selects that finding as if it was clicked there (row, details, highlight, window), and its
    // own selection is mirrored back.
    ViewState state;
    state.setFullRange({0, 100 * kSec});
    FindingsPanel panel(&state);
    panel.setResult(makeResult());
    QCOMPARE(state.selectedFinding(), -1);
    state.setSelectedFinding(1); // collective-desync, row 2
    QCOMPARE(panel.currentFinding(), 1);
    QCOMPARE(panel.tree()->currentIndex().data(FindingsModel::NumberRole).toInt(), 2);
    QCOMPARE(state.highlight().ranks, (std::vector<RankId>{0, 1, 3}));
    QVERIFY(state.visibleRange().begin < 40 * kSec && state.visibleRange().end > 60 * kSec);
    QVERIFY(panel.detailsView()->toPlainText().contains(QStringLiteral("#2 HIGH")));
    panel.selectFinding(3);
    QCOMPARE(state.selectedFinding(), 3);
    // A new session clears it, and the panel's selection with it.
    state.setFullRange({0, 50 * kSec});
    QCOMPARE(state.selectedFinding(), -1);
    QCOMPARE(panel.currentFinding(), -1);
    QVERIFY(state.highlight().isNone());
}

void TestFindings::evidenceJumpsToItsTime()
{
    ViewState state;
    state.setFullRange({0, 100 * kSec});
    FindingsPanel panel(&state);
    panel.setResult(makeResult());
    panel.activateEvidence(0, 0); // nccl-error: comm aborted at 50 s on rank 1
    QVERIFY(state.visibleRange().contains(50 * kSec));
    QCOMPARE(state.visibleRange().duration(), FindingsPanel::kMomentWindowNs);
    QCOMPARE(state.selectedRank(), 1);
}

// The incident's story sits above the list (its culprit rank a link that shows the cause); with
// nothing found it is hidden and the empty page says what was read instead.
void TestFindings::storyAboveTheList_data()
{
    QTest::addColumn<QString>("scenario"); // "incident", "nothing found", "no result"
    QTest::addColumn<bool>("shown");
    QTest::addColumn<QString>("says");
    QTest::newRow("incident") << "incident" << true << "href='rank:2'";
    QTest::newRow("near miss: nothing found") << "nothing found" << false << "No findings";
    QTest::newRow("near miss: no result") << "no result" << false << "No findings yet";
}

void TestFindings::storyAboveTheList()
{
    QFETCH(QString, scenario);
    QFETCH(bool, shown);
    QFETCH(QString, says);
    ViewState state;
    state.setFullRange({0, 100 * kSec});
    FindingsPanel panel(&state);
    panel.resize(420, 640);
    std::shared_ptr<AnalysisResult> result;
    if (scenario == QLatin1String("incident")) {
        result = std::make_shared<AnalysisResult>(*makeResult());
        result->findings[3].title = "Rank 2 ran out of GPU memory";
    } else if (scenario == QLatin1String("nothing found")) {
        result = std::make_shared<AnalysisResult>();
    }
    panel.setResult(result);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QCOMPARE(panel.storyLabel()->isVisible(), shown);
    if (!shown) {
        QVERIFY(panel.storyLabel()->text().isEmpty());
        QList<QLabel *> labels = panel.findChildren<QLabel *>();
        const bool any = std::any_of(labels.begin(), labels.end(), [&](QLabel *l) { return l->isVisible() && l->text().contains(says); });
        QVERIFY2(any, qPrintable(says));
        return;
    }
    const QString text = panel.storyLabel()->text();
    QVERIFY2(text.startsWith(QStringLiteral("<b><a href='rank:2'")) && text.contains(says), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("Fix:")) && text.contains(QStringLiteral("fix for oom")), qPrintable(text));
    // Above the list, wrapped to the panel's width.
    QVERIFY(panel.storyLabel()->mapTo(&panel, QPoint()).y() < panel.tree()->mapTo(&panel, QPoint()).y());
    QVERIFY(panel.storyLabel()->width() <= panel.width());
    QVERIFY(panel.storyLabel()->wordWrap());
    // The culprit's link picks the rank and selects the cause.
    Q_EMIT panel.storyLabel()->linkActivated(QStringLiteral("rank:2"));
    QCOMPARE(state.selectedRank(), 2);
    QCOMPARE(panel.currentFinding(), 3);
    panel.selectFinding(1); // a consequence, to look at
    QVERIFY(rs::test::keepScreenshot(panel.grab().toImage(), QStringLiteral("findings-story.png")));
}

// The desync (40 s) and the NCCL error (50 s) followed the OOM (30 s): each reads "↳", names #1 and
// shows its fix; the driver mismatch stands apart and keeps its own.
void TestFindings::consequencesShownAsSuch()
{
    FindingsModel model;
    model.setResult(makeResult());
    const QStringList roles{"cause", "consequence", "consequence", "unrelated"};
    for (int row = 0; row < 4; ++row) {
        const QModelIndex i = model.index(row, FindingsModel::TitleColumn);
        const auto role = static_cast<StoryRole>(i.data(FindingsModel::StoryRoleRole).toInt());
        QCOMPARE(QString::fromLatin1(storyRoleName(role)), roles[row]);
        QCOMPARE(i.data().toString().startsWith(QStringLiteral("↳ ")), role == StoryRole::Consequence);
        QCOMPARE(i.data(FindingsModel::RelatedNumberRole).toInt(), role == StoryRole::Consequence ? 1 : 0);
        QCOMPARE(i.data(FindingsModel::TextRole).toString(), QStringLiteral("title of ") + i.data(FindingsModel::IdRole).toString());
    }
    QVERIFY(model.index(1, FindingsModel::TitleColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Consequence of #1")));

    ViewState state;
    state.setFullRange({0, 100 * kSec});
    FindingsPanel panel(&state);
    panel.setResult(makeResult());
    panel.selectFinding(1); // the desync
    const QString details = panel.detailsView()->toPlainText();
    QVERIFY2(details.contains(QStringLiteral("Consequence of #1")) && details.contains(QStringLiteral("Fix (of #1, the cause)"))
                 && details.contains(QStringLiteral("fix for oom")) && !details.contains(QStringLiteral("fix for collective-desync")),
             qPrintable(details));
    panel.selectFinding(2); // driver-mismatch: its own fix
    QVERIFY(panel.detailsView()->toPlainText().contains(QStringLiteral("fix for driver-mismatch")));
    QVERIFY(!panel.detailsView()->toPlainText().contains(QStringLiteral("Consequence of")));
}

void TestFindings::offsetsPanelShowsMethods()
{
    ClockOffsetsPanel panel;
    panel.setResult(makeResult());
    QCOMPARE(panel.table()->rowCount(), 4);
    QCOMPARE(panel.table()->item(panel.rowOf(0), ClockOffsetsPanel::MethodColumn)->text(), QStringLiteral("collectives"));
    QCOMPARE(panel.table()->item(panel.rowOf(1), ClockOffsetsPanel::MethodColumn)->text(), QStringLiteral("steps"));
    QCOMPARE(panel.table()->item(panel.rowOf(3), ClockOffsetsPanel::MethodColumn)->text(), QStringLiteral("none"));
    QCOMPARE(panel.table()->item(panel.rowOf(3), ClockOffsetsPanel::AnchorsColumn)->text(), QStringLiteral("—"));
    QCOMPARE(panel.table()->item(panel.rowOf(1), ClockOffsetsPanel::AnchorsColumn)->text(), QStringLiteral("30"));
    QCOMPARE(panel.offsetEditor(2)->value(), 2.0); // 2000 ns in µs
}

void TestFindings::editingAnOffsetEmitsOverrides()
{
    ClockOffsetsPanel panel;
    QSignalSpy edited(&panel, &ClockOffsetsPanel::clockOffsetsEdited);
    panel.setResult(makeResult());
    QCOMPARE(edited.count(), 0); // filling the table is no edit
    panel.offsetEditor(1)->setValue(500.0);
    QCOMPARE(edited.count(), 1);
    const auto map = edited.takeFirst().at(0).value<std::map<RankId, TimeNs>>();
    QCOMPARE(map.size(), std::size_t(1));
    QCOMPARE(map.at(1), TimeNs(500'000));
    QCOMPARE(panel.effectiveOffsets().value(1), TimeNs(500'000));
    QCOMPARE(panel.effectiveOffsets().value(2), TimeNs(2000));
    QCOMPARE(panel.table()->item(panel.rowOf(1), ClockOffsetsPanel::MethodColumn)->text(), QStringLiteral("user"));

    // The re-analysis reports the rank as the user's; the estimate is still known for Reset.
    auto after = std::make_shared<AnalysisResult>(*makeResult());
    after->alignment[1].offsetNs = 500'000;
    after->alignment[1].method = AlignmentMethod::User;
    panel.setResult(after);
    QCOMPARE(edited.count(), 0);
    QCOMPARE(panel.offsetEditor(1)->value(), 500.0);
    panel.resetOffset(1);
    QCOMPARE(edited.count(), 1);
    using OffsetMap = std::map<RankId, TimeNs>;
    QVERIFY(edited.takeFirst().at(0).value<OffsetMap>().empty());
    QCOMPARE(panel.effectiveOffsets().value(1), TimeNs(1000));
    QCOMPARE(panel.offsetEditor(1)->value(), 1.0);
}

void TestFindings::offsetsMoveDrawnSpans()
{
    const TestSession t = makeTestSession();
    ViewState state;
    TimelineView view(&state);
    view.resize(view.gutterWidth() + 1000, 600);
    view.setSession(t.session);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    RankGroupWidget *g = view.rankGroup(0);
    const QRectF before = g->spanRect(t.cpu0, t.linearB);
    const QPoint hitBefore = before.center().toPoint();
    QCOMPARE(g->hitTest(hitBefore), EventRef::span(t.cpu0, t.linearB));
    state.setClockOffsets({{0, 1000}}); // 1 µs = 100 px at 10 ns per pixel
    const QRectF after = g->spanRect(t.cpu0, t.linearB);
    QCOMPARE(after.left() - before.left(), 100.0);
    QVERIFY(!(g->hitTest(hitBefore + QPoint(-120, 0)) == EventRef::span(t.cpu0, t.linearB)));
    QCOMPARE(g->hitTest(after.center().toPoint()), EventRef::span(t.cpu0, t.linearB));

    // The highlight reaches the groups without disturbing anything else.
    state.setHighlight({{0}, {kBase + 2000, kBase + 5000}});
    QCOMPARE(state.highlight().ranks, std::vector<RankId>{0});
    state.setFullRange(state.fullRange());
    QVERIFY(state.highlight().isNone());
}

QTEST_MAIN(TestFindings)
#include "test_findings.moc"
