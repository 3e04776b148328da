#pragma once
// The one way the command line spreads files over threads: `worker` (which takes items from a
// shared counter until none are left) runs on `threads` threads, the calling one included.

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace rs {

/// Runs `worker` on `threads` threads (0: one per core), never more than `items` (at least one),
/// the calling thread among them; returns once every run has returned.
template <typename Worker>
void runWorkerThreads(unsigned threads, std::size_t items, Worker &&worker)
{
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(items, 1)));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
        pool.emplace_back(worker);
    worker();
    for (auto &t : pool)
        t.join();
}

} // namespace rs
