#include "allocatorreport.h"

#include "textformat.h"

#include <array>
#include <string_view>

namespace rs::tracegen {

namespace {

// memory_summary()'s rows: the DeviceStats field, the printed name, and whether it counts bytes.
struct Metric {
    AllocatorStats::PoolStats AllocatorStats::*stat;
    std::string_view name;
    bool bytes;
};
constexpr std::array<Metric, 9> kMetrics = {{
    {&AllocatorStats::allocatedBytes, "Allocated memory", true},
    {&AllocatorStats::activeBytes, "Active memory", true},
    {&AllocatorStats::requestedBytes, "Requested memory", true},
    {&AllocatorStats::reservedBytes, "GPU reserved memory", true},
    {&AllocatorStats::inactiveSplitBytes, "Non-releasable memory", true},
    {&AllocatorStats::allocation, "Allocations", false},
    {&AllocatorStats::active, "Active allocs", false},
    {&AllocatorStats::segment, "GPU reserved segments", false},
    {&AllocatorStats::inactiveSplit, "Non-releasable allocs", false},
}};

std::string padRight(std::string_view s, std::size_t width)
{
    std::string out(s);
    if (out.size() < width)
        out.append(width - out.size(), ' ');
    return out;
}

std::string padLeft(std::string_view s, std::size_t width)
{
    std::string out;
    if (s.size() < width)
        out.assign(width - s.size(), ' ');
    return out.append(s);
}

// Python's " {:<21} | {} | {} | {} | {} ".format(...), the cells already formatted.
std::string row(std::string_view name, const std::array<std::string, 4> &cells)
{
    std::string out = " " + padRight(name, 21);
    for (const std::string &c : cells)
        out += " | " + c;
    return out + " ";
}

} // namespace

std::string AllocatorReport::formatBytesCell(std::int64_t value, double preferred)
{
    // _format_size: the unit steps up while the *preferred* value (the row's "all" pool, same
    // column) is at least 768 KiB; the value itself is floor-divided along.
    static constexpr std::array<std::string_view, 6> kUnits = {"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"};
    std::size_t unit = 0;
    while (unit + 1 < kUnits.size() && preferred >= 768.0 * 1024.0) {
        ++unit;
        value /= 1024;
        preferred /= 1024.0;
    }
    return padLeft(std::to_string(value), 6) + " " + std::string(kUnits[unit]);
}

std::string AllocatorReport::formatCountCell(std::int64_t value, double preferred)
{
    // _format_count: " ", "K", "M" in steps of 1000 while the preferred value is >= 750000.
    static constexpr std::array<std::string_view, 3> kUnits = {" ", "K", "M"};
    std::size_t unit = 0;
    while (unit + 1 < kUnits.size() && preferred >= 750.0 * 1000.0) {
        ++unit;
        value /= 1000;
        preferred /= 1000.0;
    }
    return padLeft(std::to_string(value), 7) + " " + std::string(kUnits[unit]) + " ";
}

std::string AllocatorReport::memorySummary(const AllocatorStats &stats, int device)
{
    std::vector<std::string> lines;
    const std::string rule(75, '=');
    const std::string thin(75, '-');
    lines.push_back(rule);
    // " {_:16} PyTorch CUDA memory summary, device ID {device:<17d} "
    lines.push_back(" " + std::string(16, ' ') + " PyTorch CUDA memory summary, device ID "
                    + padRight(std::to_string(device), 17) + " ");
    lines.push_back(thin);
    // "  {_:9} CUDA OOMs: {num_ooms:<12d} | {_:6} cudaMalloc retries: {num_alloc_retries:<8d}  "
    lines.push_back("  " + std::string(9, ' ') + " CUDA OOMs: " + padRight(std::to_string(stats.numOoms), 12) + " | "
                    + std::string(6, ' ') + " cudaMalloc retries: " + padRight(std::to_string(stats.numAllocRetries), 8)
                    + "  ");
    lines.push_back(rule);
    lines.push_back("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ");
    static constexpr std::array<std::string_view, 3> kPools = {"", "      from large pool", "      from small pool"};
    for (const Metric &m : kMetrics) {
        lines.push_back(thin);
        const AllocatorStats::PoolStats &pools = stats.*(m.stat);
        const AllocatorStats::Stat &all = pools[AllocatorStats::All];
        for (std::size_t p = 0; p < pools.size(); ++p) {
            const AllocatorStats::Stat &s = pools[p];
            auto cell = [&](std::int64_t v, std::int64_t pref) {
                return m.bytes ? formatBytesCell(v, static_cast<double>(pref))
                               : formatCountCell(v, static_cast<double>(pref));
            };
            lines.push_back(row(p == 0 ? m.name : kPools[p], {cell(s.current, all.current), cell(s.peak, all.peak),
                                                              cell(s.allocated, all.allocated),
                                                              cell(s.freed, all.freed)}));
        }
    }
    for (const auto &[stat, name] : {std::pair{&stats.oversizeAllocations, std::string_view("Oversize allocations")},
                                     std::pair{&stats.oversizeSegments, std::string_view("Oversize GPU segments")}}) {
        lines.push_back(thin);
        auto cell = [](std::int64_t v) { return formatCountCell(v, static_cast<double>(v)); };
        lines.push_back(row(name, {cell(stat->current), cell(stat->peak), cell(stat->allocated), cell(stat->freed)}));
    }
    lines.push_back(rule);
    std::string out;
    for (const std::string &l : lines)
        out += "|" + l + "|\n";
    return out;
}

std::string AllocatorReport::formatSize(std::int64_t bytes)
{
    const auto size = static_cast<double>(bytes);
    if (bytes <= 1024)
        return std::to_string(bytes) + " bytes";
    if (bytes <= 1048576)
        return TextFormat::fixed(size / 1024.0, 2) + " KiB";
    if (bytes <= 1073741824LL)
        return TextFormat::fixed(size / 1048576.0, 2) + " MiB";
    return TextFormat::fixed(size / 1073741824.0, 2) + " GiB";
}

std::string AllocatorReport::oomMessage(const OomRecord &oom, const GpuSpec &gpu, int device)
{
    // NVML's figure for this process: everything it mapped, cache and context alike; the device
    // has nothing else on it, so cudaMemGetInfo's free is the rest.
    const std::int64_t inUse = oom.reserved + gpu.nonPytorchMemory();
    const std::int64_t free = gpu.totalMemory - inUse;
    return "CUDA out of memory. Tried to allocate " + formatSize(oom.segment) + ". GPU " + std::to_string(device)
           + " has a total capacity of " + formatSize(gpu.totalMemory) + " of which " + formatSize(free)
           + " is free. Including non-PyTorch memory, this process has " + formatSize(inUse)
           + " memory in use. Of the allocated memory " + formatSize(oom.allocated)
           + " is allocated by PyTorch, and " + formatSize(oom.reserved - oom.allocated)
           + " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
             "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for "
             "Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
}

} // namespace rs::tracegen
