#pragma once
// Importer for nvidia-smi sidecar output. Format id "nvidia-smi".
//
// Source records → model:
//   * `--query-gpu=... --format=csv[,noheader][,nounits]` rows → per GPU: memory.used as a
//     GpuMemoryUsed counter (bytes), utilization.gpu as a GpuUtilization counter (percent),
//     power.draw, temperature.gpu, memory.free, utilization.memory and clocks as named Counter
//     tracks; memory.total / name become the GPU's DeviceInfo, and each physical GPU a GpuRecord
//     (SmiCsvReader, GpuIdentities). One gpu_samples count per data row.
//   * `dmon` output (two `#` header lines, repeated) → the same counters (fb → memory used).
//   * `--query-compute-apps` rows → GpuProcess records (pid, name, memory, gpu_uuid / gpu_bus_id;
//     their rank is found when the session is frozen) and source metadata "compute_app".
//   * the human-readable `nvidia-smi` table, wherever it appears → driver/CUDA version metadata,
//     GpuRecords and the Processes rows as GpuProcesses (SmiTableReader).
// GPU index → rank: the GPU index is taken as the local rank (RankOrigin::DeviceIndex) until
// NCCL evidence or the user says otherwise.
//
// Caveats it knows: content may start after a table or other lines (counted as text-skipped); runs
// of NUL bytes (a writer cut off on a shared file system) are skipped, each run reported as
// nul-bytes with its offset, and split the line like a line break; columns are mapped by header
// name (units stripped), never by position, except for noheader files whose columns are guessed
// from the value units (reported as a warning); a header may change mid-file (query-gpu, then
// compute-apps); `[N/A]`, `[Not Supported]`, `N/A` and dmon's `-` are missing values;
// `YYYY/MM/DD HH:MM:SS.mmm` stamps are local time in the zone the user chose
// (ImportContext::timeZone, default local); ISO-8601 stamps with an offset and epoch seconds/ms are
// absolute; a row cut off at its end keeps its complete fields, a row whose start was torn away is
// dropped (row-fragment); two GPUs on one index (two writers) are kept apart
// (gpu-identity-conflict), torn copies of a GPU's name are counted as that GPU (torn-row); a
// script-written file whose "index" column never varies while a "gpu" column does takes the GPU
// from "gpu". dmon output without -o T has no clock: its samples are numbered at dmon's default
// 1 s interval and the source is marked clock-less.

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
