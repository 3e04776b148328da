#include "logranks.h"

#include <algorithm>

namespace rs {

std::int32_t LogRanks::process(std::string_view host, std::int64_t pid, std::int64_t lineNo)
{
    auto key = std::make_pair(std::string(host), pid);
    if (auto it = m_index.find(key); it != m_index.end())
        return it->second;
    const auto index = static_cast<std::int32_t>(m_processes.size());
    m_processes.push_back({key.first, pid, lineNo});
    m_index.emplace(std::move(key), index);
    return index;
}

void LogRanks::comm(std::int32_t proc, std::int32_t dev, RankId rank, std::int32_t nranks)
{
    if (rank >= 0)
        m_members.push_back({proc, dev, rank, nranks});
}

void LogRanks::localRank(RankId rank, std::int32_t local)
{
    if (rank >= 0 && local >= 0)
        m_local[local].insert(rank);
}

const std::vector<LogRanks::Member> &LogRanks::defaultMembers() const
{
    if (m_defaultsOf == m_members.size() && (m_defaultsOf > 0 || m_defaults.empty()))
        return m_defaults;
    // The largest communicator a process joined is its default group (sub-groups are subsets).
    std::map<std::int32_t, std::int32_t> largest;
    std::int32_t largestAll = 0;
    for (const Member &m : m_members) {
        largest[m.proc] = std::max(largest[m.proc], m.nranks);
        largestAll = std::max(largestAll, m.nranks);
    }
    m_defaults.clear();
    for (const Member &m : m_members) {
        // Lines without a process (never for Init lines in practice) are judged against the log.
        const std::int32_t want = m.proc >= 0 ? largest[m.proc] : largestAll;
        if (m.nranks == want)
            m_defaults.push_back(m);
    }
    m_defaultsOf = m_members.size();
    return m_defaults;
}

RankId LogRanks::rankOf(std::int32_t proc, std::int32_t dev) const
{
    if (proc < 0)
        return kNoRank;
    RankId any = kNoRank;
    for (const Member &m : defaultMembers()) {
        if (m.proc != proc)
            continue;
        if (m.dev == dev)
            return m.rank;
        if (any == kNoRank)
            any = m.rank;
    }
    if (any != kNoRank)
        return any;
    // A host name garbled by a concurrent writer ("0x3006c0s25b0n0" for "x3006c0s25b0n0") still
    // carries the pid: a pid that exactly one ranked process has is that process.
    const std::int64_t pid = m_processes[std::size_t(proc)].pid;
    std::set<RankId> same;
    for (const Member &m : defaultMembers())
        if (m.proc >= 0 && m_processes[std::size_t(m.proc)].pid == pid && (m.dev == dev || dev < 0))
            same.insert(m.rank);
    if (same.empty())
        for (const Member &m : defaultMembers())
            if (m.proc >= 0 && m_processes[std::size_t(m.proc)].pid == pid)
                same.insert(m.rank);
    return same.size() == 1 ? *same.begin() : kNoRank;
}

RankId LogRanks::rankOfDevice(std::int32_t dev) const
{
    if (dev < 0)
        return kNoRank;
    std::set<RankId> byInit;
    for (const Member &m : defaultMembers())
        if (m.dev == dev)
            byInit.insert(m.rank);
    if (byInit.size() == 1)
        return *byInit.begin();
    if (!byInit.empty())
        return kNoRank;
    // No Init line for that device: training scripts bind local rank L to device L.
    return rankOfLocal(dev);
}

RankId LogRanks::rankOfLocal(std::int32_t local) const
{
    const auto it = m_local.find(local);
    return it != m_local.end() && it->second.size() == 1 ? *it->second.begin() : kNoRank;
}

std::int32_t LogRanks::deviceOf(RankId rank) const
{
    for (const Member &m : defaultMembers())
        if (m.rank == rank)
            return m.dev;
    for (const auto &[local, ranks] : m_local)
        if (ranks.size() == 1 && *ranks.begin() == rank)
            return local;
    return -1;
}

} // namespace rs
