#pragma once
// A QCustomPlot axis ticker for byte values: ticks on binary boundaries (… 1, 2, 4, 8 GiB …) so the
// labels are round numbers in binary units (TimeFormat::bytes). Zero gets no label, nor does a tick
// near the top, where a label would be cut by whatever sits above the chart.

#include "qcustomplotinclude.h"

namespace rs {

class ByteAxisTicker : public QCPAxisTicker
{
protected:
    double getTickStep(const QCPRange &range) override;
    int getSubTickCount(double) override { return 0; }
    QString getTickLabel(double tick, const QLocale &locale, QChar formatChar, int precision) override;

private:
    double m_upper = 0;
};

} // namespace rs
