// The compare view (viewer/compare): the metrics, op-diff and step-diff models under
// QAbstractItemModelTester, deviation colours, sorting with missing values last, the small
// multiples drawn offscreen for the demo incident (the OOM rank's marker, the reference's curve)
// and the 8-rank DLRM sample, and the whole CompareView with its default ranks and async diff.

#include "analyzer.h"
#include "screenshot.h"
#include "compare/comparesortfiltermodel.h"
#include "compare/compareview.h"
#include "compare/rankdiff.h"
#include "compare/opdiffmodel.h"
#include "compare/rankmetricsmodel.h"
#include "compare/referencerank.h"
#include "compare/smallmultiples.h"
#include "compare/smallmultiplespainter.h"
#include "compare/stepdiffmodel.h"
#include "export/comparefigure.h"
#include "darkdesktop.h"
#include "palette.h"
#include "importerregistry.h"
#include "rankcolors.h"
#include "sessionbuilder.h"
#include "timeformat.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

using namespace rs;

namespace {

SessionPtr loadDir(const QString &dir)
{
    SessionBuilder sb;
    int n = 0;
    for (const std::string &path : ImporterRegistry::expandPaths({dir.toStdString()})) {
        if (path.ends_with(".md"))
            continue;
        ImportContext ctx;
        ctx.timeZone = "UTC";
        sb.addSource(ImporterRegistry::instance().importFile(path, ctx));
        ++n;
    }
    return n ? sb.freeze() : nullptr;
}

// The view state as the app sets it up: the session's range and the analysis' offsets.
void prepare(ViewState &state, const Session &s, const AnalysisResult &r)
{
    QHash<RankId, TimeNs> offsets;
    TimeRange full;
    for (const Rank &rank : s.ranks()) {
        const TimeNs off = r.offsetOf(rank.id);
        offsets.insert(rank.id, off);
        full = full.united({rank.timeRange.begin + off, rank.timeRange.end + off});
    }
    state.setClockOffsets(offsets);
    state.setFullRange(full);
}

RankMetrics metrics(RankId rank, std::optional<std::int64_t> peak, std::optional<TimeNs> step, bool oom = false)
{
    RankMetrics m;
    m.rank = rank;
    m.peakAllocatedBytes = peak;
    m.stepTimeMedianNs = step;
    m.steps = 3;
    m.oom = oom;
    m.oomCount = oom ? 1 : 0;
    return m;
}

std::shared_ptr<const AnalysisResult> handMade()
{
    auto r = std::make_shared<AnalysisResult>();
    constexpr std::int64_t GiB = 1LL << 30;
    r->metrics = {metrics(0, 10 * GiB, 1'000'000'000), metrics(1, 10 * GiB + GiB / 8, 1'010'000'000),
                  metrics(2, 30 * GiB, std::nullopt, true), metrics(3, std::nullopt, 990'000'000)};
    return r;
}

int countColor(const QImage &img, const QRect &r, QRgb rgb)
{
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            n += (img.pixel(x, y) & 0xffffff) == (rgb & 0xffffff);
    return n;
}

// Dark neutral pixels: the reference curve (the rank's own curves are coloured).
int countGrey(const QImage &img, const QRect &r)
{
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c = img.pixelColor(x, y);
            n += std::max({c.red(), c.green(), c.blue()}) - std::min({c.red(), c.green(), c.blue()}) < 14 && c.value() < 200;
        }
    return n;
}

// The demo incident read and analysed, with small multiples over it.
struct DemoMultiples {
    SessionPtr session;
    std::shared_ptr<const AnalysisResult> analysis;
    ViewState state;
    std::unique_ptr<SmallMultiples> widget;

    bool open()
    {
        session = loadDir(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"));
        if (!session)
            return false;
        analysis = std::make_shared<const AnalysisResult>(Analyzer::run(*session));
        prepare(state, *session, *analysis);
        widget = std::make_unique<SmallMultiples>(&state);
        widget->setSession(session);
        widget->setAnalysis(analysis);
        return true;
    }
};

QImage renderMultiples(const SmallMultiples &w, QSize size)
{
    QImage img(size, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    QPainter p(&img);
    w.render(p, QRect(QPoint(0, 0), size));
    return img;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void metricsModel();
    void deviationColors();
    void sortMissingLast_data();
    void sortMissingLast();
    void diffModels();
    void demoSmallMultiples();
    void smallMultiplesFollowTheDesktopTheme();
    void dlrmSmallMultiples();
    void compareView();
    void timesAreNotDeviations_data();
    void timesAreNotDeviations();
    void cutOffStepDiff();
};

void TestCompare::metricsModel()
{
    RankMetricsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setAnalysis(handMade(), 0);
    model.setReferenceRank(0);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.columnCount(), int(RankMetricsModel::ColumnCount));
    const auto cell = [&](int row, int col) { return model.index(row, col); };
    QVERIFY(cell(0, 0).data(RankMetricsModel::IsReferenceRole).toBool());
    QVERIFY(cell(0, 0).data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(cell(0, 1).data(Qt::ToolTipRole).toString().contains(QLatin1String("reference")));
    QCOMPARE(cell(1, RankMetricsModel::PeakAllocatedColumn).data(RankMetricsModel::DeviationRole).toDouble(), 0.0125);
    QCOMPARE(cell(2, RankMetricsModel::PeakAllocatedColumn).data(RankMetricsModel::DeviationRole).toDouble(), 2.0);
    QCOMPARE(cell(2, RankMetricsModel::OomColumn).data(RankMetricsModel::DeviationRole).toDouble(), 1.0);
    QVERIFY(!cell(3, RankMetricsModel::PeakAllocatedColumn).data(RankMetricsModel::DeviationRole).isValid());
    QVERIFY(!cell(3, RankMetricsModel::PeakAllocatedColumn).data(RankMetricsModel::SortRole).isValid());
    QCOMPARE(cell(2, RankMetricsModel::PeakAllocatedColumn).data().toString(), TimeFormat::bytes(30.0 * double(1LL << 30)));
    QCOMPARE(cell(2, RankMetricsModel::OomColumn).data().toString(), QStringLiteral("OOM"));
    // 1.25 % is "the same" (white); 200 % is the hottest colour.
    QCOMPARE(cell(1, RankMetricsModel::PeakAllocatedColumn).data(Qt::BackgroundRole).value<QColor>(), QColor(Qt::white));
    QCOMPARE(cell(2, RankMetricsModel::PeakAllocatedColumn).data(Qt::BackgroundRole).value<QColor>(),
             RankMetricsModel::deviationColor(1.0));
    // The step column is measured against the new reference once it changes.
    model.setReferenceRank(1);
    QVERIFY(cell(1, 1).data(RankMetricsModel::IsReferenceRole).toBool());
    QCOMPARE(cell(0, RankMetricsModel::PeakAllocatedColumn).data(RankMetricsModel::DeviationRole).toDouble(),
             -double((1LL << 30) / 8) / double(10 * (1LL << 30) + (1LL << 30) / 8));
    model.setAnalysis(nullptr, 0);
    QCOMPARE(model.rowCount(), 0);
}

void TestCompare::deviationColors()
{
    QCOMPARE(RankMetricsModel::deviationColor(0), QColor(Qt::white));
    QCOMPARE(RankMetricsModel::deviationColor(-0.01), QColor(Qt::white));
    QCOMPARE(RankMetricsModel::deviationColor(-0.5), RankMetricsModel::deviationColor(0.5));
    // Warmer the larger: blue falls away first, then green.
    double lastCool = 3.0;
    for (double d : {0.03, 0.05, 0.1, 0.25, 0.5, 1.0}) {
        const QColor c = RankMetricsModel::deviationColor(d);
        const double cool = c.greenF() + c.blueF();
        QVERIFY2(cool < lastCool, qPrintable(QString::number(d)));
        lastCool = cool;
    }
    QCOMPARE(RankMetricsModel::deviationColor(5.0), RankMetricsModel::deviationColor(1.0));
    // Steps: the reference length is neutral, slower ones warm, faster ones cool.
    const QColor same = SmallMultiples::stepColor(100, 100), slow = SmallMultiples::stepColor(150, 100),
                 fast = SmallMultiples::stepColor(60, 100);
    QVERIFY(slow.redF() > slow.blueF() && same != slow && same != fast);
    QVERIFY(fast.greenF() > fast.redF());
}

void TestCompare::sortMissingLast_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<int>("order");
    QTest::addColumn<QList<int>>("ranks");
    QTest::newRow("peak ascending") << int(RankMetricsModel::PeakAllocatedColumn) << int(Qt::AscendingOrder) << QList<int>{0, 1, 2, 3};
    QTest::newRow("peak descending") << int(RankMetricsModel::PeakAllocatedColumn) << int(Qt::DescendingOrder) << QList<int>{2, 1, 0, 3};
    QTest::newRow("step ascending") << int(RankMetricsModel::StepTimeColumn) << int(Qt::AscendingOrder) << QList<int>{3, 0, 1, 2};
    QTest::newRow("step descending") << int(RankMetricsModel::StepTimeColumn) << int(Qt::DescendingOrder) << QList<int>{1, 0, 3, 2};
    QTest::newRow("oom descending") << int(RankMetricsModel::OomColumn) << int(Qt::DescendingOrder) << QList<int>{2, 3, 1, 0};
    QTest::newRow("rank descending") << int(RankMetricsModel::RankColumn) << int(Qt::DescendingOrder) << QList<int>{3, 2, 1, 0};
}

void TestCompare::sortMissingLast()
{
    QFETCH(int, column);
    QFETCH(int, order);
    QFETCH(QList<int>, ranks);
    RankMetricsModel model;
    model.setAnalysis(handMade(), 0);
    model.setReferenceRank(0);
    CompareSortFilterModel proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.sort(column, Qt::SortOrder(order));
    QList<int> got;
    for (int r = 0; r < proxy.rowCount(); ++r)
        got << proxy.index(r, 0).data(RankMetricsModel::RankRole).toInt();
    QCOMPARE(got, ranks);
}

void TestCompare::diffModels()
{
    SessionBuilder sb;
    for (RankId rank : {0, 1}) {
        SourceBuilder b("rank" + std::to_string(rank) + ".json");
        b.source().ranks = {rank};
        b.source().hasClock = true;
        const TrackId cpu = b.track(TrackKind::CpuThread, 1, 1);
        const TrackId gpu = b.track(TrackKind::GpuStream, 0, 7, 0);
        const StringId op = b.intern("cpu_op"), kernel = b.intern("kernel");
        const TimeNs t0 = 1'700'000'000'000'000'000;
        b.addSpan(cpu, {t0, 1000 + rank * 500, b.intern("aten::mm"), op, kNoArgs, 0, 0});
        b.addSpan(cpu, {t0 + 5000, 300, b.intern(rank ? "aten::add" : "aten::mul"), op, kNoArgs, 0, 0});
        b.addSpan(gpu, {t0 + 100, 800 + rank * 100, b.intern("gemm"), kernel, kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
        b.addSpan(cpu, {t0 - 10, 9000 + rank * 1000, b.intern("ProfilerStep#5"), op, kNoArgs, 0, SpanFlagStep});
        b.addStep({5, {t0 - 10, t0 - 10 + 9000 + rank * 1000}, cpu});
        if (rank == 1)
            b.addStep({6, {t0 + 20000, t0 + 30000}, cpu});
        b.finish();
        sb.addSource(std::move(b));
    }
    const SessionPtr s = sb.freeze();
    const auto ta = OpTotals::compute(*s, 0), tb = OpTotals::compute(*s, 1);
    OpDiffModel ops;
    QAbstractItemModelTester t1(&ops, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ops.setDiff(s, RankDiff::ops(*s, ta, tb), 0, 1);
    QCOMPARE(ops.rowCount(), 4);
    QCOMPARE(ops.index(0, OpDiffModel::NameColumn).data().toString(), QStringLiteral("aten::mm"));
    QCOMPARE(ops.index(0, OpDiffModel::TimeDeltaColumn).data().toString(), QStringLiteral("+500 ns"));
    QCOMPARE(ops.index(0, OpDiffModel::TimeDeltaColumn).data(Qt::ForegroundRole).value<QColor>(), deltaColor(1));
    QCOMPARE(ops.headerData(OpDiffModel::TimeBColumn, Qt::Horizontal).toString(), QStringLiteral("Time r1"));
    CompareSortFilterModel proxy;
    proxy.setSourceModel(&ops);
    proxy.setFilterKeyColumn(OpDiffModel::NameColumn);
    QAbstractItemModelTester t2(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setKindFilter(int(OpKind::Kernel));
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("gemm"));
    QCOMPARE(proxy.index(0, OpDiffModel::BytesAColumn).data().toString(), QStringLiteral("\u2014"));
    proxy.setKindFilter(-1);
    proxy.setTextFilter(QStringLiteral("ATEN::M"));
    QCOMPARE(proxy.rowCount(), 2); // mm and mul
    proxy.setTextFilter({});
    proxy.sort(OpDiffModel::CountAColumn, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, 0).data().toString(), QStringLiteral("aten::add")); // 0 calls on rank 0
    QVERIFY(proxy.index(0, 0).data(OpDiffModel::OneSidedRole).toBool());
    QVERIFY(proxy.index(0, 0).data(Qt::ToolTipRole).toString().contains(QLatin1String("only on rank 1")));

    StepDiffModel steps;
    QAbstractItemModelTester t3(&steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
    steps.setSteps(RankDiff::steps(*s, 0, 1), 0, 1);
    QCOMPARE(steps.rowCount(), 2);
    QCOMPARE(steps.index(0, StepDiffModel::DeltaColumn).data().toString(), QStringLiteral("+1.00 \u00b5s"));
    QCOMPARE(steps.index(0, StepDiffModel::RelativeColumn).data().toString(), QStringLiteral("+11.1 %"));
    QCOMPARE(steps.index(1, StepDiffModel::DurationAColumn).data().toString(), QStringLiteral("\u2014"));
    CompareSortFilterModel stepProxy;
    stepProxy.setSourceModel(&steps);
    stepProxy.sort(StepDiffModel::DeltaColumn, Qt::DescendingOrder);
    QCOMPARE(stepProxy.index(1, 0).data().toString(), QStringLiteral("6")); // no delta: last
    steps.clear();
    ops.clear();
    QCOMPARE(ops.rowCount(), 0);
}

void TestCompare::demoSmallMultiples()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    if (!QDir(demo).exists())
        QSKIP("resources/demo is not present");
    DemoMultiples demoSet;
    QVERIFY(demoSet.open());
    const SessionPtr s = demoSet.session;
    const auto r = demoSet.analysis;
    SmallMultiples &w = *demoSet.widget;
    ViewState &state = demoSet.state;
    const RankId ref = ReferenceRank::pick(r->metrics);
    w.setReferenceRank(ref);
    QCOMPARE(w.shownRanks(), (std::vector<RankId>{0, 1, 2, 3}));
    const QSize size(1200, 4 * SmallMultiples::kRowHeight + SmallMultiples::kAxisHeight);
    const QImage img = renderMultiples(w, size);
    rs::test::keepScreenshot(img, QStringLiteral("compare-demo-multiples.png"));
    const QRect figure(QPoint(0, 0), size);
    // The OOM marker: solid red only in rank 2's row.
    const QRgb red = SmallMultiples::oomColor().rgb();
    QVERIFY2(countColor(img, w.plotRect(2, figure), red) > 20, "rank 2 shows its out-of-memory marker");
    for (RankId k : {0, 1, 3})
        QCOMPARE(countColor(img, w.plotRect(k, figure), red), 0);
    // The reference's curve is drawn in the other rows, and only there.
    // Rank 2's own curve stops at its OOM; the reference's runs on past it.
    const RankId other = 2;
    const int withGhost = countGrey(img, w.plotRect(other, figure));
    w.setShowReference(false);
    const int without = countGrey(renderMultiples(w, size), w.plotRect(other, figure));
    qInfo("reference rank %d; grey pixels in rank %d's row: %d with the reference curve, %d without", ref, other, withGhost, without);
    QVERIFY(withGhost > without + 100);
    // Rank 2's memory climbs to the capacity: its filled area covers more of its row than rank 0's.
    const auto filled = [&](RankId k) {
        int n = 0;
        const QRect pr = w.plotRect(k, figure);
        for (int y = pr.top(); y <= pr.bottom(); ++y)
            for (int x = pr.left(); x <= pr.right(); x += 2)
                n += img.pixelColor(x, y).saturation() > 30;
        return n;
    };
    QVERIFY(filled(2) > 0 && filled(0) > 0);
    // Steps have their strip: the reference's steps are neutral, step 414 of rank 2 is not.
    const QRect strip = w.stripRect(2, figure);
    QVERIFY(!strip.isEmpty());
    // Rank 2's step 414 ended in its OOM: hatched grey as cut off, never green as a fast step.
    const QRgb cut = SmallMultiplesPainter::incompleteStepColor().rgb();
    QVERIFY2(countColor(img, strip, cut) > 20, "rank 2's cut-off step is drawn as such");
    for (const Step &st : s->rank(2)->steps)
        if (st.incomplete)
            QCOMPARE(st.number, std::int64_t(414));
    SmallMultiplesPainter painter;
    painter.setSession(s);
    painter.setAnalysis(r);
    painter.setRanks({0, 1, 2, 3});
    painter.setReferenceRank(ref);
    painter.setClockOffsets({{2, r->offsetOf(2)}});
    const TimeNs inLast = s->rank(2)->steps.back().range.begin + r->offsetOf(2) + 1000;
    QVERIFY2(painter.hoverText(2, inLast).contains(QLatin1String("cut off")), qPrintable(painter.hoverText(2, inLast)));
    QVERIFY(!painter.hoverText(2, s->rank(2)->steps.front().range.begin + r->offsetOf(2) + 1000).contains(QLatin1String("cut off")));
    // Hidden ranks lose their row.
    state.setRankHidden(1, true);
    QCOMPARE(w.shownRanks(), (std::vector<RankId>{0, 2, 3}));
    QVERIFY(w.plotRect(1, figure).isEmpty());
    // Zooming through the view state redraws on the new range.
    const TimeRange before = state.visibleRange();
    state.zoomBy(0.5, before.begin + before.duration() / 2);
    QVERIFY(state.visibleRange().duration() < before.duration());
}

void TestCompare::dlrmSmallMultiples()
{
    const QString dir = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/profiler/param_dlrm_8rank");
    if (!QDir(dir).exists())
        QSKIP("shared samples are not present");
    const SessionPtr s = loadDir(dir);
    QVERIFY(s);
    auto r = std::make_shared<const AnalysisResult>(Analyzer::run(*s));
    ViewState state;
    prepare(state, *s, *r);
    SmallMultiples w(&state);
    w.setSession(s);
    w.setAnalysis(r);
    w.setReferenceRank(ReferenceRank::pick(r->metrics));
    QCOMPARE(w.shownRanks().size(), std::size_t(8));
    const QSize size(1200, 8 * 56 + SmallMultiples::kAxisHeight);
    const QImage img = renderMultiples(w, size);
    rs::test::keepScreenshot(img, QStringLiteral("compare-dlrm-multiples.png"));
    const QRect figure(QPoint(0, 0), size);
    for (RankId k = 0; k < 8; ++k) {
        const QRect pr = w.plotRect(k, figure);
        QVERIFY(pr.height() >= 20);
        QCOMPARE(countColor(img, pr, SmallMultiples::oomColor().rgb()), 0);
        // A healthy run: no step is cut off.
        QCOMPARE(countColor(img, w.stripRect(k, figure), SmallMultiplesPainter::incompleteStepColor().rgb()), 0);
    }
    // Each rank's own colour is in its row's label (the stripe).
    const QRect pr3 = w.plotRect(3, figure);
    QCOMPARE(img.pixelColor(1, pr3.center().y()), RankColors::color(3));
}

void TestCompare::compareView()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    if (!QDir(demo).exists())
        QSKIP("resources/demo is not present");
    const SessionPtr s = loadDir(demo);
    auto r = std::make_shared<const AnalysisResult>(Analyzer::run(*s));
    ViewState state;
    prepare(state, *s, *r);
    CompareView view(&state);
    QSignalSpy refSpy(&view, &CompareView::referenceRankChanged);
    QSignalSpy ready(&view, &CompareView::diffReady);
    view.resize(1400, 900);
    view.setSession(s);
    view.setAnalysis(r);
    const RankId median = ReferenceRank::pick(r->metrics);
    QCOMPARE(view.referenceRank(), median);
    QVERIFY(!refSpy.isEmpty());
    QCOMPARE(refSpy.last().at(0).value<RankId>(), median);
    QCOMPARE(view.diffRankA(), median);
    QCOMPARE(view.diffRankB(), RankId(2)); // the divergent, out-of-memory rank
    QTRY_VERIFY_WITH_TIMEOUT(!view.diffPending() && view.opDiffModel()->rowCount() > 0, 20000);
    QCOMPARE(view.opDiffModel()->rankB(), RankId(2));
    // Rank 2 stopped inside step 414: by default the diff covers the steps both completed.
    QVERIFY(view.completedStepsOnly());
    QCOMPARE(view.stepDiffModel()->rowCount(), 2);
    for (int row = 0; row < 2; ++row)
        QVERIFY(view.stepDiffModel()->rowAt(row).completedByBoth());
    QAbstractItemModelTester tester(view.opDiffProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Everything again: all three steps, and the totals of whole ranks are kept for the next pair.
    view.setCompletedStepsOnly(false);
    QTRY_VERIFY_WITH_TIMEOUT(!view.diffPending() && view.stepDiffModel()->rowCount() == 3, 20000);
    QVERIFY(view.cachedTotals(2) && view.cachedTotals(median));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    rs::test::keepScreenshot(view.grab().toImage(), QStringLiteral("compare-view-ranks.png"));
    view.showDiff(true);
    QTest::qWait(50);
    rs::test::keepScreenshot(view.grab().toImage(), QStringLiteral("compare-view-diff.png"));
    // A new pair: rank 2 is cached, only the other is computed; a stale request is dropped.
    view.setDiffRanks(1, 3);
    view.setDiffRanks(3, 2);
    QVERIFY(view.completedStepsOnly()); // set again for a pair with a cut-off rank
    QTRY_VERIFY_WITH_TIMEOUT(!view.diffPending(), 20000);
    QCOMPARE(view.opDiffModel()->rankA(), RankId(3));
    QCOMPARE(view.opDiffModel()->rankB(), RankId(2));
    // The user's reference sticks until the next session.
    view.setReferenceRank(3);
    QCOMPARE(view.metricsModel()->referenceRank(), RankId(3));
    QCOMPARE(view.smallMultiples()->referenceRank(), RankId(3));
    view.setSession(nullptr);
    QCOMPARE(view.metricsModel()->rowCount(), 0);
    QCOMPARE(view.opDiffModel()->rowCount(), 0);
}

void TestCompare::timesAreNotDeviations_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<bool>("coloured");
    // Rank 1 peaks two steps later, arrives 500 ms later and steps 50 % slower than rank 0.
    QTest::newRow("peak at: a moment") << int(RankMetricsModel::PeakTimeColumn) << false;
    QTest::newRow("median step: an amount") << int(RankMetricsModel::StepTimeColumn) << true;
    QTest::newRow("lateness: a delay") << int(RankMetricsModel::LatenessColumn) << true;
}

void TestCompare::timesAreNotDeviations()
{
    QFETCH(int, column);
    QFETCH(bool, coloured);
    auto r = std::make_shared<AnalysisResult>();
    constexpr TimeNs sec = 1'000'000'000;
    r->metrics = {metrics(0, 1LL << 30, sec), metrics(1, 1LL << 30, 3 * sec / 2)};
    r->metrics[0].peakTimeNs = 10 * sec;
    r->metrics[1].peakTimeNs = 12 * sec;
    r->metrics[0].collectiveLatenessNs = 0;
    r->metrics[1].collectiveLatenessNs = sec / 2;
    RankMetricsModel model;
    model.setAnalysis(r, 0);
    model.setReferenceRank(0);
    const QModelIndex cell = model.index(1, column);
    QCOMPARE(cell.data(RankMetricsModel::DeviationRole).isValid(), coloured);
    QCOMPARE(cell.data(Qt::BackgroundRole).isValid(), coloured);
    QCOMPARE(cell.data(Qt::ToolTipRole).toString().contains(QLatin1String("not compared")), !coloured);
}

void TestCompare::cutOffStepDiff()
{
    // Rank 1 ran out of memory in the forward pass of step 3; rank 0 completed it, backward and
    // all. Over everything, the diff is led by the backward op rank 1 never reached; over the
    // steps both completed, it is not there at all, and the cut-off step has no change.
    SessionBuilder sb;
    const TimeNs t0 = 1'700'000'000'000'000'000, step = 10'000;
    for (RankId rank : {0, 1}) {
        SourceBuilder b("rank" + std::to_string(rank) + ".json");
        b.source().ranks = {rank};
        b.source().hasClock = true;
        const TrackId cpu = b.track(TrackKind::CpuThread, 1, 1);
        const StringId op = b.intern("cpu_op");
        for (int n = 1; n <= 3; ++n) {
            const TimeNs begin = t0 + (n - 1) * step;
            const bool cut = rank == 1 && n == 3;
            const TimeNs len = cut ? 4000 : step - 100;
            b.addSpan(cpu, {begin, len, b.intern("ProfilerStep#" + std::to_string(n)), op, kNoArgs, 0, SpanFlagStep});
            Step st{n, {begin, begin + len}, cpu};
            st.incomplete = cut;
            b.addStep(st);
            b.addSpan(cpu, {begin + 100, 3000, b.intern("aten::linear"), op, kNoArgs, 0, 0});
            if (!cut)
                b.addSpan(cpu, {begin + 5000, 4000, b.intern("MmBackward0"), op, kNoArgs, 0, 0});
        }
        b.finish();
        sb.addSource(std::move(b));
    }
    const SessionPtr s = sb.freeze();
    QVERIFY(RankDiff::anyIncomplete(*s, 0, 1));
    QVERIFY(!RankDiff::anyIncomplete(*s, 0, 0));
    QCOMPARE(RankDiff::completedByBoth(*s, 0, 1), (std::vector<std::int64_t>{1, 2}));
    const auto all = RankDiff::ops(*s, OpTotals::compute(*s, 0), OpTotals::compute(*s, 1));
    QCOMPARE(s->str(all.front().name), std::string_view("MmBackward0"));
    const std::vector<std::int64_t> both = RankDiff::completedByBoth(*s, 0, 1);
    const auto scoped = RankDiff::ops(*s, OpTotals::compute(*s, 0, both), OpTotals::compute(*s, 1, both));
    for (const OpDiffRow &row : scoped) {
        QCOMPARE(row.countDelta(), std::int64_t(0));
        QCOMPARE(row.timeDelta(), TimeNs(0));
    }
    StepDiffModel steps;
    QAbstractItemModelTester tester(&steps, QAbstractItemModelTester::FailureReportingMode::QtTest);
    steps.setSteps(RankDiff::steps(*s, 0, 1), 0, 1);
    QCOMPARE(steps.rowCount(), 3);
    QCOMPARE(steps.index(2, StepDiffModel::DeltaColumn).data().toString(), QStringLiteral("\u2014"));
    QCOMPARE(steps.index(2, StepDiffModel::RelativeColumn).data().toString(), QStringLiteral("\u2014"));
    QVERIFY(steps.index(2, StepDiffModel::DurationBColumn).data().toString().contains(QLatin1String("cut off")));
    QVERIFY(steps.index(2, 0).data(Qt::ToolTipRole).toString().contains(QLatin1String("rank 1 stopped inside step 3")));
    QVERIFY(!steps.index(2, StepDiffModel::DeltaColumn).data(StepDiffModel::SortRole).isValid());
    // A completed step keeps its change.
    QCOMPARE(steps.index(1, StepDiffModel::DeltaColumn).data().toString(), TimeFormat::duration(0));
}

void TestCompare::smallMultiplesFollowTheDesktopTheme()
{
    DemoMultiples demo;
    QVERIFY(demo.open());
    const SessionPtr s = demo.session;
    const auto r = demo.analysis;
    const SmallMultiples &w = *demo.widget;
    const QSize size(1000, 4 * SmallMultiples::kRowHeight + SmallMultiples::kAxisHeight);
    // Counts pixels by lightness: the background, the captions and the axis.
    const auto tally = [](const QImage &img, int &dark, int &light) {
        dark = light = 0;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2) {
                const int l = img.pixelColor(x, y).lightness();
                dark += l < 70;
                light += l > 200;
            }
    };
    int dark = 0, light = 0;
    tally(renderMultiples(w, size), dark, light);
    QVERIFY2(light > dark * 4, "on a light desktop the rows are light");

    const rs::test::DarkDesktop night;
    const QImage onDark = renderMultiples(w, size);
    rs::test::keepScreenshot(onDark, QStringLiteral("compare-dark-multiples.png"));
    tally(onDark, dark, light);
    QVERIFY2(dark > light * 4, qPrintable(QStringLiteral("on a dark desktop the rows are dark (%1 dark, %2 light)").arg(dark).arg(light)));
    // The captions are light text on it.
    int bright = 0;
    for (int y = 0; y < SmallMultiples::kRowHeight; ++y)
        for (int x = 0; x < 150; ++x)
            bright += onDark.pixelColor(x, y).lightness() > 150;
    QVERIFY(bright > 20);

    // The compare figure is printed on paper whatever the desktop.
    FigureOptions o;
    o.view = FigureOptions::View::Compare;
    CompareFigure figure(s, r, o);
    QImage paper(figure.size(), QImage::Format_ARGB32);
    paper.fill(Qt::transparent);
    {
        QPainter p(&paper);
        figure.paint(p);
    }
    tally(paper, dark, light);
    QVERIFY(light > dark * 4);
}

QTEST_MAIN(TestCompare)
#include "test_compare.moc"
