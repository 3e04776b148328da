#pragma once
// The text PyTorch prints about its CUDA caching allocator, produced from the simulated one:
// torch.cuda.memory_summary() (torch/cuda/memory.py) and the OutOfMemoryError message
// (c10/cuda/CUDACachingAllocator.cpp), character for character in the PyTorch 2.x layout. The
// importers parse these back, so any drift from the real format shows up as a parse error there.

#include "allocatorstats.h"
#include "jobconfig.h"
#include "jobrecord.h"

#include <string>

namespace rs::tracegen {

class AllocatorReport
{
public:
    /// memory_summary(device): the 77-character table, every line ending in '\n'.
    static std::string memorySummary(const AllocatorStats &stats, int device);

    /// c10's format_size: "512 bytes", "20.00 MiB", "1.17 GiB".
    static std::string formatSize(std::int64_t bytes);

    /// The exception text after "torch.OutOfMemoryError: ": what the allocator raised for `oom`
    /// on `device` of `gpu`, where the process holds `gpu.nonPytorchMemory()` beside its cache
    /// and is alone on the device (NVML reports only this process).
    static std::string oomMessage(const OomRecord &oom, const GpuSpec &gpu, int device);

private:
    static std::string formatBytesCell(std::int64_t value, double preferred);
    static std::string formatCountCell(std::int64_t value, double preferred);
};

} // namespace rs::tracegen
