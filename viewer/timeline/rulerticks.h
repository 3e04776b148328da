#pragma once
// The ticks of a time ruler, Tracy style: major ticks at powers of ten labelled with the time since
// the session start, minor ones labelled as offsets from the major tick before them. Computed here
// without widgets, so the screen's ruler (TimeRuler), the lanes' grid and exported figures share them.

#include "timescale.h"

#include <QString>

#include <vector>

namespace rs {

/// One labelled tick of the ruler.
struct RulerTick {
    TimeNs time = 0; ///< absolute time of the tick
    QString label;   ///< text shown next to it
    friend bool operator==(const RulerTick &, const RulerTick &) = default;
};

/// The ticks of one ruler frame; also used for the lanes' grid and the chart axes.
struct RulerTicks {
    TimeNs step = 0;              ///< distance between minor ticks
    TimeNs majorStep = 0;         ///< distance between major ticks (the next power of ten above step)
    int subdivisions = 1;         ///< unlabelled sub-ticks per step
    std::vector<RulerTick> major; ///< top row: multiples of majorStep inside the window
    std::vector<RulerTick> minor; ///< bottom row: other multiples of step, labelled as offsets
    RulerTick context;            ///< the major tick at or before the window start (pinned label)

    /// Height of a ruler (the screen's and a figure's).
    static constexpr int kHeight = 40;
    /// Minor labels are at least this many pixels apart.
    static constexpr int kMinTickSpacingPx = 80;
    /// The ticks of `visible` drawn `widthPx` wide, with times labelled relative to `origin`.
    static RulerTicks compute(TimeRange visible, TimeNs origin, double widthPx, int minSpacingPx = kMinTickSpacingPx);
};

} // namespace rs
