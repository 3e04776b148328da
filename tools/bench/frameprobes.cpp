#include "frameprobes.h"
#include "benchapp.h"

#include "sessionloader.h"
#include "timeline/ranksoverview.h"
#include "timeline/timelineview.h"
#include "viewstate.h"

#include <QApplication>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>
#include <QScrollBar>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <random>
#include <stdexcept>

namespace rs::bench {

namespace {

using Clock = BenchClock;
constexpr int kWidth = 1920;
constexpr int kHeight = 1080;

std::int64_t g_loadedRss = 0; // resident bytes once the session was loaded

// Resident memory now (the session loaded, before any view exists), from /proc/self/statm.
std::int64_t residentBytes()
{
    long pages = 0, resident = 0;
    if (std::FILE *f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return static_cast<std::int64_t>(resident) * ::sysconf(_SC_PAGESIZE);
}

// A paint engine that draws nothing and counts what it is asked to draw: the floor paints as many
// plain rectangles as the frame drew shapes of any kind.
class CountingEngine final : public QPaintEngine
{
public:
    CountingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice *) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState &) override {}
    void drawPixmap(const QRectF &, const QPixmap &, const QRectF &) override { ++shapes; }
    void drawRects(const QRectF *, int count) override { shapes += count; }
    void drawRects(const QRect *, int count) override { shapes += count; }
    void drawLines(const QLineF *, int count) override { shapes += count; }
    void drawLines(const QLine *, int count) override { shapes += count; }
    void drawPolygon(const QPointF *, int, PolygonDrawMode) override { ++shapes; }
    void drawPolygon(const QPoint *, int, PolygonDrawMode) override { ++shapes; }
    void drawPath(const QPainterPath &) override { ++shapes; }
    void drawEllipse(const QRectF &) override { ++shapes; }
    void drawTextItem(const QPointF &, const QTextItem &) override { ++shapes; }
    void drawImage(const QRectF &, const QImage &, const QRectF &, Qt::ImageConversionFlags) override { ++shapes; }
    Type type() const override { return QPaintEngine::User; }
    std::int64_t shapes = 0;
};

class CountingDevice final : public QPaintDevice
{
public:
    QPaintEngine *paintEngine() const override { return &m_engine; }
    std::int64_t shapes() const { return m_engine.shapes; }
    void reset() { m_engine.shapes = 0; }

protected:
    int metric(PaintDeviceMetric m) const override
    {
        switch (m) {
        case PdmWidth: return kWidth;
        case PdmHeight: return kHeight;
        case PdmWidthMM: return kWidth * 254 / 960;
        case PdmHeightMM: return kHeight * 254 / 960;
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY: return 96;
        case PdmDevicePixelRatio: return 1;
        case PdmDevicePixelRatioScaled: return static_cast<int>(QPaintDevice::devicePixelRatioFScale());
        default: return 1;
        }
    }

private:
    mutable CountingEngine m_engine;
};

SessionPtr loadRanks(const std::string &dir, int &ranks)
{
    std::vector<std::string> files;
    for (const auto &e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().rfind("rank-", 0) == 0)
            files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    SessionLoader::Options o;
    o.threads = 2;
    for (const std::string &f : files) {
        const std::string name = std::filesystem::path(f).filename().string();
        o.rankOverrides[f] = std::atoi(name.c_str() + 5);
    }
    SessionPtr s = SessionLoader(files, o).run();
    if (!s || s->ranks().empty())
        throw std::runtime_error(dir + ": nothing was imported");
    ranks = static_cast<int>(s->ranks().size());
    g_loadedRss = residentBytes();
    return s;
}

struct Frames {
    std::vector<double> times;   // µs per frame
    std::vector<double> floors;  // µs to fillRect as many rectangles as the frame drew
    std::vector<std::int64_t> shapes;
};

double percentile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(std::min<double>(static_cast<double>(v.size() - 1), std::ceil(q * static_cast<double>(v.size())) - 1));
    return v[i];
}

// Times one frame: `change` applied and the events processed, which repaints what changed into
// the window (the offscreen platform's backing store), as a user waits for it. Then, untimed, the
// view is rendered into the kept image, what it draws is counted, and the floor is timed: that many
// plain rectangles.
void frame(QWidget &view, QImage &image, CountingDevice &counter, Frames &out, const std::function<void()> &change)
{
    const auto t0 = Clock::now();
    change();
    QApplication::processEvents();
    out.times.push_back(micros(Clock::now() - t0));
    {
        QPainter p(&image);
        view.render(&p);
    }

    counter.reset();
    {
        QPainter p(&counter);
        view.render(&p);
    }
    out.shapes.push_back(counter.shapes());
    std::mt19937 rng(42);
    std::uniform_int_distribution<int> x(0, kWidth - 9), y(0, kHeight - 13);
    const QColor colors[3] = {QColor(0x3d, 0x6f, 0xb6), QColor(0x2f, 0x8a, 0x5f), QColor(0x9a, 0x5b, 0x13)};
    static QImage floorImage(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
    const auto f0 = Clock::now();
    {
        QPainter p(&floorImage);
        for (std::int64_t i = 0; i < counter.shapes(); ++i)
            p.fillRect(QRect(x(rng), y(rng), 8, 12), colors[i % 3]);
    }
    out.floors.push_back(micros(Clock::now() - f0));
}

// RANKSCOPE_BENCH_FRAMES=DIR keeps each scenario's last frame as DIR/<probe>.png, to look at,
// and each frame's time (ms) as DIR/<probe>.txt, one line per frame, to see which frames are slow.
void keepFrame(const QImage &image, const char *name, const std::vector<double> &times)
{
    const QString dir = qEnvironmentVariable("RANKSCOPE_BENCH_FRAMES");
    if (dir.isEmpty())
        return;
    image.save(dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".png"));
    if (std::FILE *f = std::fopen((dir + QLatin1Char('/') + QLatin1String(name) + QStringLiteral(".txt")).toLocal8Bit().constData(), "w")) {
        for (double t : times)
            std::fprintf(f, "%.2f\n", t / 1e3);
        std::fclose(f);
    }
}

ProbeOutcome report(const Frames &f, double openMicros, int ranks, double seconds)
{
    ProbeOutcome o;
    o.seconds = seconds;
    std::vector<double> shapes(f.shapes.begin(), f.shapes.end());
    o.values = {static_cast<std::int64_t>(f.times.size()),
                static_cast<std::int64_t>(percentile(f.times, 0.5)),
                static_cast<std::int64_t>(percentile(f.times, 0.95)),
                static_cast<std::int64_t>(percentile(f.times, 1.0)),
                static_cast<std::int64_t>(percentile(f.floors, 0.5)),
                static_cast<std::int64_t>(openMicros),
                ranks,
                static_cast<std::int64_t>(percentile(shapes, 0.5)),
                g_loadedRss};
    return o;
}

// One scenario's setup: the ranks loaded, the timeline opened at 1920×1080 (timed), the frame
// buffers; finish() keeps the last frame when asked and reports.
struct Scene {
    explicit Scene(const std::string &dir)
    {
        ensureApplication();
        session = loadRanks(dir, ranks);
        t0 = Clock::now();
        view = std::make_unique<TimelineView>(&state);
        view->resize(kWidth, kHeight);
        view->setSession(session);
        view->show();
        QApplication::processEvents();
        QPainter p(&image);
        view->render(&p);
        openMicros = micros(Clock::now() - t0);
    }

    ProbeOutcome finish(const char *name)
    {
        keepFrame(image, name, frames.times);
        return report(frames, openMicros, ranks, std::chrono::duration<double>(Clock::now() - t0).count());
    }

    int ranks = 0;
    SessionPtr session;
    Clock::time_point t0;
    ViewState state;
    std::unique_ptr<TimelineView> view;
    double openMicros = 0;
    QImage image{kWidth, kHeight, QImage::Format_ARGB32_Premultiplied};
    CountingDevice counter;
    Frames frames;
};

// Zoom in towards the middle `zooms` times by `factor`, then pan right and left, a third of the
// window a step, as many steps as `pans`.
std::vector<TimeRange> zoomAndPan(TimeRange full, int zooms, double factor, int pans)
{
    std::vector<TimeRange> steps;
    TimeRange r = full;
    for (int i = 0; i < zooms; ++i) {
        const TimeNs mid = r.begin + r.duration() / 2;
        const auto half = std::max<TimeNs>(static_cast<TimeNs>(static_cast<double>(r.duration()) / (2 * factor)), 1000);
        r = {mid - half, mid + half};
        steps.push_back(r);
    }
    for (int i = 0; i < pans; ++i) {
        const TimeNs step = (i < pans / 2 ? 1 : -1) * r.duration() / 3;
        r = {r.begin + step, r.end + step};
        steps.push_back(r);
    }
    return steps;
}

} // namespace

ProbeOutcome FrameProbes::zoomPan(const std::string &dir)
{
    Scene sc(dir);
    const TimeRange full = sc.state.visibleRange();
    // The full range, as opened, painted again from scratch (an expose: nothing cached helps).
    const auto exposeAll = [&] {
        sc.view->update();
        for (QWidget *w : sc.view->findChildren<QWidget *>())
            w->update();
    };
    for (int i = 0; i < 3; ++i)
        frame(*sc.view, sc.image, sc.counter, sc.frames, exposeAll);
    for (const TimeRange &r : zoomAndPan(full, 10, 2.0, 10))
        frame(*sc.view, sc.image, sc.counter, sc.frames, [&] { sc.state.setVisibleRange(r); });
    return sc.finish("frames-zoom-pan");
}

ProbeOutcome FrameProbes::overview(const std::string &dir)
{
    Scene sc(dir);
    const auto o0 = Clock::now();
    RanksOverview overview(sc.view.get());
    overview.resize(kWidth, kHeight);
    overview.show();
    QApplication::processEvents();
    sc.openMicros += micros(Clock::now() - o0);
    for (const TimeRange &r : zoomAndPan(sc.state.visibleRange(), 10, 1.5, 10))
        frame(overview, sc.image, sc.counter, sc.frames, [&] { sc.state.setVisibleRange(r); });
    return sc.finish("frames-overview");
}

ProbeOutcome FrameProbes::scroll(const std::string &dir)
{
    Scene sc(dir);
    QScrollBar *bar = sc.view->verticalScrollBar();
    // Top to bottom a viewport at a time (at most 200 frames, evenly spread).
    const int page = std::max(1, bar->pageStep());
    const int steps = std::min(200, bar->maximum() / page + 1);
    for (int i = 0; i <= steps; ++i) {
        const int value = steps == 0 ? 0 : static_cast<int>(static_cast<std::int64_t>(bar->maximum()) * i / steps);
        frame(*sc.view, sc.image, sc.counter, sc.frames, [&] { bar->setValue(value); });
    }
    return sc.finish("frames-scroll");
}

} // namespace rs::bench
