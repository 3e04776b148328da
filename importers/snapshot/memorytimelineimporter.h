#pragma once
// Importer for the profiler's memory-timeline export (`export_memory_timeline(path)` with a
// `.json[.gz]` or `.raw.json.gz` path). Format id "memory-timeline".
//
// Source records → model:
//   * raw form `[[time_ns, action, bytes, category], ...]` → one Counter track per category
//     (parameter, optimizer state, input, temporary, activation, gradient, autograd detail,
//     unknown) plus a total, as running sums of the signed byte changes; counts.traceEntries =
//     rows. Rows with time -1 (tensors that existed before profiling) are placed at the first real
//     time (the earliest: the profiler writes rows in time order).
//   * plain form `[times, sizes]` (sizes[i] = bytes per category at times[i]) → the same tracks.
// Times above 1e17 are epoch ns, above 1e14 epoch µs; smaller ones have no clock.
//
// Caveats it knows: the category index order is the profiler's _CATEGORY_TO_INDEX (parameter
// first, unknown last) and extra indexes are shown as "category N"; actions are not needed for
// the sums because the writer already signs the bytes (negative for DESTROY and the old half of
// INCREMENT_VERSION).
//
// The file is streamed (issue 11: a 1.5 GiB export took 2 GB read whole): TimelineJsonReader reads
// it a megabyte at a time and MemoryTimelineParser keeps only running levels and the samples, so
// memory follows the output, not the file. A JSON error keeps what came before it.

#include "importer.h"

namespace rs {

class MemoryTimelineImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "memory-timeline"; }
    std::string_view displayName() const override { return "profiler memory timeline"; }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

} // namespace rs
