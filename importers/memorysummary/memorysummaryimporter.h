#pragma once
// Importer for text files holding torch.cuda.memory_summary() tables and CUDA OOM messages
// (a saved log excerpt, a notebook dump). Format id "memory-summary". The lines are read by
// LogParser, so a training log around the tables keeps its records, and its time stamps (Python
// logging, glog, ISO) give the source a clock; without any, the tables stay untimed and analysis
// places them by anchors (the OOM).
//
// Sniffing: the 77-character `|===|` frame followed by "PyTorch CUDA memory summary, device ID",
// or an allocator OOM sentence. Parsing rules and caveats: see MemorySummaryParser.

#include "importer.h"

namespace rs {

class MemorySummaryImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "memory-summary"; }
    std::string_view displayName() const override { return "torch.cuda.memory_summary() / OOM text"; }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

} // namespace rs
