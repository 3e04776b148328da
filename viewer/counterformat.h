#pragma once
// Units of counter tracks. The model stores a counter as bare doubles; what they measure follows
// from the track's kind, its source's format and, for nvidia-smi's other columns, the unit the
// importer put in the track name ("GPU 0 power.draw (W)") or the column name itself.

#include "session.h"

#include <QString>

namespace rs {

class CounterFormat
{
public:
    enum class Unit : std::uint8_t {
        Bytes,   ///< memory counters, memory-timeline categories
        Percent, ///< utilisation
        Watts,   ///< power draw
        Celsius, ///< temperatures
        MHz,     ///< clocks
        MiB,     ///< nvidia-smi memory columns other than memory.used (kept as printed)
        Plain,   ///< unknown: printed as a number
    };

    /// The unit of `track`'s values.
    static Unit unit(const Session &session, const Track &track);
    /// `value` in `unit`, to three or four significant digits ("74.1 W", "35 %", "1.25 GiB").
    static QString value(double value, Unit unit);
    /// A fixed top for the lane's scale (100 for percentages), or 0 to scale to the track's maximum.
    static double fixedMax(Unit unit);
};

} // namespace rs
