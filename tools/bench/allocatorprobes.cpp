#include "allocatorprobes.h"
#include "benchapp.h"

#include "activememory.h"
#include "allocator/activememoryview.h"
#include "sessionbuilder.h"
#include "viewstate.h"

#include <QApplication>
#include <QSlider>

#include <algorithm>
#include <chrono>
#include <random>
#include <stdexcept>

namespace rs::bench {

namespace {

using Clock = BenchClock;

// A training loop's allocations on one GPU, 1 µs apart: per step, small temporaries freed within
// a few dozen entries, activations freed at the step's end, and now and then a large buffer that
// stays (optimizer state, caches). Fixed seed: every run lays out the same history.
SessionPtr history(std::size_t count)
{
    constexpr TimeNs kBase = 1'700'000'000'000'000'000LL;
    std::mt19937_64 rng(20261205);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    SourceBuilder b("/bench/allocator-history");
    b.source().format = "memory-snapshot";
    b.source().ranks = {0};
    b.source().hasClock = true;
    std::vector<std::size_t> activations;
    std::uint64_t address = 0x7f0000000000;
    for (std::size_t i = 0; i < count; ++i) {
        AllocationRecord a;
        a.rank = 0;
        a.device = 0;
        a.time = kBase + static_cast<TimeNs>(i) * 1000;
        a.sequence = static_cast<std::int64_t>(i);
        a.address = address;
        a.stack = -1;
        const double kind = unit(rng);
        if (kind < 0.70) { // a temporary
            a.size = 512 * (1 + static_cast<std::int64_t>(unit(rng) * 128));
            a.freed = a.time + 1000 * (1 + static_cast<TimeNs>(unit(rng) * 40));
        } else if (kind < 0.98) { // an activation, freed at the step's end
            a.size = (1 + static_cast<std::int64_t>(unit(rng) * 16)) << 20;
            activations.push_back(b.allocator().allocations.size());
        } else { // a long-lived buffer
            a.size = (64 + static_cast<std::int64_t>(unit(rng) * 448)) << 20;
            a.freed = unit(rng) < 0.5 ? kNoTime : a.time + static_cast<TimeNs>(count / 4) * 1000;
        }
        address += static_cast<std::uint64_t>(a.size) + 4096;
        b.allocator().allocations.push_back(a);
        if (activations.size() >= 400 || i + 1 == count) { // a step ends: its activations go
            for (const std::size_t k : activations)
                b.allocator().allocations[k].freed = a.time + 500;
            activations.clear();
        }
    }
    b.finish();
    SessionBuilder sb;
    sb.addSource(std::move(b));
    return sb.freeze();
}

struct Timing {
    std::int64_t bands = 0;
    double layoutMicros = 0;
    double replotMicros = 0;
};

Timing measure(ActiveMemoryView &view, int step)
{
    Timing t;
    const auto start = Clock::now();
    view.detailSlider()->setValue(step); // lays out again and replots
    t.layoutMicros = micros(Clock::now() - start);
    t.bands = view.layout() ? static_cast<std::int64_t>(view.layout()->bands.size()) : 0;
    std::vector<double> replots;
    for (int i = 0; i < 9; ++i) {
        const auto r = Clock::now();
        QMetaObject::invokeMethod(view.plotWidget(), "replot");
        replots.push_back(micros(Clock::now() - r));
    }
    std::nth_element(replots.begin(), replots.begin() + 4, replots.end());
    t.replotMicros = replots[4];
    return t;
}

} // namespace

ProbeOutcome AllocatorProbes::activeMemory(const std::string &allocations)
{
    const auto count = static_cast<std::size_t>(std::stoull(allocations));
    if (count == 0)
        throw std::runtime_error("no allocations to lay out");
    ensureApplication();
    const auto wall = Clock::now();
    const SessionPtr session = history(count);
    ViewState state;
    state.setFullRange(session->timeRange());
    ActiveMemoryView view(&state);
    view.resize(1600, 500);
    view.setSession(session);
    // The slider's steps: index 4 is the default (2,000 largest), the last one every allocation.
    const int all = view.detailSlider()->maximum();
    view.detailSlider()->setValue(0); // start elsewhere, so each measured step is a real change
    const Timing byDefault = measure(view, 4);
    view.detailSlider()->setValue(0);
    const Timing every = measure(view, all);
    ProbeOutcome o;
    o.seconds = std::chrono::duration<double>(Clock::now() - wall).count();
    o.values = {static_cast<std::int64_t>(count),
                byDefault.bands, static_cast<std::int64_t>(byDefault.layoutMicros), static_cast<std::int64_t>(byDefault.replotMicros),
                every.bands, static_cast<std::int64_t>(every.layoutMicros), static_cast<std::int64_t>(every.replotMicros)};
    return o;
}

} // namespace rs::bench
