#pragma once
// The memory chart engine of the application: figures and pinned lanes draw the chart through the
// same QCustomPlot chart the screen shows (MemoryPlot), rendered into a QPicture and replayed into
// the figure's painter, so PNG, SVG and PDF keep vectors. A chart is a widget, and widgets live on
// the GUI thread: a figure drawn on the pool (the report's images) asks the GUI thread for the
// picture and waits. Install it once the QApplication exists.

#include "timeline/memorychart.h"

#include <QObject>

#include <atomic>
#include <memory>

namespace rs {

class MemoryPlot;

class MemoryChartRenderer final : public QObject, public MemoryChartEngine
{
    Q_OBJECT
public:
    /// Installs a renderer living on the application's thread as MemoryChartEngine::installed().
    /// Needs a QApplication; installing again keeps the first.
    static void install();

    ~MemoryChartRenderer() override;
    bool paint(QPainter &painter, const QRect &area, const MemoryChart &chart, const ChartView &view) const override;

private:
    MemoryChartRenderer();
    QPicture picture(const MemoryChart &chart, const ChartView &view, QSize size) const;

    mutable std::unique_ptr<MemoryPlot> m_plot; // made on first use, on the GUI thread
    std::atomic<bool> m_quitting{false};        // the GUI thread stopped serving: pool callers give up
};

} // namespace rs
