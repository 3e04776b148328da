#pragma once
// Maps one decoded flight-recorder dump (a pickle, or JSON turned into the same PickleValue tree)
// onto the model, as analysis/model/flightrecords.h documents it:
//   * `entries[i]` → FlightRecord (index i, every key read; `frames` → a stack, innermost first,
//     identical lists shared);
//   * `pg_config` → FlightRecorderGroup (`ranks` is a printed list, "[0, 1, 2, 3]", or a list);
//   * `pg_status` → FlightRecorderStatus (ints in pickles, strings in JSON);
//   * `version`, `comm_lib_version` → Source::metadata; the default_pg's size → Source::worldSize.
//
// Lanes and spans are FlightRecorderLanes' part; counts.collectives = entries read.
//
// Rank: dumps do not state their own rank; fr_trace takes it from the file name, and so does
// SessionBuilder (nccl_trace_rank_<N>). A point-to-point entry does name it, though: "nccl:send a->b"
// is sent by group rank a, "nccl:recv a<-b" received by group rank a, and pg_config maps group
// ranks to global ones (sorted members). When those agree on one global rank it is the source's rank
// (content outranks the file name; a disagreeing name is reported as fr-rank-conflict); with neither,
// fr-no-rank says that SessionBuilder will have to assign one.
//
// Diagnostics (codes): fr-unknown-version, fr-newer-version, fr-not-dict, fr-no-entries,
// fr-entry-not-dict, fr-entry-no-seq, fr-entry-no-time, fr-bad-field, fr-bad-state, fr-bad-group,
// fr-bad-status, fr-truncated-entry, fr-rank-conflict, fr-no-rank (FlightRecorderLanes adds
// fr-time-not-epoch). Offsets are the pickle byte offsets of the values at fault (-1 for JSON,
// whose messages name the entry).

#include "pickle/restrictedunpickler.h"
#include "sourcebuilder.h"

#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace rs {

class FlightRecorderReader
{
public:
    explicit FlightRecorderReader(SourceBuilder &out) : m_out(out) {}

    /// Reads the dump's root value. `truncated`: the pickle ended early (its containers marked partial).
    void read(const PickleValue &root, bool truncated);

private:
    void readVersion(const PickleValue &root);
    void readGroups(const PickleValue *config);
    void readStatus(const PickleValue *status);
    void readEntries(const PickleValue *entries, bool truncated);
    bool readEntry(const PickleValue &e, std::int64_t index, FlightRecord &r);
    std::int32_t stack(const PickleValue *frames);
    void decideRank();

    std::optional<std::int64_t> intField(const PickleValue &e, std::string_view key, std::int64_t index, bool required);
    TimeNs timeField(const PickleValue &e, std::string_view key, std::int64_t index);
    void sizesField(const PickleValue &e, std::string_view key, std::int64_t index,
                    std::vector<std::vector<std::int64_t>> &out);
    void dtypesField(const PickleValue &e, std::string_view key, std::int64_t index, std::vector<std::string> &out);
    void badField(const PickleValue &e, std::string_view key, std::int64_t index, const char *expected);

    SourceBuilder &m_out;
    std::unordered_map<std::string, std::int32_t> m_stackIds; // frames text → stack index
    std::map<std::string, std::vector<RankId>> m_groupRanks;  // pg_config key → sorted global ranks
};

} // namespace rs
