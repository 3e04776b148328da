#pragma once
// `rankscope-bench --allocator`: what the Active memory view's detail slider buys. A synthetic
// allocator history of N allocations (a training loop's mix: many small short-lived blocks,
// activations that live through a step, a few large long-lived ones) is laid out and drawn,
// offscreen at 1600×500, with the slider's default (the 2,000 largest allocations get a band of
// their own, the rest summed) and with every allocation a band (the baseline, same process, same
// data): the layout's time (slider moved: ActiveMemory::build and the first replot) and the
// median of 9 replots (what a pan or zoom costs).

#include "childprocess.h"

#include <string>
#include <string_view>

namespace rs::bench {

class AllocatorProbes
{
public:
    static constexpr std::string_view kActiveMemory = "allocator-active-memory";

    /// `allocations` is the count as text. values: {allocations, bands at the default, layout µs at
    /// the default, replot µs at the default, bands with every allocation, layout µs, replot µs}
    static ProbeOutcome activeMemory(const std::string &allocations);
};

} // namespace rs::bench
