#pragma once
// Importer for text logs: NCCL debug output ("nccl-log": NCCL_DEBUG=INFO lines, possibly from
// several processes) and whole job logs ("job-log": torchrun output with `[rankN]:` prefixes,
// PyTorch c10 messages, tracebacks, the ChildFailedError summary, memory_summary tables).
// One class, registered once per format id: the two differ only in what their sniffers claim.
// Record mapping and caveats: see LogParser.

#include "importer.h"

namespace rs {

class LogImporter final : public Importer
{
public:
    enum class Kind { NcclLog, JobLog };
    explicit LogImporter(Kind kind) : m_kind(kind) {}

    std::string_view formatId() const override { return m_kind == Kind::NcclLog ? "nccl-log" : "job-log"; }
    std::string_view displayName() const override
    {
        return m_kind == Kind::NcclLog ? "NCCL debug log" : "torchrun / training job log";
    }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;

private:
    Kind m_kind;
};

} // namespace rs
