// Untimed OOMs and memory_summary tables placed by an anchor (AnalysisResult::placements): the
// evidence index draws the OOM at the placed time, and the Details panel and the memory summaries'
// header tooltip say where it was placed and by what.

#include "timeline/evidenceindex.h"
#include "evidencesession.h"
#include "models/memorysummarymodel.h"
#include "panels/detailspanel.h"
#include "placements.h"
#include "timeformat.h"
#include "viewstate.h"

#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

// OOM #1 (rank 2, untimed) and rank 2's untimed table placed at +8 µs; rank 2's clock offset 500 ns.
std::shared_ptr<AnalysisResult> placedAnalysis(const Session &s)
{
    auto r = std::make_shared<AnalysisResult>();
    r->alignment.push_back({2, 500, AlignmentMethod::Collectives, std::nullopt, 3, 0});
    r->placements.push_back({Placement::Kind::Oom, 1, 2, kEvBase + 8000, "the profiler's [OutOfMemory] instant"});
    for (std::size_t i = 0; i < s.memorySummaries().size(); ++i)
        if (s.memorySummaries()[i].rank == 2 && s.memorySummaries()[i].time == kNoTime)
            r->placements.push_back({Placement::Kind::MemorySummary, i, 2, kEvBase + 8000, "printed after OOM #1"});
    return r;
}

} // namespace

class TestPlacements : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void evidenceIndexDrawsPlacedOom()
    {
        const EvidenceSession e = makeEvidenceSession();
        QCOMPARE(e.session->ooms().at(1).time, kNoTime);
        EvidenceIndex plain;
        plain.build(e.session.get());
        QVERIFY(plain.ooms(2).empty());
        const auto analysis = placedAnalysis(*e.session);
        EvidenceIndex placed;
        placed.build(e.session.get(), analysis.get());
        QCOMPARE(placed.ooms(2).size(), std::size_t(1));
        const OomMarker &m = placed.ooms(2).front();
        QVERIFY(m.event == EventRef::oom(1));
        QCOMPARE(m.time, kEvBase + 7500); // data clock: the rank's analysis offset taken off
        QVERIFY(m.placed);
        QCOMPARE(placedByText(*m.placed), QStringLiteral("placed by anchor: the profiler's [OutOfMemory] instant"));
    }

    void detailsSayPlacedByAnchor()
    {
        const EvidenceSession e = makeEvidenceSession();
        ViewState state;
        state.setFullRange({kEvBase, kEvBase + 10000});
        DetailsPanel panel(&state);
        panel.setSession(e.session);
        panel.showSelection(EventRef::oom(1));
        QVERIFY(!panel.fieldValue(QStringLiteral("Time")).contains(QStringLiteral("placed by anchor")));
        panel.setAnalysis(placedAnalysis(*e.session));
        panel.showSelection(EventRef::oom(1));
        const QString time = panel.fieldValue(QStringLiteral("Time"));
        QVERIFY2(time.startsWith(QStringLiteral("≈ ")), qPrintable(time));
        QVERIFY2(time.contains(QStringLiteral("placed by anchor: the profiler's [OutOfMemory] instant")), qPrintable(time));
        // On the wall clock too, as spans are: the rank's own clock (its 500 ns offset taken off).
        QCOMPARE(panel.fieldValue(QStringLiteral("Time (wall clock)")), QStringLiteral("≈ ") + TimeFormat::wallClock(kEvBase + 7500));
        // A stamped log line shows its own wall clock, not an estimate.
        panel.showSelection(EventRef::logRecord(RecR1Oom));
        QCOMPARE(panel.fieldValue(QStringLiteral("Time (wall clock)")), TimeFormat::wallClock(kEvBase + 7000));
    }

    void placedOomLogLineShowsWallClock()
    {
        // A job log whose OOM traceback has no time stamp: the line is placed with its OOM.
        SessionBuilder sb;
        SourceBuilder b("/incident/train.log");
        b.source().format = "job-log";
        b.source().ranks = {0};
        b.source().hasClock = true;
        LogRecord r;
        r.rank = 0;
        r.line = 5;
        r.level = LogLevel::Error;
        r.kind = LogKind::Python;
        r.flags = LogFlagOom;
        r.text = b.logs().addText("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB.");
        b.logs().records.push_back(r);
        OomEvent oom;
        oom.rank = 0;
        oom.line = 5;
        oom.requested = kGiB;
        b.addOom(oom);
        b.finish();
        sb.addSource(std::move(b));
        const SessionPtr session = sb.freeze();
        auto analysis = std::make_shared<AnalysisResult>();
        analysis->placements.push_back({Placement::Kind::Oom, 0, 0, kEvBase + 4000, "the profiler's [OutOfMemory] instant"});
        ViewState state;
        state.setFullRange({kEvBase, kEvBase + 10000});
        DetailsPanel panel(&state);
        panel.setSession(session);
        panel.setAnalysis(analysis);
        panel.showSelection(EventRef::logRecord(0));
        QVERIFY2(panel.fieldValue(QStringLiteral("Time")).startsWith(QStringLiteral("≈ ")), qPrintable(panel.fieldValue(QStringLiteral("Time"))));
        QCOMPARE(panel.fieldValue(QStringLiteral("Time (wall clock)")), QStringLiteral("≈ ") + TimeFormat::wallClock(kEvBase + 4000));
        // Without a placement it has no time at all, and claims none.
        panel.setAnalysis(nullptr);
        panel.showSelection(EventRef::logRecord(0));
        QCOMPARE(panel.fieldValue(QStringLiteral("Time (wall clock)")), QString());
    }

    void summaryHeaderNamesTimeAndAnchor()
    {
        const EvidenceSession e = makeEvidenceSession();
        MemorySummaryModel model;
        model.setSession(e.session);
        const int column = model.columnOf(2);
        QVERIFY(column >= 0);
        QVERIFY(!model.headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().contains(QStringLiteral("anchor")));
        model.setAnalysis(placedAnalysis(*e.session));
        const QString tip = model.headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("≈ ")) && tip.contains(QStringLiteral("placed by anchor: printed after OOM #1")), qPrintable(tip));
    }
};

QTEST_MAIN(TestPlacements)
#include "test_placements.moc"
