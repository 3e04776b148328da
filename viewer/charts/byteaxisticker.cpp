#include "byteaxisticker.h"

#include "timeformat.h"

#include <algorithm>

namespace rs {

double ByteAxisTicker::getTickStep(const QCPRange &range)
{
    m_upper = range.upper;
    const double target = range.size() / std::max(1, tickCount());
    double step = 1;
    while (step < target)
        step *= 2;
    return step;
}

QString ByteAxisTicker::getTickLabel(double tick, const QLocale &, QChar, int)
{
    return tick <= 0 || tick > m_upper * 0.88 ? QString() : TimeFormat::bytes(tick);
}

} // namespace rs
