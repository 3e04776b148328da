#pragma once
// Level of detail, computed before anything is painted (the Tracy approach): at a zoom where a
// hundred thousand kernels share a few hundred pixels, painting each one is both slow and useless.
// Spans narrower than a few pixels are folded into "busy" blocks that say how many spans they hold;
// counters are reduced to one min/max column per pixel so a one-sample spike never disappears.
//
// Pure functions on the frozen model. The caller owns the output vectors and reuses them from frame
// to frame, so steady-state painting allocates nothing.

#include "track.h"

#include <cstdint>
#include <vector>

namespace rs {

/// Spans drawn narrower than this many pixels are folded into busy blocks.
inline constexpr double kLodFoldWidthPx = 3.0;

/// One thing to paint on one level of a track: a single span, or a folded run of narrow spans.
struct SpanDrawItem {
    TimeNs start = 0;        ///< start of the first span represented
    TimeNs end = 0;          ///< end of the last span represented (may lie past the visible range)
    std::uint32_t first = 0; ///< index into Track::spans of the first span represented
    std::uint32_t count = 1; ///< number of consecutive spans represented; 1 is a single span

    /// True for a busy block standing for several spans too narrow to show one by one.
    bool isFolded() const { return count > 1; }
    friend bool operator==(const SpanDrawItem &, const SpanDrawItem &) = default;
};

/// Every sample of a counter that falls in one pixel column, reduced to what a line needs.
struct CounterColumn {
    TimeNs firstTime = 0;        ///< time of the first sample in the column
    TimeNs lastTime = 0;         ///< time of the last sample in the column
    double first = 0;            ///< value of the first sample
    double last = 0;             ///< value of the last sample (held until the next column)
    double min = 0;              ///< smallest value in the column
    double max = 0;              ///< largest value in the column
    std::uint32_t firstIndex = 0; ///< index in the series of the first sample
    std::uint32_t count = 0;      ///< number of samples in the column

    friend bool operator==(const CounterColumn &, const CounterColumn &) = default;
};

/// Fills `out` (cleared first) with the draw items of level `depth` of `track` that intersect
/// `visible`, at `nsPerPixel`. A span at least `minWidthPx` wide is kept as it is. A narrow span
/// starts a busy block that swallows each following narrow span starting less than `minWidthPx`
/// after the block's end; a block that swallowed nothing stays a single (narrow) span item.
/// Runs in O(blocks · log n): runs of tiny spans are skipped by binary search, not visited.
void foldSpans(const Track &track, std::uint16_t depth, TimeRange visible, double nsPerPixel,
               std::vector<SpanDrawItem> &out, double minWidthPx = kLodFoldWidthPx);

/// Fills `out` (cleared first) with one column per pixel for the samples of `series` in `visible`.
/// Column k covers [visible.begin + k·nsPerPixel, visible.begin + (k+1)·nsPerPixel); columns without
/// samples are left out. The sample just before `visible` and the one just after it, when they
/// exist, are added as one-sample columns at either end, so a step line reaches both edges.
void decimateCounter(const CounterSeries &series, TimeRange visible, double nsPerPixel,
                     std::vector<CounterColumn> &out);

/// Value of a step-wise counter at `t`: the last sample at or before `t`; false when `t` is before
/// the first sample.
bool counterValueAt(const CounterSeries &series, TimeNs t, double *value);

} // namespace rs
