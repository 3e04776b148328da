// Rendering smoke test: grab the timeline and check that spans, the memory curve, step bands and
// the ruler put ink where the session says they are, and that empty time stays background.

#include "testsession.h"
#include "export/figureoptions.h"
#include "export/figurerenderer.h"
#include "darkdesktop.h"
#include "palette.h"
#include "screenshot.h"
#include "timeline/lanekind.h"

#include "rankcolors.h"
#include "timeline/rankgroupwidget.h"
#include "timeline/spanpalette.h"
#include "timeline/timelineview.h"
#include "timeline/timeruler.h"

#include <QElapsedTimer>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QPalette>
#include <QTest>

#include <optional>

using namespace rs;
using namespace rs::test;

namespace {

bool isWhite(QRgb c)
{
    return qRed(c) > 245 && qGreen(c) > 245 && qBlue(c) > 245;
}

// Share of non-white pixels in `r` of `img`.
double inkIn(const QImage &img, const QRect &r)
{
    int ink = 0, total = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x, ++total)
            ink += isWhite(img.pixel(x, y)) ? 0 : 1;
    return total ? double(ink) / total : 0;
}

} // namespace

class TestTimelineRender : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void lanesHaveInkWhereEventsAre();
    void manySpansStayCheapAndVisible();
    void darkDesktopDarkTimelineWhitePaper();
};

void TestTimelineRender::lanesHaveInkWhereEventsAre()
{
    const TestSession t = makeTestSession();
    ViewState state;
    TimelineView view(&state);
    view.resize(view.gutterWidth() + 1000, 600);
    view.setSession(t.session);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTest::qWait(50); // let the memory chart's queued replot land
    const QImage img = view.grab().toImage();
    RankGroupWidget *g0 = view.rankGroup(0);
    auto inView = [&](const QRect &r) { return QRect(g0->mapTo(&view, r.topLeft()), r.size()); };

    // Each span is filled with its palette colour in the middle.
    for (auto [track, index] : {std::pair{t.cpu0, t.linearB}, std::pair{t.cpu0, t.addmmC}, std::pair{t.gpu0, t.gemm}}) {
        const QRect r = inView(g0->spanRect(track, index).toRect().adjusted(2, 2, -2, -2));
        QVERIFY2(inkIn(img, r) > 0.9, qPrintable(QStringLiteral("span %1 not painted").arg(index)));
    }
    // A kernel is painted in the kernel family's green-teal hues.
    const QColor kernel = img.pixelColor(inView(g0->spanRect(t.gpu0, t.gemm).toRect()).center() + QPoint(0, 4));
    QVERIFY2(kernel.hslHue() >= 120 && kernel.hslHue() <= 200, qPrintable(kernel.name()));

    // Between B and D on level 1 there is no event: background only (grid lines are allowed).
    const int g = view.gutterWidth();
    const QRect gapRow = g0->laneRect(t.cpu0);
    const QRect gap = inView(QRect(g + 420, gapRow.top() + LaneLayout::kLanePadding + LaneLayout::kRowHeight + 3, 60, 10));
    QVERIFY2(inkIn(img, gap) < 0.1, "gap between spans is not background");
    // After the last GPU kernel (ends at 8 µs → x = 700) the stream lane is empty.
    const QRect gpuLane = g0->laneRect(t.gpu0);
    QVERIFY(inkIn(img, inView(QRect(g + 760, gpuLane.top() + 6, 120, 8))) < 0.1);

    // The memory chart draws the allocated area in the rank colour between 1 µs and 9 µs.
    const Lane *memory = nullptr;
    for (const Lane &l : g0->layout().lanes())
        if (l.is(LaneId::Memory))
            memory = &l;
    QVERIFY(memory);
    const QRect underCurve = inView(QRect(g + 250, memory->top + memory->height - 8, 20, 4));
    QVERIFY2(inkIn(img, underCurve) > 0.9, "allocated area missing");
    const QColor fill = img.pixelColor(underCurve.center());
    const QColor rank = RankColors::color(0);
    QVERIFY2(std::abs(fill.hslHue() - rank.hslHue()) < 20, qPrintable(fill.name()));

    // The step lane has its band; the ruler has label ink; the header carries the rank tint.
    for (const Lane &l : g0->layout().lanes())
        if (l.is(LaneId::Steps))
            QVERIFY(inkIn(img, inView(QRect(g + 300, l.top + 3, 100, l.height - 6))) > 0.9);
    QVERIFY(inkIn(img, QRect(g + 2, 2, 200, 14)) > 0.02);
    QVERIFY(!isWhite(img.pixel(inView(QRect(g + 800, 4, 1, 1)).topLeft())));

    // Collapsing rank 0 leaves a summary strip with rank-coloured activity where the GPU was busy.
    state.setRankCollapsed(0, true);
    QTest::qWait(20);
    const QImage collapsed = view.grab().toImage();
    const Lane &summary = g0->layout().lanes().back();
    QVERIFY(summary.is(LaneId::Summary));
    QVERIFY(inkIn(collapsed, inView(QRect(g + 205, summary.top + 5, 90, 6))) > 0.9);  // gemm 3..4 µs
    QVERIFY(inkIn(collapsed, inView(QRect(g + 420, summary.top + 5, 60, 6))) < 0.1);  // idle 5.2..5.8 µs
}

void TestTimelineRender::manySpansStayCheapAndVisible()
{
    // 200 000 back-to-back 50 ns kernels on one stream: at full zoom they fold into busy blocks that
    // still cover the whole stream, and a frame must not visit them one by one.
    SessionBuilder sb;
    SourceBuilder b("/traces/dense.json");
    b.source().format = "pytorch-trace";
    b.source().ranks = {0};
    const TrackId gpu = b.track(TrackKind::GpuStream, 0, 7, 0);
    const StringId name = b.intern("tiny_kernel"), cat = b.intern("kernel");
    for (TimeNs i = 0; i < 200000; ++i)
        b.addSpan(gpu, {kBase + i * 60, 50, name, cat, kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
    b.finish();
    sb.addSource(std::move(b));
    const SessionPtr s = sb.freeze();

    ViewState state;
    TimelineView view(&state);
    view.resize(view.gutterWidth() + 1000, 300);
    view.setSession(s);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    RankGroupWidget *g0 = view.rankGroup(0);
    QElapsedTimer timer;
    timer.start();
    const QImage img = view.grab().toImage();
    QVERIFY2(timer.elapsed() < 2000, "painting 200k spans took too long");
    const QRect lane = g0->laneRect(0);
    const QRect inside(g0->mapTo(&view, QPoint(view.gutterWidth() + 5, lane.top() + 6)), QSize(990, 8));
    QVERIFY(inkIn(img, inside) > 0.95);
}

QTEST_MAIN(TestTimelineRender)
// On a dark desktop theme the timeline paints from the palette's dark set: dark lanes, gutter and
// ruler, light titles; an exported figure of the same session stays on white paper.
void TestTimelineRender::darkDesktopDarkTimelineWhitePaper()
{
    std::optional<rs::test::DarkDesktop> dark(std::in_place);
    const TestSession t = makeTestSession();
    {
        ViewState state;
        TimelineView view(&state);
        view.resize(view.gutterWidth() + 1000, 600);
        view.setSession(t.session);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(Palette::screen().isDark());
        QTest::qWait(50);
        const QImage img = view.grab().toImage();
        rs::test::keepScreenshot(img, QStringLiteral("timeline-dark.png"));
        RankGroupWidget *g0 = view.rankGroup(0);
        const auto lightness = [&](QPoint p) { return img.pixelColor(p).lightness(); };
        // The ruler, a lane's gutter and the empty right end of the last lane are dark.
        QVERIFY(lightness(QPoint(view.width() - 5, 3)) < 80);
        const Lane &last = g0->layout().lanes().back();
        QVERIFY(lightness(g0->mapTo(&view, QPoint(view.gutterWidth() - 12, last.top + last.height / 2))) < 80);
        QVERIFY(lightness(g0->mapTo(&view, QPoint(view.width() - 3, last.top + last.height / 2))) < 80);
        // The lane titles are light text on it: somewhere in the first gutter row a pixel is bright.
        int bright = 0;
        for (int x = 10; x < 200; ++x)
            bright += lightness(g0->mapTo(&view, QPoint(x, last.top + last.height / 2))) > 160 ? 1 : 0;
        QVERIFY(bright > 0);
    }
    // A figure is printed: white, whatever the desktop.
    FigureOptions o;
    FigureRenderer figure(t.session, nullptr, o);
    QImage paper(figure.size(), QImage::Format_ARGB32);
    paper.fill(Qt::transparent);
    {
        QPainter p(&paper);
        figure.paint(p);
    }
    QCOMPARE(paper.pixelColor(paper.width() - 3, paper.height() / 2).rgb(), QColor(Qt::white).rgb());
    dark.reset();
    QVERIFY(!Palette::screen().isDark());
}

#include "test_timelinerender.moc"
