#pragma once
// The mapping between time and horizontal pixels shared by the ruler, the lanes and hit-testing.
// Kept in one place so a click lands on exactly the span that was painted under it.

#include "types.h"

#include <cmath>

namespace rs {

struct TimeScale {
    TimeRange range;   ///< time shown between x0 and x0 + width
    double x0 = 0;     ///< pixel of range.begin
    double width = 1;  ///< pixels covered by the range (> 0)

    double nsPerPixel() const { return static_cast<double>(range.duration()) / (width > 0 ? width : 1); }
    double toX(TimeNs t) const { return x0 + static_cast<double>(t - range.begin) / nsPerPixel(); }
    TimeNs toTime(double x) const { return range.begin + static_cast<TimeNs>(std::llround((x - x0) * nsPerPixel())); }
    /// The same scale for data shifted by `offset` ns at view time (clock alignment).
    TimeScale shifted(TimeNs offset) const { return {{range.begin - offset, range.end - offset}, x0, width}; }
};

} // namespace rs
