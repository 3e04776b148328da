#include "nvidiasmievidence.h"

#include "jobtimeline.h"
#include "prng.h"
#include "textformat.h"
#include "tracesink.h"
#include "utctime.h"

#include <algorithm>
#include <cstdio>

namespace rs::tracegen {

namespace {
constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kIdleUsed = 4 * kMiB;  // what NVML shows on an A100 with no process
// A context in P0 draws this much over idle before any kernel runs; then compute-heavy kernels
// push towards the board limit while a spinning NCCL kernel barely moves it.
constexpr double kContextW = 26.0;
constexpr double kComputeW = 290.0;
constexpr double kCommW = 45.0;
constexpr std::string_view kHeader = "timestamp, index, name, pci.bus_id, memory.total [MiB], memory.used [MiB], "
                                     "utilization.gpu [%], power.draw [W]\n";
} // namespace

NvidiaSmiEvidence::NvidiaSmiEvidence(std::filesystem::path directory) : m_directory(std::move(directory))
{
    std::filesystem::create_directories(m_directory);
}

std::string NvidiaSmiEvidence::busId(std::int64_t pciBus)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "00000000:%02llX:00.0", static_cast<unsigned long long>(pciBus));
    return buf;
}

void NvidiaSmiEvidence::rankStarted(const RankSetup &rank)
{
    m_gpus[rank.rank].setup = rank;
}

void NvidiaSmiEvidence::event(const RankSetup &rank, const TraceEvent &e)
{
    Gpu &gpu = m_gpus[rank.rank];
    if (e.memory) {
        gpu.reserved.emplace_back(rank.trueTime(e.ts), e.memory->totalReserved);
        return;
    }
    const bool device = e.category == Category::Kernel || e.category == Category::GpuMemcpy
                        || e.category == Category::GpuMemset;
    if (e.phase != Phase::Complete || !device)
        return;
    const Busy span{rank.trueTime(e.ts), rank.trueTime(e.ts + e.dur)};
    gpu.any.push_back(span);
    if (e.tid == rank.computeStream)
        gpu.compute.push_back(span);
}

void NvidiaSmiEvidence::merge(std::vector<Busy> &spans)
{
    std::sort(spans.begin(), spans.end(), [](const Busy &a, const Busy &b) { return a.start < b.start; });
    std::vector<Busy> out;
    for (const Busy &s : spans) {
        if (!out.empty() && s.start <= out.back().end)
            out.back().end = std::max(out.back().end, s.end);
        else
            out.push_back(s);
    }
    spans = std::move(out);
}

TimeNs NvidiaSmiEvidence::covered(const std::vector<Busy> &spans, TimeNs from, TimeNs to)
{
    auto it = std::lower_bound(spans.begin(), spans.end(), from, [](const Busy &b, TimeNs t) { return b.end <= t; });
    TimeNs total = 0;
    for (; it != spans.end() && it->start < to; ++it)
        total += std::min(it->end, to) - std::max(it->start, from);
    return total;
}

std::int64_t NvidiaSmiEvidence::usedBytes(const Gpu &gpu, const JobTimeline &timeline, const RankRecord &record,
                                          TimeNs t) const
{
    const JobTimeline::Rank &r = timeline.rank(record.setup.rank);
    if (t < r.cudaReady || t >= r.exited)
        return kIdleUsed;
    const GpuSpec &spec = timeline.config().gpu;
    std::int64_t used = kIdleUsed + spec.contextMemory;
    if (t >= r.ncclReady)
        used += spec.ncclMemory;
    if (t < r.profilerStart) {
        // Before the profiler: the weights, then the AdamW moments from the checkpoint (twice the
        // weights), all in the allocator's cache already.
        if (t >= r.modelOnDevice)
            used += record.initialReserved / 3;
        if (t >= r.checkpointLoaded)
            used += record.initialReserved - record.initialReserved / 3;
        return used;
    }
    // The last Total Reserved at or before t; events are in production order, which is time order
    // per thread and close to it overall.
    auto it = std::upper_bound(gpu.reserved.begin(), gpu.reserved.end(), t,
                               [](TimeNs v, const std::pair<TimeNs, std::int64_t> &s) { return v < s.first; });
    return used + (it == gpu.reserved.begin() ? record.initialReserved : std::prev(it)->second);
}

std::string NvidiaSmiEvidence::text(const JobRecord &record, const JobTimeline &timeline)
{
    const JobConfig &config = timeline.config();
    for (auto &[rank, gpu] : m_gpus) {
        std::stable_sort(gpu.reserved.begin(), gpu.reserved.end(),
                         [](const auto &a, const auto &b) { return a.first < b.first; });
        merge(gpu.any);
        merge(gpu.compute);
    }
    Prng rng(config.seed ^ 0x5311ULL);
    std::string out(kHeader);
    m_rows = 0;
    // The query takes a few ms on top of the -lms interval, so time stamps creep forward.
    for (TimeNs t = timeline.sidecarStart() + 35000000; t < timeline.sidecarStop();
         t += kIntervalNs + rng.range(2500000, 4500000)) {
        const UtcTime u = UtcTime::of(t);
        char stamp[48];
        std::snprintf(stamp, sizeof stamp, "%04d/%02d/%02d %02d:%02d:%02d.%03lld", u.year, u.month, u.day, u.hour,
                      u.minute, u.second, static_cast<long long>(u.millis()));
        // The kill lands in this sample: a few of its rows are written, the next one half.
        const bool last = t + kIntervalNs >= timeline.sidecarStop();
        const int devices = last ? 1 + static_cast<int>(rng.range(0, config.visibleDevices - 2)) : config.visibleDevices;
        for (int device = 0; device < devices; ++device) {
            const RankRecord *rec = nullptr;
            for (const RankRecord &r : record.ranks)
                if (r.setup.device == device)
                    rec = &r;
            std::int64_t used = kIdleUsed, pciBus = 0;
            double utilization = 0, power = config.gpu.idlePowerW;
            if (rec) {
                const Gpu &gpu = m_gpus.at(rec->setup.rank);
                const JobTimeline::Rank &life = timeline.rank(rec->setup.rank);
                pciBus = rec->setup.pciBus;
                used = usedBytes(gpu, timeline, *rec, t);
                const double window = static_cast<double>(kIntervalNs);
                const double any = static_cast<double>(covered(gpu.any, t - kIntervalNs, t)) / window;
                const double compute = static_cast<double>(covered(gpu.compute, t - kIntervalNs, t)) / window;
                utilization = any * 100.0;
                if (t >= life.cudaReady && t < life.exited)
                    power += kContextW + kComputeW * compute + kCommW * (any - compute);
            }
            power = std::min(config.gpu.maxPowerW, power * rng.uniform(0.985, 1.015));
            char row[200];
            std::snprintf(row, sizeof row, "%s, %d, %s, %s, %lld MiB, %lld MiB, %d %%, %s W\n", stamp, device,
                          config.gpu.name.c_str(), busId(pciBus).c_str(),
                          static_cast<long long>(config.gpu.nvmlTotalMemory / kMiB),
                          static_cast<long long>(used / kMiB), static_cast<int>(utilization + 0.5),
                          TextFormat::fixed(power, 2).c_str());
            out += row;
            ++m_rows;
        }
    }
    return out;
}

void NvidiaSmiEvidence::jobFinished(const JobRecord &record)
{
    const JobTimeline timeline(*record.ranks.front().setup.job, record);
    std::string csv = text(record, timeline);
    // The job script kills the sidecar as soon as torchrun exits, in the middle of a sample: the
    // last row stops inside the GPU name, and the GPUs after it are missing from that sample.
    // (Cut there so the row loses its readings; a cut inside a number would leave a wrong one.)
    const std::size_t lastRow = csv.rfind('\n', csv.size() - 2) + 1;
    Prng cutRng(timeline.config().seed ^ 0xc07ULL);
    csv.resize(lastRow + static_cast<std::size_t>(cutRng.range(31, 44)));
    m_rows -= 1;
    m_file = m_directory / kFileName;
    TraceSink sink(m_file, TraceSink::Kind::Plain);
    sink.write(csv);
    sink.close();
}

} // namespace rs::tracegen
