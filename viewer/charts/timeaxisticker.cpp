#include "timeaxisticker.h"

#include "timeformat.h"

#include <algorithm>
#include <cmath>

namespace rs {

TimeAxisTicker::TimeAxisTicker()
{
    setTickCount(6);
}

double TimeAxisTicker::getTickStep(const QCPRange &range)
{
    // QCustomPlot asks for the step first and for labels afterwards, so the unit chosen here is the
    // one every label of this pass uses.
    m_magnitude = static_cast<TimeNs>(std::max(std::fabs(range.lower), std::fabs(range.upper)));
    m_step = m_fixedStep > 0 ? m_fixedStep : TimeFormat::niceStep(range.size() / std::max(1, tickCount()));
    return static_cast<double>(m_step);
}

int TimeAxisTicker::getSubTickCount(double)
{
    return m_subdivisions - 1;
}

QString TimeAxisTicker::getTickLabel(double tick, const QLocale &, QChar, int)
{
    return TimeFormat::tick(static_cast<TimeNs>(std::llround(tick)), m_step, m_magnitude);
}

} // namespace rs
