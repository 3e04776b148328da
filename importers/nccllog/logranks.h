#pragma once
// What a log says about which process is which rank, gathered while LogParser reads it and asked
// once the whole log is read: processes (host:pid of NCCL lines), NCCL Init lines (process,
// device → rank), and statements pairing a global rank with a local one (`rank 5 local_rank 1`,
// the ChildFailedError summary's `rank : 5 (local_rank: 1)`).
//
// Rules: a process's rank is the one of its communicator with the most members (the default
// group; a process also joins sub-groups, where its rank differs); several ranks in one process
// (one thread per GPU) are told apart by device. A CUDA device index (an OOM's "GPU 3") names a
// rank only when exactly one known rank uses that device in this log: on several hosts device 3
// is several ranks, and guessing would put an OOM on the wrong rank.

#include "types.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

class LogRanks
{
public:
    struct Process {
        std::string host;
        std::int64_t pid = 0;
        std::int64_t firstLine = 0;
    };

    /// Index of the process host:pid, registered at its first line.
    std::int32_t process(std::string_view host, std::int64_t pid, std::int64_t lineNo);
    const std::vector<Process> &processes() const { return m_processes; }

    /// An Init line of process `proc` (-1 when the line had no process): `rank` of `nranks` on `dev`.
    void comm(std::int32_t proc, std::int32_t dev, RankId rank, std::int32_t nranks);
    /// A statement that global rank `rank` runs as local rank `local`.
    void localRank(RankId rank, std::int32_t local);

    /// The rank of process `proc` for a line printed on device `dev`; kNoRank when unknown.
    RankId rankOf(std::int32_t proc, std::int32_t dev) const;
    /// The one rank using CUDA device `dev` (Init lines, else local rank = device); kNoRank when
    /// none or several do.
    RankId rankOfDevice(std::int32_t dev) const;
    /// The one rank stated with local rank `local`; kNoRank when none or several.
    RankId rankOfLocal(std::int32_t local) const;
    /// CUDA device of `rank` in its default group's Init line; -1 when unknown.
    std::int32_t deviceOf(RankId rank) const;

private:
    struct Member {
        std::int32_t proc;
        std::int32_t dev;
        RankId rank;
        std::int32_t nranks;
    };
    // The default-group members: for each process, the comms with its largest nranks.
    const std::vector<Member> &defaultMembers() const;

    std::vector<Process> m_processes;
    std::map<std::pair<std::string, std::int64_t>, std::int32_t> m_index;
    std::vector<Member> m_members;
    mutable std::vector<Member> m_defaults; // defaultMembers() of the first m_defaultsOf members
    mutable std::size_t m_defaultsOf = 0;
    std::map<std::int32_t, std::set<RankId>> m_local; // local rank → global ranks stated
};

} // namespace rs
