// The view survives one bad source: a trace 30 years off (or without a clock nothing aligned) and a
// memory counter far above its GPU do not set the timeline's axis, the figure's range or the shared
// memory scale; the Import Log names the source and says why.

#include "charts/memorychartrenderer.h"
#include "analyzer.h"
#include "export/figurerenderer.h"
#include "models/diagnosticsmodel.h"
#include "panels/importlogpanel.h"
#include "sessionbuilder.h"
#include "timeline/timelineview.h"
#include "viewstate.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace rs;

namespace {

constexpr TimeNs kBase = 1'700'000'000'000'000'000;
constexpr TimeNs kSec = 1'000'000'000;
constexpr TimeNs kYear = 365LL * 86'400 * kSec;
constexpr std::int64_t kGiB = std::int64_t(1) << 30;

SourceBuilder rankSource(RankId rank, TimeNs start, bool clock, double memoryPeak)
{
    SourceBuilder b("rank-" + std::to_string(rank) + ".json");
    b.source().format = "pytorch-trace";
    b.source().ranks = {rank};
    b.source().hasClock = clock;
    DeviceInfo d;
    d.name = "NVIDIA A100-SXM4-80GB";
    d.totalMemory = 80 * kGiB;
    b.addDevice(d);
    const TrackId cpu = b.track(TrackKind::CpuThread, 1, 1);
    for (int s = 0; s < 3; ++s) {
        Span sp;
        sp.start = start + s * 10 * kSec;
        sp.duration = 10 * kSec;
        sp.name = b.intern("ProfilerStep#" + std::to_string(s));
        sp.flags = SpanFlagStep;
        b.addSpan(cpu, sp);
    }
    const TrackId mem = b.track(TrackKind::MemoryAllocated, 0, 0, 0);
    b.addCounterSample(mem, start, 1.0 * double(kGiB));
    b.addCounterSample(mem, start + 15 * kSec, memoryPeak);
    b.finish();
    return b;
}

SessionPtr sessionWithBadSources()
{
    SessionBuilder sb;
    sb.addSource(rankSource(0, kBase, true, 20.0 * double(kGiB)));
    sb.addSource(rankSource(1, kBase, true, 30.0 * double(kGiB)));
    sb.addSource(rankSource(2, kBase + 30 * kYear, true, 10.0 * double(kGiB))); // a broken clock
    sb.addSource(rankSource(3, kBase, true, double(std::int64_t(1) << 47)));    // 128 TiB on 80 GiB
    return sb.freeze();
}

const TimeRange kGood{kBase, kBase + 30 * kSec};

} // namespace

class TestBadSource : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { rs::MemoryChartRenderer::install(); } // figures draw the memory chart
    void timelineAxisIgnoresTheBadSource()
    {
        const SessionPtr s = sessionWithBadSources();
        ViewState state;
        TimelineView view(&state);
        view.resize(1200, 700);
        view.setSession(s);
        QCOMPARE(state.fullRange(), kGood);
        // The analysis keeps it so, and a zoomed window survives the analysis' arrival.
        state.setVisibleRange({kBase + 2 * kSec, kBase + 4 * kSec});
        view.setAnalysis(std::make_shared<const AnalysisResult>(Analyzer::run(*s)));
        QCOMPARE(state.fullRange(), kGood);
        QCOMPARE(state.visibleRange(), (TimeRange{kBase + 2 * kSec, kBase + 4 * kSec}));
    }

    void figureRangeAndScaleIgnoreTheBadSource()
    {
        const SessionPtr s = sessionWithBadSources();
        const AnalysisResult r = Analyzer::run(*s);
        QCOMPARE(FigureRenderer::alignedDataRange(*s, &r, {}), kGood);
        QCOMPARE(FigureRenderer::alignedDataRange(*s, nullptr, {}), kGood);
        QCOMPARE(r.extent.memoryScale, 30.0 * double(kGiB));
    }

    void importLogNamesWhatWasLeftOut()
    {
        const SessionPtr s = sessionWithBadSources();
        ImportLogPanel panel;
        panel.setSession(s);
        DiagnosticsModel *m = panel.diagnosticsModel();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int before = m->rowCount();
        panel.setAnalysis(std::make_shared<const AnalysisResult>(Analyzer::run(*s)));
        QCOMPARE(m->rowCount(), before + 2);
        QStringList seen;
        for (int row = 0; row < m->rowCount(); ++row) {
            const QString code = m->index(row, DiagnosticsModel::CodeColumn).data().toString();
            if (code != QLatin1String("time-outside-incident") && code != QLatin1String("memory-above-capacity"))
                continue;
            const QString file = m->index(row, DiagnosticsModel::FileColumn).data().toString();
            const QString message = m->index(row, DiagnosticsModel::MessageColumn).data().toString();
            seen << file + QLatin1Char(' ') + code;
            if (code == QLatin1String("time-outside-incident"))
                QVERIFY2(message.contains(QStringLiteral("30 years after")), qPrintable(message));
            else
                QVERIFY2(message.contains(QStringLiteral("80 GiB")), qPrintable(message));
        }
        seen.sort();
        QCOMPARE(seen, (QStringList{QStringLiteral("rank-2.json time-outside-incident"),
                                    QStringLiteral("rank-3.json memory-above-capacity")}));
        // A new session forgets them.
        panel.setSession(s);
        QCOMPARE(m->rowCount(), before);
    }
};

QTEST_MAIN(TestBadSource)
#include "test_badsource.moc"
