#include "lod.h"

#include <algorithm>
#include <cmath>

namespace rs {

void foldSpans(const Track &track, std::uint16_t depth, TimeRange visible, double nsPerPixel,
               std::vector<SpanDrawItem> &out, double minWidthPx)
{
    out.clear();
    if (visible.isEmpty() || nsPerPixel <= 0)
        return;
    const auto [lo, hi] = track.levelRange(depth, visible.begin, visible.end);
    // Rounded up so that "narrower than minWidthPx" never keeps a span that paints below it.
    const auto minNs = static_cast<TimeNs>(std::ceil(minWidthPx * nsPerPixel));
    const Span *spans = track.spans.data();
    std::uint32_t i = lo;
    while (i < hi) {
        const Span &s = spans[i];
        if (s.duration >= minNs) {
            out.push_back({s.start, s.end(), i, 1});
            ++i;
            continue;
        }
        TimeNs blockEnd = s.end();
        std::uint32_t j = i + 1;
        while (j < hi) {
            const Span &next = spans[j];
            if (next.duration >= minNs || next.start >= blockEnd + minNs)
                break;
            // Spans of a level are sorted and disjoint, so everything that ends within one fold
            // width after `next` is itself narrow and close: swallow the whole run in one search.
            // Each round moves the block end by at least minNs, which bounds the rounds by pixels.
            const TimeNs limit = next.end() + minNs;
            const Span *stop = std::partition_point(spans + j + 1, spans + hi,
                                                    [limit](const Span &x) { return x.end() < limit; });
            j = static_cast<std::uint32_t>(stop - spans);
            blockEnd = std::max(blockEnd, spans[j - 1].end());
        }
        out.push_back({s.start, blockEnd, i, j - i});
        i = j;
    }
}

namespace {

CounterColumn singleSample(const CounterSeries &series, std::size_t i)
{
    const double v = series.values[i];
    return {series.times[i], series.times[i], v, v, v, v, static_cast<std::uint32_t>(i), 1};
}

} // namespace

void decimateCounter(const CounterSeries &series, TimeRange visible, double nsPerPixel,
                     std::vector<CounterColumn> &out)
{
    out.clear();
    if (series.empty() || visible.isEmpty() || nsPerPixel <= 0)
        return;
    const auto &times = series.times;
    const auto lo = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), visible.begin) - times.begin());
    const auto hi = static_cast<std::size_t>(std::lower_bound(times.begin() + static_cast<std::ptrdiff_t>(lo), times.end(), visible.end) - times.begin());
    if (lo > 0)
        out.push_back(singleSample(series, lo - 1));
    // Column by column rather than sample by sample: the end of a column is found by galloping
    // (a memory counter of a long trace has hundreds of samples per pixel when zoomed out), and
    // its extremes come from a plain loop over the values that the compiler can vectorize.
    const auto columnOf = [&](std::size_t i) { return static_cast<std::int64_t>(static_cast<double>(times[i] - visible.begin) / nsPerPixel); };
    const double *values = series.values.data();
    std::size_t i = lo;
    while (i < hi) {
        const std::int64_t column = columnOf(i);
        // [i, j) is the column: gallop to a sample past it, then bisect.
        std::size_t step = 1;
        std::size_t below = i;
        std::size_t j = i + 1;
        while (j < hi && columnOf(j) == column) {
            below = j;
            step *= 2;
            j = std::min(hi, i + step);
        }
        j = static_cast<std::size_t>(std::partition_point(times.begin() + static_cast<std::ptrdiff_t>(below + 1), times.begin() + static_cast<std::ptrdiff_t>(j),
                                                          [&](TimeNs t) { return static_cast<std::int64_t>(static_cast<double>(t - visible.begin) / nsPerPixel) == column; })
                                     - times.begin());
        CounterColumn c = singleSample(series, i);
        double lowest = c.min;
        double highest = c.max;
        for (std::size_t k = i + 1; k < j; ++k) {
            lowest = std::min(lowest, values[k]);
            highest = std::max(highest, values[k]);
        }
        c.min = lowest;
        c.max = highest;
        c.lastTime = times[j - 1];
        c.last = values[j - 1];
        c.count = static_cast<std::uint32_t>(j - i);
        out.push_back(c);
        i = j;
    }
    if (hi < times.size())
        out.push_back(singleSample(series, hi));
}

bool counterValueAt(const CounterSeries &series, TimeNs t, double *value)
{
    const auto it = std::upper_bound(series.times.begin(), series.times.end(), t);
    if (it == series.times.begin())
        return false;
    *value = series.values[static_cast<std::size_t>(it - series.times.begin()) - 1];
    return true;
}

} // namespace rs
