// Lane kinds (LaneKind, LaneRegistry, RankGroupPainter): a kind added from outside the viewer, through
// the interface alone, is laid out, painted on screen and in figures, hit-tested, explained in a
// tooltip and found by Ctrl+P; the built-in launcher lane shows what torchrun and the scheduler said
// about a rank, at its time.

#include "charts/memorychartrenderer.h"
#include "evidencesession.h"
#include "testsession.h"
#include "export/figurerenderer.h"
#include "timeline/laneregistry.h"
#include "timeline/rankgrouppainter.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/timelinecontext.h"
#include "timeline/timelineview.h"
#include "timeline/trackfindermodel.h"

#include <QImage>
#include <QPainter>
#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

const QColor kBandColor(0x12, 0xab, 0x34);
constexpr std::string_view kBandId = "test-band";

// A lane a plugin could add: one band per rank with steps, filled in one colour between the
// rank's first and last step, whose hit is the first step's span.
class BandLane final : public LaneKind
{
public:
    std::string_view id() const override { return kBandId; }
    void addLanes(LaneBuilder &b) const override
    {
        if (!b.options.collapsed && !b.rank.steps.empty())
            b.add(*this, kNoTrack, 22, QStringLiteral("Test band"));
    }
    static TimeRange extent(const LaneFrame &f)
    {
        const Rank &r = *f.ctx->session->rank(f.rank);
        return {r.steps.front().range.begin, r.steps.back().range.end};
    }
    void paint(const Lane &lane, LaneFrame &f) const override
    {
        const TimeScale s = f.dataScale();
        const TimeRange e = extent(f);
        f.painter->fillRect(QRectF(QPointF(s.toX(e.begin), lane.top + 2), QPointF(s.toX(e.end), lane.top + lane.height - 3)), kBandColor);
    }
    EventRef hitTest(const Lane &, QPoint pos, const LaneFrame &f) const override
    {
        const TimeNs t = f.dataScale().toTime(pos.x());
        const Rank &r = *f.ctx->session->rank(f.rank);
        return extent(f).contains(t) ? EventRef::span(r.steps.front().track, 0) : EventRef{};
    }
    QString tooltip(const Lane &, QPoint, const EventRef &hit, const LaneFrame &) const override
    {
        return hit.isNone() ? QString() : QStringLiteral("band tooltip");
    }
    QString finderWords(const Lane &, const Session &) const override { return QStringLiteral("testband"); }
    bool keepInCompact(Lane &, CompactFilter &) const override { return m_compact; }
    bool m_compact = false;
};

int countColor(const QImage &image, const QColor &c)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            n += image.pixelColor(x, y) == c ? 1 : 0;
    return n;
}

QImage render(const SessionPtr &session, FigureOptions::Detail detail)
{
    FigureOptions o;
    o.detail = detail;
    o.width = 1200;
    FigureRenderer figure(session, nullptr, o);
    QImage image(figure.size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    figure.paint(p);
    return image;
}

// Two ranks with a step each, and a torchrun log: rank 1's child failed (SIGKILL) at +9 µs, and
// the scheduler cancelled the whole job at +9.5 µs; an untimed failure of rank 0 has no place.
SessionPtr launcherSession()
{
    EvidenceSession e = makeEvidenceSession();
    SessionBuilder sb;
    for (const Source &src : e.session->sources())
        if (src.format == "pytorch-trace") {
            SourceBuilder b(src.path);
            b.source().format = src.format;
            b.source().ranks = src.ranks;
            b.source().hasClock = true;
            const TrackId cpu = b.track(TrackKind::CpuThread, 100, 100);
            b.addSpan(cpu, {kEvBase + 500, 9000, b.intern("ProfilerStep#1"), b.intern("user_annotation"), kNoArgs, 0,
                            SpanFlagStep | SpanFlagAnnotation});
            b.finish();
            sb.addSource(std::move(b));
        }
    SourceBuilder log("/incident/job.log");
    log.source().format = "job-log";
    log.source().hasClock = true;
    auto record = [&log](TimeNs t, std::int64_t line, const char *text) {
        LogRecord r;
        r.time = t;
        r.rank = kJobLevel;
        r.line = line;
        r.level = LogLevel::Error;
        r.kind = LogKind::Torchrun;
        r.flags = LogFlagLauncher;
        r.text = log.logs().addText(text);
        log.logs().records.push_back(std::move(r));
    };
    record(kEvBase + 9000, 30, "[1]: rank 1 (local_rank: 1) exitcode -9 (pid: 4242) SIGKILL");
    record(kEvBase + 9500, 31, "slurmstepd: error: *** JOB 77 ON gpu-a1 CANCELLED AT ... DUE TO TIME LIMIT ***");
    record(kNoTime, 40, "[2]: rank 0 exitcode 1");
    ChildFailure f;
    f.rank = 1;
    f.exitCode = -9;
    f.signal = "SIGKILL";
    f.launcher = "torchrun";
    f.line = 30;
    f.time = kEvBase + 9000;
    log.logs().failures.push_back(f);
    ChildFailure untimed;
    untimed.rank = 0;
    untimed.exitCode = 1;
    untimed.launcher = "torchrun";
    untimed.line = 40;
    log.logs().failures.push_back(untimed);
    JobEvent cancel;
    cancel.kind = JobEventKind::Cancelled;
    cancel.launcher = "slurm";
    cancel.jobId = "77";
    cancel.reason = "TIME LIMIT";
    cancel.line = 31;
    cancel.time = kEvBase + 9500;
    log.logs().jobEvents.push_back(cancel);
    log.finish();
    sb.addSource(std::move(log));
    return sb.freeze();
}

} // namespace

class TestLaneKinds : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { rs::MemoryChartRenderer::install(); } // figures draw the memory chart
    void builtInKindsStackInRegistryOrder();
    void aKindAddedThroughTheInterface();
    void launcherLaneShowsFailuresAtTheirTime();
};

void TestLaneKinds::builtInKindsStackInRegistryOrder()
{
    std::vector<std::string_view> ids;
    for (const LaneKind *k : LaneRegistry::instance().kinds())
        ids.push_back(k->id());
    const std::vector<std::string_view> expected{LaneId::Header, LaneId::Findings, LaneId::Summary, LaneId::Memory, LaneId::Steps,
                                                 LaneId::Log, LaneId::Launcher, LaneId::Spans, LaneId::Instants, LaneId::Counter};
    QVERIFY(ids == expected);
    QVERIFY(LaneRegistry::instance().find(LaneId::Memory));
    QVERIFY(!LaneRegistry::instance().find("no-such-kind"));
}

void TestLaneKinds::aKindAddedThroughTheInterface()
{
    const TestSession e = makeTestSession();
    const Session &s = *e.session;
    auto owned = std::make_unique<BandLane>();
    BandLane *band = owned.get();
    LaneRegistry::instance().add(std::move(owned), LaneId::Steps);
    auto unregister = qScopeGuard([] { LaneRegistry::instance().remove(kBandId); });

    // Laid out right after the steps lane, on expanded ranks with steps only.
    LaneLayout layout;
    layout.build(s, *s.rank(0), false, false);
    const Lane *steps = layout.lane(LaneId::Steps);
    const Lane *lane = layout.lane(kBandId);
    QVERIFY(steps && lane);
    QCOMPARE(lane->top, steps->top + steps->height);
    QCOMPARE(lane->height, 22);
    layout.build(s, *s.rank(0), true, false);
    QVERIFY(!layout.lane(kBandId));

    // On screen: painted in the group, hit-tested and explained through the kind.
    ViewState state;
    TimelineView view(&state);
    view.resize(view.gutterWidth() + 900, 700);
    view.setSession(e.session);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    RankGroupWidget *g0 = view.rankGroup(0);
    QVERIFY(g0);
    const Lane *onScreen = g0->layout().lane(kBandId);
    QVERIFY(onScreen);
    const QImage grab = g0->grab().toImage();
    const int y = onScreen->top + onScreen->height / 2;
    int colored = 0;
    for (int x = view.gutterWidth(); x < grab.width(); ++x)
        colored += grab.pixelColor(x, y) == kBandColor ? 1 : 0;
    QVERIFY2(colored > 20, qPrintable(QString::number(colored)));
    const TimeScale scale = g0->viewScale();
    const Rank &r0 = *s.rank(0);
    const int inside = static_cast<int>(scale.toX((r0.steps.front().range.begin + r0.steps.back().range.end) / 2));
    const EventRef hit = g0->hitTest(QPoint(inside, y));
    QCOMPARE(hit.kind, EventRef::Kind::Span);
    QCOMPARE(hit.track, r0.steps.front().track);

    // Ctrl+P finds it by its words.
    TrackFinderModel finder;
    finder.setSession(e.session.get(), nullptr);
    const auto &entries = finder.entries();
    const auto row = std::find_if(entries.begin(), entries.end(), [](const TrackFinderModel::Entry &en) { return en.kind == QLatin1String("test-band"); });
    QVERIFY(row != entries.end());
    QVERIFY(row->search.contains(QLatin1String("testband")));
    QCOMPARE(row->text, QStringLiteral("Rank 0 · Test band"));

    // Figures paint it through the same painter; compact detail keeps it only when the kind says so.
    QVERIFY(countColor(render(e.session, FigureOptions::Detail::Full), kBandColor) > 100);
    QCOMPARE(countColor(render(e.session, FigureOptions::Detail::Compact), kBandColor), 0);
    band->m_compact = true;
    QVERIFY(countColor(render(e.session, FigureOptions::Detail::Compact), kBandColor) > 100);
}

void TestLaneKinds::launcherLaneShowsFailuresAtTheirTime()
{
    const SessionPtr session = launcherSession();
    ViewState state;
    TimelineView view(&state);
    view.resize(view.gutterWidth() + 1000, 700);
    view.setSession(session);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.viewState()->setVisibleRange({kEvBase, kEvBase + 10000});

    // Rank 1: its SIGKILL and the job's cancel; rank 0: the cancel only (its failure has no time).
    for (RankId rank : {0, 1}) {
        RankGroupWidget *g = view.rankGroup(rank);
        QVERIFY(g);
        const Lane *lane = g->layout().lane(LaneId::Launcher);
        QVERIFY2(lane, qPrintable(QStringLiteral("rank %1").arg(rank)));
        QVERIFY(lane->top > g->layout().lanes().front().top);
        const TimeScale scale = g->viewScale();
        const int y = lane->top + lane->height / 2;
        const EventRef cancel = g->hitTest(QPoint(static_cast<int>(scale.toX(kEvBase + 9500)), y));
        QCOMPARE(cancel.kind, EventRef::Kind::LogRecord);
        QCOMPARE(session->logs().records[cancel.index].line, std::int64_t(31));
        const EventRef failure = g->hitTest(QPoint(static_cast<int>(scale.toX(kEvBase + 9000)), y));
        if (rank == 1) {
            QCOMPARE(failure.kind, EventRef::Kind::LogRecord);
            QCOMPARE(session->logs().records[failure.index].line, std::int64_t(30));
        } else {
            QVERIFY(failure.isNone());
        }
        QVERIFY(g->hitTest(QPoint(static_cast<int>(scale.toX(kEvBase + 2000)), y)).isNone());
    }

    // The tooltip says what happened, then the launcher's line.
    TimelineContext ctx;
    ctx.setSession(session);
    ctx.evidence.build(session.get());
    LaneLayout layout;
    layout.build(*session, *session->rank(1), false, false);
    LaneFrame f;
    f.ctx = &ctx;
    f.layout = &layout;
    f.rank = 1;
    f.width = ctx.gutterWidth + 1000;
    f.view = {{kEvBase, kEvBase + 10000}, double(ctx.gutterWidth), 1000};
    const Lane *lane = layout.lane(LaneId::Launcher);
    QVERIFY(lane);
    const QPoint at(static_cast<int>(f.view.toX(kEvBase + 9000)), lane->top + 5);
    const EventRef hit = RankGroupPainter::hitTest(f, at);
    const QString tip = RankGroupPainter::tooltip(f, at, hit);
    QVERIFY2(tip.contains(QLatin1String("rank 1 failed")) && tip.contains(QLatin1String("SIGKILL")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("pid: 4242")), qPrintable(tip));

    // Ctrl+P knows it, and compact figures keep it (it is why the job ended).
    TrackFinderModel finder;
    finder.setSession(session.get(), nullptr);
    QVERIFY(std::any_of(finder.entries().begin(), finder.entries().end(),
                        [](const TrackFinderModel::Entry &en) { return en.kind == QLatin1String("launcher") && en.search.contains(QLatin1String("torchrun")); }));
    const QImage compact = render(session, FigureOptions::Detail::Compact);
    QVERIFY(countColor(compact, QColor(0xc9, 0x1d, 0x2e)) > 10);
}

QTEST_MAIN(TestLaneKinds)
#include "test_lanekinds.moc"
