#pragma once
// PyTorch profiler / Kineto Chrome-trace JSON (FORMATS.md §1), plain or compressed, plus legacy
// Chrome traces (a bare `[ {event}, ... ]` array or `{"traceEvents": [...]}`).
//
// How records map to the model:
// - ph X, and B/E pairs matched per (pid, tid) → Span. CPU categories (cpu_op, user_annotation,
//   python_function, cuda_runtime, cuda_driver, Operator, Runtime, Trace, anything unknown) go to
//   a TrackKind::CpuThread track per (pid, tid); GPU categories (kernel/Kernel, gpu_memcpy/Memcpy,
//   gpu_memset/Memset, gpu_user_annotation, cuda_sync, cuda_event) go to a TrackKind::GpuStream
//   track with device = pid and tid = stream. ROCm traces use the same category names (HIP calls
//   appear as cuda_runtime). SpanFlag bits record what each span is.
// - Track names come from `M` thread_name events ("stream 7 " trimmed), else "thread <tid>" /
//   "stream <tid>"; a non-numeric string pid/tid ("Spans", "PyTorch Profiler") gets a stable
//   synthetic id and its text as the name. thread_sort_index becomes Track::sortIndex.
// - ph i/I → Instant on its thread's track; global (`s: "g"` or "p") instants → one Markers track.
//   `[memory]` instants are not instants: their Total Allocated / Total Reserved become samples
//   on MemoryAllocated / MemoryReserved tracks per device (Device Type 0 → device -1, "CPU memory
//   ..."). `[OutOfMemory]` instants are kept as Instants flagged SpanFlagOutOfMemory.
// - ph C → one sample per numeric arg on a Counter track named "<event name> <arg key>".
// - ph s/f/t (flows) and M are not data; other phases are skipped with one summary warning.
// - Host-side ProfilerStep#N spans (any category except gpu_user_annotation) → Step.
// - GPU kernels named nccl*/rccl* or carrying "Collective name" → Collective (op, process group,
//   dtype, nelems, group size, Seq; number or string values accepted).
// - Top-level keys: baseTimeNanoseconds (before or after traceEvents) shifts every time;
//   deviceProperties → DeviceInfo; distributedInfo → rank and world size (else "Rank" / "Group
//   size" of a default_pg record_param_comms op); every key but traceEvents is also kept as raw
//   metadata, cut at 64 KiB.
// - Args of spans and instants are stored as compact JSON text in the source's args arena.
//
// Caveats it knows:
// - Without baseTimeNanoseconds and with ts ≤ 1e15 µs the trace has no clock (hasClock false):
//   the times are the profiler's relative microseconds and analysis has to place them.
// - PyTorch ~1.9 [memory] events have no totals; the allocated track then shows the running sum of
//   "Bytes" (the change since the trace began, possibly negative) and a warning says so.
// - Counts follow DESIGN.md §3: a B without its E is drawn (SpanFlagUnmatched) but not counted.
// - B/E matching follows file order per (pid, tid), not time order.
// - The unescaped-quote heuristic can end a string early when a name itself contains `", `.
// - An `[OutOfMemory]` instant does not add a memory sample, and the GPU pid is a local device
//   index, never a rank.

#include "importer.h"

namespace rs {

class KinetoImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "pytorch-trace"; }
    std::string_view displayName() const override { return "PyTorch profiler trace"; }
    /// 95: schemaVersion and traceEvents in the head; 85: schemaVersion only; 70: starts with
    /// {"traceEvents"; 60: traceEvents and "ph" somewhere in the head; 50: a bare array of objects
    /// with "ph". 0 for everything else, including the `[[` memory-timeline export.
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

} // namespace rs
