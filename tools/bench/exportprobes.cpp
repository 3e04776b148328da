#include "exportprobes.h"
#include "benchapp.h"

#include "charts/memorychartrenderer.h"
#include "export/figureexporter.h"
#include "export/mergedtracewriter.h"
#include "sessionloader.h"

#include <QByteArray>
#include <QApplication>
#include <QGuiApplication>
#include <QTemporaryDir>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace rs::bench {

namespace {

using Clock = std::chrono::steady_clock;

double cpuNow()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Painting needs a QApplication (fonts, and the memory chart is the screen's QCustomPlot chart,
// installed as the figures' chart engine as `rankscope export` does); the bench child has no
// display to talk to.
void ensureGuiApplication()
{
    if (QGuiApplication::instance())
        return;
    ensureApplication();
    MemoryChartRenderer::install();
}

SessionPtr load(const std::string &path)
{
    SessionLoader::Options o;
    o.threads = 1;
    SessionPtr s = SessionLoader({path}, o).run();
    if (!s || s->sources().empty() || s->sources().front().hasErrors())
        throw std::runtime_error(path + ": the import failed");
    return s;
}

template <typename Stage>
ProbeOutcome timed(Stage stage)
{
    const double cpu0 = cpuNow();
    const auto t0 = Clock::now();
    ProbeOutcome out;
    out.values = stage();
    out.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    out.cpuSeconds = cpuNow() - cpu0;
    return out;
}

} // namespace

ProbeOutcome ExportProbes::figure(const std::string &path)
{
    ensureGuiApplication();
    const SessionPtr session = load(path);
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("figure.png"));
    return timed([&] {
        FigureOptions o; // the whole session, every rank, compact lanes, 1600 px wide
        QString error;
        if (!FigureExporter(session, nullptr).exportTo(png, FigureExporter::Format::Png, o, &error))
            throw std::runtime_error(error.toStdString());
        const QImage image(png);
        return std::vector<std::int64_t>{static_cast<std::int64_t>(std::filesystem::file_size(png.toStdString())),
                                         image.width(), image.height()};
    });
}

ProbeOutcome ExportProbes::mergedTrace(const std::string &path)
{
    ensureGuiApplication();
    const SessionPtr session = load(path);
    QTemporaryDir dir;
    const QString json = dir.filePath(QStringLiteral("merged.json"));
    return timed([&] {
        QString error;
        if (!MergedTraceWriter::write(json, *session, nullptr, {}, &error))
            throw std::runtime_error(error.toStdString());
        return std::vector<std::int64_t>{static_cast<std::int64_t>(std::filesystem::file_size(json.toStdString()))};
    });
}

} // namespace rs::bench
