#pragma once
// The Allocator dock's "Active memory" tab: the ActiveMemory layout of one GPU of a snapshot with
// history, a device picker, a detail slider (how many of the largest allocations get a band of
// their own; the rest are summed, for speed) and a line that says what the trace lacks (no
// history, allocations without stacks, no clock). When the snapshot has a clock its time axis is
// the timeline's: zooming or dragging either moves both.

#include "session.h"
#include "viewstate.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;
class QSlider;

namespace rs {

class ActiveMemory;
class ActiveMemoryPlot;

class ActiveMemoryView : public QWidget
{
    Q_OBJECT
public:
    /// The detail slider's steps: bands of their own for this many of the largest (0: all).
    static constexpr std::size_t kDetailSteps[] = {50, 200, 500, 1000, 2000, 5000, 0};

    explicit ActiveMemoryView(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);
    /// The layout shown (null when the session has no allocation history).
    const ActiveMemory *layout() const { return m_layout.get(); }
    /// The chart (a QCustomPlot; tests grab and click it as a widget).
    QWidget *plotWidget() const;
    /// The band under `pos` in plotWidget() coordinates, or -1.
    int bandAt(QPoint pos) const;
    /// The widget position of the middle of `band` at its widest stretch on screen (for tests).
    QPoint bandCenter(int band) const;
    /// The plot widget's pixel of layout time `t` and height `bytes`.
    QPoint pixelOf(TimeNs t, double bytes) const;
    /// The fill of `band` (its top user frame's colour; grey without a stack).
    QColor bandColor(int band) const;
    /// The tooltip text of `band`: size, address, top user frame, then the stack.
    QString bandText(int band) const;
    /// The chart's time window in layout time (the trace's clock, or entry numbers ×1000 unclocked).
    TimeRange shownRange() const;
    QComboBox *deviceCombo() const { return m_device; }
    QSlider *detailSlider() const { return m_detail; }
    QLabel *noteLabel() const { return m_note; }

Q_SIGNALS:
    /// A band was clicked: the stack of its allocation (-1 none) should be listed.
    void stackRequested(std::int32_t stack);

private:
    void rebuild();
    void updateNote();
    void followViewState();

    ViewState *m_state;
    SessionPtr m_session;
    std::shared_ptr<const ActiveMemory> m_layout;
    QComboBox *m_device;
    QSlider *m_detail;
    QLabel *m_detailText;
    QLabel *m_note;
    ActiveMemoryPlot *m_plot;
    bool m_syncing = false;
};

} // namespace rs
