#pragma once
// Importer for nvidia-smi sidecar output. Format id "nvidia-smi".
//
// Source records → model:
//   * `--query-gpu=... --format=csv[,noheader][,nounits]` rows → per GPU: memory.used as a
//     GpuMemoryUsed counter (bytes), utilization.gpu as a GpuUtilization counter (percent),
//     power.draw, temperature.gpu, utilization.memory and clocks as named Counter tracks;
//     memory.total / name become the GPU's DeviceInfo. One gpu_samples count per data row.
//   * `dmon` output (two `#` header lines, repeated) → the same counters (fb → memory used).
//   * `--query-compute-apps` rows → source metadata "compute_app" (no time: a snapshot).
// GPU index → rank: the GPU index is taken as the local rank (RankOrigin::DeviceIndex) until
// NCCL evidence or the user says otherwise.
//
// Caveats it knows: columns are mapped by header name (units stripped), never by position, except
// for noheader files whose columns are guessed from the value units (reported as a warning);
// `[N/A]`, `[Not Supported]`, `N/A` and dmon's `-` are missing values; `YYYY/MM/DD HH:MM:SS.mmm`
// stamps are local time in the zone the user chose (ImportContext::timeZone, default local);
// ISO-8601 stamps with an offset and epoch seconds/ms are absolute; a row cut off by the end of the
// file keeps the fields it has; a script-written file whose "index" column never varies while a
// "gpu" column does takes the GPU from "gpu". dmon output without -o T has no clock: its samples are
// numbered at dmon's default 1 s interval and the source is marked clock-less.

#include "importer.h"

namespace rs {

class NvidiaSmiImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "nvidia-smi"; }
    std::string_view displayName() const override { return "nvidia-smi CSV / dmon"; }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

} // namespace rs
