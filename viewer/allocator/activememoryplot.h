#pragma once
// The chart of ActiveMemory: each allocation with a band of its own as a rectangle per stretch of
// its life at one offset, coloured by the user frame that made it (the same frame, the same
// colour), the smaller allocations summed in one grey band on top. QCustomPlot gives the axes,
// the drag and wheel zoom of the time axis and the export; the bands are one QCPLayerable that
// draws only what falls in the visible range and skips bands under a pixel high.

#include "charts/qcustomplotinclude.h"

#include "activememory.h"

#include <memory>

namespace rs {

class Palette;

class ActiveMemoryPlot : public QCustomPlot
{
    Q_OBJECT
public:
    explicit ActiveMemoryPlot(QWidget *parent = nullptr);

    /// Shows `layout` of `session`. Keys are ns after `keyOrigin` shifted by `clockOffset` (the
    /// rank's, as the timeline shows it) when the layout is clocked, else trace entry numbers.
    void setLayout(std::shared_ptr<const ActiveMemory> layout, SessionPtr session, TimeNs keyOrigin, TimeNs clockOffset);
    const ActiveMemory *layout() const { return m_layout.get(); }
    /// The key of layout time `t`, and back.
    double keyOf(TimeNs t) const;
    TimeNs timeOf(double key) const;
    /// The band under widget position `pos` (-1: none, or the summed rest).
    int bandAt(QPointF pos) const;
    /// Outlines `band` (-1: none).
    void setSelectedBand(int band);
    int selectedBand() const { return m_selected; }
    /// The fill of `band`: a colour per top user frame of its stack (grey without a stack).
    QColor bandColor(int band) const;
    /// "1.25 GiB · 0x7f…00 · step (train.py:42)", then the stack one frame a line (the tooltip).
    QString describe(int band) const;
    /// Background, grid and text colours from `palette`.
    void applyColors(const Palette &palette);

Q_SIGNALS:
    /// A band was clicked (-1: empty space).
    void bandClicked(int band);

protected:
    void mousePressEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    class Bands;
    friend class Bands;
    Bands *m_bands = nullptr;
    std::shared_ptr<const ActiveMemory> m_layout;
    SessionPtr m_session;
    TimeNs m_keyOrigin = 0;
    TimeNs m_clockOffset = 0;
    int m_selected = -1;
    QPoint m_pressPos;
    std::vector<QColor> m_colors; // per band
};

} // namespace rs
