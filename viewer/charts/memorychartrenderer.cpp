#include "memorychartrenderer.h"

#include "memoryplot.h"
#include "palette.h"

#include <QApplication>
#include <QPainter>
#include <QPicture>
#include <QSemaphore>
#include <QThread>

#include <optional>

namespace rs {

MemoryChartRenderer::MemoryChartRenderer() = default;

MemoryChartRenderer::~MemoryChartRenderer() = default;

void MemoryChartRenderer::install()
{
    if (!qobject_cast<QApplication *>(QCoreApplication::instance()))
        return;
    if (MemoryChartEngine::installed())
        return;
    // Owned by the engine slot (shared with figures being drawn), living on the GUI thread.
    std::shared_ptr<MemoryChartRenderer> renderer(new MemoryChartRenderer);
    renderer->moveToThread(QCoreApplication::instance()->thread());
    MemoryChartRenderer *raw = renderer.get();
    // After the event loop ends nobody serves queued requests: a report still drawing on the pool
    // while the window closes loses its charts instead of waiting forever.
    QObject::connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, raw, [raw] { raw->m_quitting = true; },
                     Qt::DirectConnection);
    MemoryChartEngine::install(std::move(renderer));
}

QPicture MemoryChartRenderer::picture(const MemoryChart &chart, const ChartView &view, QSize size) const
{
    if (!m_plot)
        m_plot = std::make_unique<MemoryPlot>();
    return m_plot->picture(chart, view, size);
}

bool MemoryChartRenderer::paint(QPainter &painter, const QRect &area, const MemoryChart &chart, const ChartView &view) const
{
    if (area.width() < 2 || area.height() < 2)
        return false;
    QPicture drawn;
    if (QThread::currentThread() == thread()) {
        drawn = picture(chart, view, area.size());
    } else {
        // The chart, the view and the result travel by value; the chart holds its session.
        struct Request {
            MemoryChart chart;
            ChartView view;
            std::optional<Palette> colors; // the caller's palette may be gone if it gives up
            QSize size;
            QPicture result;
            QSemaphore done;
        };
        auto request = std::make_shared<Request>();
        request->chart = chart;
        request->view = view;
        if (view.colors) {
            request->colors = *view.colors;
            request->view.colors = &*request->colors;
        }
        request->size = area.size();
        QMetaObject::invokeMethod(
            const_cast<MemoryChartRenderer *>(this),
            [this, request] {
                request->result = picture(request->chart, request->view, request->size);
                request->done.release();
            },
            Qt::QueuedConnection);
        while (!request->done.tryAcquire(1, 50))
            if (m_quitting)
                return false;
        drawn = request->result;
    }
    painter.save();
    painter.setClipRect(area, Qt::IntersectClip);
    painter.drawPicture(area.topLeft(), drawn);
    painter.restore();
    return true;
}

} // namespace rs
