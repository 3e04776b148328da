#pragma once
// Importer for rankscope summaries (SummaryFile, written by `rankscope summarize`). Format id
// "summary". The file is read whole (a few MB) and decoded from memory; the source it yields is
// the summarised file's thinned model with its facts (Source::summary), so an analysis of summaries
// reads the same steps, collectives, counters and evidence as one of the original files. A summary
// this build cannot read (another layout, damaged columns) is an error naming why; nothing of it
// is used.

#include "importer.h"

namespace rs {

class SummaryImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "summary"; }
    std::string_view displayName() const override { return "RankScope summary"; }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

} // namespace rs
