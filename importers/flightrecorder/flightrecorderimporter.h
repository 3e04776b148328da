#pragma once
// Importer for NCCL flight-recorder dumps (FORMATS.md §4.5), format id "flight-recorder".
//
// ProcessGroupNCCL writes one dump per rank when its watchdog fires (TORCH_NCCL_TRACE_BUFFER_SIZE,
// TORCH_NCCL_DUMP_ON_TIMEOUT), by default to /tmp/nccl_trace_rank_<N> with no extension. Two
// encodings carry the same dict (torch/csrc/distributed/c10d/FlightRecorderDetail.hpp):
//   * a pickle (`dump`, the C++ jit Pickler: protocol 2, no globals, frame dicts shared through the
//     memo), the default;
//   * JSON (`dump_json`, `_dump_nccl_trace_json`): keys sorted, no frames, times not yet discovered
//     written as 0, pg_config and pg_status values as strings, `entries` left out when empty.
// Sniffing is by content only: a pickle or JSON object whose keys include `entries`, `pg_config`,
// `pg_status` or `version` in the combinations a dump has, and never a memory snapshot (`segments`,
// `device_traces`) or a profiler trace (`traceEvents`, `schemaVersion`).
//
// Either encoding is decoded as it is read, never held whole: the pickle by the streaming
// RestrictedUnpickler (a pickle cut short keeps what was complete, loadPartial, and reports
// pickle-truncated with the offset), JSON through nlohmann's SAX parser straight into the same value
// tree, under the unpickler's memory budget (fr-json-too-large) and with strings up to 8 MiB
// (fr-unreadable, as is a dump over 2 GiB decompressed).
// Mapping to the model is FlightRecorderReader's job.

#include "importer.h"

namespace rs {

class FlightRecorderImporter final : public Importer
{
public:
    std::string_view formatId() const override { return "flight-recorder"; }
    std::string_view displayName() const override { return "NCCL flight-recorder dump"; }
    int sniff(std::string_view head, std::string_view path) const override;
    void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const override;
};

} // namespace rs
