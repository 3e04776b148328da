#pragma once
// The human-readable `nvidia-smi` table that job scripts print before (or between) CSV samples:
//
//   Wed Jan  5 17:01:16 2022
//   +-----------------------------------------------------------------------------+
//   | NVIDIA-SMI 495.44       Driver Version: 495.44       CUDA Version: 11.5     |
//   |   0  Tesla V100-SXM2...  On   | 00000000:16:00.0 Off |                    0 |
//   | N/A   36C    P0    43W / 300W |      0MiB / 32510MiB |      0%      Default |
//   | Processes: ...
//   |    0   N/A  N/A     61877      C   /usr/local/bin/vllm-serve       44000MiB |
//
// Read from it: driver and CUDA version (source metadata nvidia_smi_driver_version and
// nvidia_smi_cuda_version, JSON strings), each GPU's index, name (cut with "..." by the table),
// bus id, memory used/total and utilisation (GpuRecords), and the Processes rows (GpuProcesses on
// the row's GPU index). Any other line inside the table is layout and is passed over.

#include "gpurecords.h"
#include "importcontext.h"
#include "sourcebuilder.h"

#include <string_view>
#include <vector>

namespace rs::nvidiasmi {

class SmiTableReader
{
public:
    SmiTableReader(SourceBuilder &out, ImportContext &ctx) : m_out(out), m_ctx(ctx) {}

    /// True for a line that belongs to the table (and was taken); false for any other line.
    bool feed(std::string_view line, std::int64_t lineNo);
    /// True once a table banner ("NVIDIA-SMI ... Driver Version") was read.
    bool sawTable() const { return m_tables > 0; }
    /// The GPUs of the tables read; CSV identities may absorb them (see mergeInto).
    const std::vector<GpuRecord> &gpus() const { return m_gpus; }
    /// Adds the table's GPUs to `records`: a table GPU whose index and (cut) name match a CSV
    /// identity lends it its bus id; the others become records of their own.
    void mergeInto(std::vector<GpuRecord> &records) const;

    /// True for a line that is part of an nvidia-smi table: a box border or a `|` row, or the date
    /// line above it. Used by the sniffer as well.
    static bool isTableLine(std::string_view line);

private:
    void gpuRow(const std::vector<std::string_view> &cells, std::int64_t lineNo);
    void processRow(std::string_view body, std::int64_t lineNo);

    SourceBuilder &m_out;
    ImportContext &m_ctx;
    enum class Section { None, Gpus, Processes } m_section = Section::None;
    int m_tables = 0;
    TimeNs m_date = kNoTime; // the date line of the table being read
    int m_currentGpu = -1;   // index in m_gpus of the GPU whose second row comes next
    std::vector<GpuRecord> m_gpus;
};

} // namespace rs::nvidiasmi
