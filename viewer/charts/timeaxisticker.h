#pragma once
// A QCustomPlot axis ticker for time axes whose keys are ns relative to the session start. It puts
// ticks where the timeline ruler puts them and labels them in the same units, so a chart stacked
// under the ruler lines up with it tick for tick.

#include "qcustomplotinclude.h"

#include "types.h"

namespace rs {

class TimeAxisTicker : public QCPAxisTicker
{
public:
    TimeAxisTicker();

    /// Forces the tick step (e.g. the ruler's step); 0 lets the ticker choose from tickCount().
    void setFixedStep(TimeNs step) { m_fixedStep = step; }
    TimeNs fixedStep() const { return m_fixedStep; }
    /// Sub-ticks per step (1 = none), to match the ruler's subdivisions.
    void setSubdivisions(int n) { m_subdivisions = n < 1 ? 1 : n; }

protected:
    double getTickStep(const QCPRange &range) override;
    int getSubTickCount(double tickStep) override;
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;

private:
    TimeNs m_fixedStep = 0;
    int m_subdivisions = 1;
    TimeNs m_step = 1;      // step of the labels being generated
    TimeNs m_magnitude = 0; // largest |key| in the range: picks the unit of every label
};

} // namespace rs
