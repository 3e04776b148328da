#pragma once
// Importer for CUDA caching-allocator snapshots (`torch.cuda.memory._dump_snapshot` pickles, and
// the C++ `_memory_snapshot_pickled` protocol-2 form). Format id "memory-snapshot".
//
// Shapes read: the current dict (segments, device_traces, allocator_settings, ...); the PyTorch 2.0
// dict, whose blocks have no `address` (it follows from the segment address and the sizes before)
// and keep a per-block `history` of {addr, real_size, frames} (newest last: the block's stack);
// and the bare list of segment dicts that `torch.cuda.memory_snapshot()` returns (no traces, no
// clock). Device ids come from each segment's `device` (they need not start at 0).
//
// Source records → model:
//   * segments[] (and their blocks) → SegmentRecord, one per segment, with block states and stacks;
//     counts.segments.
//   * device_traces[d][] → counts.traceEntries; alloc/free_completed → an allocated-bytes counter
//     (MemoryAllocated, device d), segment_alloc/map/free/unmap → a reserved-bytes counter
//     (MemoryReserved); each alloc → AllocationRecord with its stack and the time its free
//     completed; oom → OomEvent (request size, device_free).
//   * allocator_settings → AllocatorEvidence::settings (JSON text).
// The trace is a ring buffer that starts mid-history, so the counters are anchored at the end:
// their last value equals what the segments say is allocated/reserved at snapshot time.
//
// Caveats it knows: only data opcodes are accepted (RestrictedUnpickler), a pickle with globals
// is rejected, and a corrupt or hostile structure (a FRAME longer than the file, containers nested
// deeper than any snapshot) is an error with the unpickler's code and byte offset; traces without `time_us` (PyTorch ≤ ~2.3) have no clock: entries are placed 1 µs
// apart in trace order and the source is marked clock-less; frees whose alloc fell out of the ring
// buffer are counted but have no record; `active_pending_free` (C++ writer) equals Python's
// `active_awaiting_free`. The pickle is decoded as it is read (1 MiB at a time, never held whole);
// over 4 GiB decompressed it is pickle-too-large.

#include "importer.h"

namespace rs {

class SnapshotImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "memory-snapshot"; }
    std::string_view displayName() const override { return "CUDA allocator snapshot (pickle)"; }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

/// Reads a whole stream into memory in chunks, polling cancel; false (with `error`) over `limit` bytes.
bool readWhole(InputStream &in, ImportContext &ctx, std::string &out, std::size_t limit, std::string *error);

} // namespace rs
