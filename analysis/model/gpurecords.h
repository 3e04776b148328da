#pragma once
// What nvidia-smi says about GPUs as devices and about the processes on them: the identity of each
// GPU a source sampled (name, uuid, PCI bus id, with the largest memory.used seen), and one record
// per process row (`--query-compute-apps` CSV, or the Processes section of the `nvidia-smi` table).
// Processes name their GPU by uuid or bus id, so their rank is resolved when the session is frozen,
// across sources (resolveGpuProcesses).

#include "records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

/// One GPU identity as an nvidia-smi source saw it. A source holds several records for one index
/// when two machines wrote into one file (the importer reports that as gpu-identity-conflict).
struct GpuRecord {
    RankId rank = kNoRank;          ///< rank it feeds (the index as local rank, remapped like its tracks)
    SourceId source = 0;            ///< the file it was read from (set when frozen)
    std::int32_t index = -1;        ///< the GPU column the importer keyed rows by, -1 if none
    std::string name;               ///< "Tesla V100-PCIE-32GB" ("Tesla V100-SXM2..." when the table cut it)
    std::string uuid;               ///< "GPU-5b2c...", "" when not printed
    std::int64_t busId = -1;        ///< PCI address in NCCL's integer form (00000000:47:00.0 → 0x47000), -1 if unknown
    std::int64_t rows = 0;          ///< data rows of this identity, torn rows included
    std::int64_t tornRows = 0;      ///< rows whose identity text was torn by a concurrent writer
    std::int64_t totalMemory = 0;   ///< bytes, 0 if unknown
    std::int64_t maxUsed = -1;      ///< largest memory.used in bytes, -1 if never read
    std::int64_t freeAtMax = -1;    ///< memory.free of the row with the largest memory.used, -1 if absent
    double utilAtMax = -1;          ///< utilization.gpu (%) of that row, -1 if absent
    std::int64_t line = 0;          ///< 1-based line of its first row
};

/// One process using a GPU.
struct GpuProcess {
    RankId rank = kNoRank;          ///< rank whose GPU it runs on; kNoRank while (or if) the GPU is unknown
    SourceId source = 0;            ///< the file it was read from (set when frozen)
    std::int32_t index = -1;        ///< GPU index when the row named it or a join found it, else -1
    std::string uuid;               ///< gpu_uuid of a compute-apps row, "" if absent
    std::int64_t busId = -1;        ///< gpu_bus_id in NCCL's integer form, -1 if absent
    std::int64_t pid = 0;           ///< process id (the host's pid namespace)
    std::string name;               ///< process_name, e.g. "/usr/local/bin/vllm-serve"
    std::string type;               ///< table's Type column ("C", "G", "C+G"), "" for compute-apps rows
    std::int64_t usedMemory = -1;   ///< bytes of GPU memory it holds, -1 when not reported
    TimeNs time = kNoTime;          ///< when it was listed (the table's date line), kNoTime if unknown
    std::int64_t line = 0;          ///< 1-based line in its source
};

/// Everything nvidia-smi said about devices and processes, kept together like LogEvidence.
struct GpuEvidence {
    std::vector<GpuRecord> gpus;         ///< per source, in the order first seen
    std::vector<GpuProcess> processes;   ///< in source order

    bool empty() const { return gpus.empty() && processes.empty(); }
};

/// Gives every process without a rank the rank of its GPU: the GpuRecord (any source) with the same
/// uuid, else the same bus id, else the NCCL communicator member whose busId is that bus id, when
/// exactly one rank printed it. Also fills the process's index from the GpuRecord it matched.
void resolveGpuProcesses(GpuEvidence &gpus, const LogEvidence &logs);

} // namespace rs
