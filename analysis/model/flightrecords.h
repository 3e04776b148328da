#pragma once
// What an NCCL flight-recorder dump says (FORMATS.md §4.5): ProcessGroupNCCL keeps a ring buffer of
// the last N collectives and point-to-point ops of every process group and dumps it, one file per
// rank, when the watchdog fires (TORCH_NCCL_TRACE_BUFFER_SIZE, TORCH_NCCL_DUMP_ON_TIMEOUT). A dump
// holds `entries` (one FlightRecord each), `pg_config` (FlightRecorderGroup) and `pg_status`
// (FlightRecorderStatus). Entries become spans on a collective lane per process group; the desync
// analysis compares the ranks' entries at the same (process group, collective_seq_id).

#include "records.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rs {

/// One ring-buffer entry of one rank's dump.
struct FlightRecord {
    enum class State : std::uint8_t { Scheduled, Started, Completed };

    RankId rank = kNoRank;            ///< rank whose dump it is (resolved when frozen)
    SourceId source = 0;              ///< the dump it was read from (set when frozen)
    std::int64_t index = -1;          ///< 0-based position in the dump's `entries` (evidence "entry N")
    std::int64_t recordId = -1;       ///< `record_id`
    std::string pgId;                 ///< `pg_id` as text ("0"), the key of pg_config / pg_status
    std::string pgName;               ///< `process_group[0]`, the group's name ("0")
    std::string pgDesc;               ///< `process_group[1]` ("default_pg"), "" if absent
    std::int64_t collectiveSeq = -1;  ///< `collective_seq_id` (matches the watchdog's SeqNum); -1 if absent
    std::int64_t p2pSeq = -1;         ///< `p2p_seq_id`, -1 if absent
    std::int64_t opId = -1;           ///< `op_id`, -1 if absent
    std::string profilingName;        ///< `profiling_name`, e.g. "nccl:all_reduce"
    bool isP2p = false;               ///< `is_p2p`
    std::vector<std::vector<std::int64_t>> inputSizes;  ///< `input_sizes`: one shape per tensor
    std::vector<std::vector<std::int64_t>> outputSizes; ///< `output_sizes`
    std::vector<std::string> inputDtypes;  ///< `input_dtypes` ("Float", ...)
    std::vector<std::string> outputDtypes; ///< `output_dtypes`
    State state = State::Scheduled;   ///< `state`
    TimeNs created = kNoTime;         ///< `time_created_ns` (wall clock)
    TimeNs started = kNoTime;         ///< `time_discovered_started_ns`, kNoTime when None
    TimeNs completed = kNoTime;       ///< `time_discovered_completed_ns`, kNoTime when None
    double durationMs = -1;           ///< `duration_ms` (only with TORCH_NCCL_ENABLE_TIMING), -1 if absent
    std::int64_t timeoutMs = -1;      ///< `timeout_ms`, -1 if absent
    bool retired = false;             ///< `retired`
    std::int32_t stack = -1;          ///< index into FlightRecorderEvidence::stacks (`frames`), -1 if none
};

/// One process group of a dump's `pg_config`.
struct FlightRecorderGroup {
    RankId rank = kNoRank;            ///< rank whose dump listed it (resolved when frozen)
    SourceId source = 0;              ///< set when frozen
    std::string pgId;                 ///< key in pg_config
    std::string name;                 ///< `name`
    std::string desc;                 ///< `desc` ("default_pg", "undefined")
    std::vector<RankId> ranks;        ///< global ranks in the group (`ranks`, a JSON list as text in dumps)
};

/// One process group's progress in a dump's `pg_status`.
struct FlightRecorderStatus {
    RankId rank = kNoRank;            ///< rank whose dump it is (resolved when frozen)
    SourceId source = 0;              ///< set when frozen
    std::string pgId;                 ///< key in pg_status
    std::int64_t lastEnqueued = -1;   ///< `last_enqueued_collective`, -1 if absent
    std::int64_t lastStarted = -1;    ///< `last_started_collective`, -1 if absent
    std::int64_t lastCompleted = -1;  ///< `last_completed_collective`, -1 if absent
};

/// Everything read from flight-recorder dumps, kept together like LogEvidence.
struct FlightRecorderEvidence {
    std::vector<FlightRecord> entries;            ///< per source, in dump order
    std::vector<FlightRecorderGroup> groups;      ///< per source
    std::vector<FlightRecorderStatus> status;     ///< per source
    std::vector<std::vector<StackFrame>> stacks;  ///< distinct `frames` lists, innermost first

    bool empty() const { return entries.empty() && groups.empty() && status.empty(); }
};

} // namespace rs
