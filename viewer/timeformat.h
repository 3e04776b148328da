#pragma once
// Every time and byte value the viewer prints goes through here, so the ruler, the chart axes,
// tooltips and the details panel agree on units and precision.

#include "types.h"

#include <QString>

namespace rs {

class TimeFormat
{
public:
    /// ns per unit for the unit that suits `magnitude` (ns, µs, ms or s).
    static TimeNs unitFor(TimeNs magnitude);
    /// Symbol of a unit returned by unitFor ("ns", "µs", "ms", "s").
    static QString unitName(TimeNs unitNs);
    /// Decimals needed to write multiples of `step` exactly in `unitNs` (0..9).
    static int decimalsFor(TimeNs step, TimeNs unitNs);
    /// The smallest 1, 2 or 5 × 10^k ns that is at least `approxNs` (and at least 1).
    static TimeNs niceStep(double approxNs);

    /// `value` in `unitNs` with exactly `decimals` decimals, integer arithmetic only, decimals in
    /// groups of three ("1.234 567 s").
    static QString fixed(TimeNs value, TimeNs unitNs, int decimals);
    /// A ruler/axis label: `value` in the unit of `magnitude`, with as many decimals as `step` needs.
    static QString tick(TimeNs value, TimeNs step, TimeNs magnitude);
    /// "+N unit" for an offset that is a multiple of `step`, in the unit of `step`.
    static QString offset(TimeNs offset, TimeNs step);
    /// A duration to three significant digits ("850 ns", "1.25 µs", "12.3 ms", "2 min 5.0 s").
    static QString duration(TimeNs ns);
    /// A time relative to the session start, exact to the ns, trailing zero groups dropped
    /// ("1.234 567 89 s", "-12 µs").
    static QString precise(TimeNs relative);
    /// Wall-clock time in UTC with ns ("2023-09-07 23:10:01.545 123 456 UTC").
    static QString wallClock(TimeNs epochNs);
    /// False for times of sources without a wall clock (placed from 0, before the year 2000): such a
    /// time must not be written as a date.
    static bool isWallClock(TimeNs t) { return t >= 946684800LL * 1000000000LL; }
    /// A byte count with binary units to three significant digits ("12.3 GiB", "512 B").
    static QString bytes(double bytes);
};

} // namespace rs
