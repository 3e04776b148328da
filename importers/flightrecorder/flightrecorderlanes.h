#pragma once
// The timeline side of a flight-recorder dump: once FlightRecorderReader has read the entries of
// one source, build() puts each on a lane of its rank, one GpuStream track per process group
// (`pg_id`), named "NCCL PG 0 (default_pg)". The recorder times GPU work through the CUDA events
// the watchdog polls, so a span runs from `time_discovered_started_ns` (else `time_created_ns`) to
// `time_discovered_completed_ns`. Work not completed when the dump was written runs to the last time
// stamp in the dump (the moment of the dump itself is not recorded) and says so in its name
// ("nccl:all_reduce #67 (started, not completed)") and args (`completed: false`, `span_end`).
// Names carry the sequence the ranks share: collective_seq_id ("nccl:all_reduce #67") or, for
// point-to-point work, p2p_seq_id ("nccl:send 0->1 p2p #3"). Args hold every value of the entry and
// its frames, for the Details panel. Also sets hasClock (time stamps are epoch ns; otherwise
// fr-time-not-epoch) and counts.spans.

#include "sourcebuilder.h"

#include <string>

namespace rs {

/// "scheduled", "started" or "completed", as the dump spells them.
const char *flightStateName(FlightRecord::State s);

class FlightRecorderLanes
{
public:
    explicit FlightRecorderLanes(SourceBuilder &out) : m_out(out) {}

    /// Adds the spans and lanes of every entry read so far into the source.
    void build();

private:
    std::string argsJson(const FlightRecord &r, bool completed) const;

    SourceBuilder &m_out;
};

} // namespace rs
