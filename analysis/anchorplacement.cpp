#include "anchorplacement.h"

#include <map>

namespace rs {

std::vector<Placement> AnchorPlacement::place(const Session &session, const std::vector<RankAlignment> &alignment)
{
    auto offset = [&alignment](RankId r) {
        for (const RankAlignment &a : alignment)
            if (a.rank == r)
                return a.offsetNs;
        return TimeNs(0);
    };
    // Timed OOMs per rank (rank clock), from messages with a time and profiler instants.
    std::map<RankId, std::vector<std::pair<TimeNs, std::string>>> timed;
    for (const OomEvent &o : session.ooms())
        if (o.time != kNoTime && o.rank >= 0)
            timed[o.rank].emplace_back(o.time, "a timed OOM message in " + session.sources()[o.source].evidencePath());
    for (const Track &t : session.tracks())
        for (const Instant &in : t.instants)
            if ((in.flags & SpanFlagOutOfMemory) && t.rank >= 0)
                timed[t.rank].emplace_back(in.time, "the profiler's [OutOfMemory] in " + session.sources()[t.source].evidencePath());

    std::vector<Placement> out;
    std::map<std::size_t, TimeNs> oomAt; // OOM index → aligned time, for the summaries that follow
    const auto &ooms = session.ooms();
    for (std::size_t i = 0; i < ooms.size(); ++i) {
        const OomEvent &o = ooms[i];
        if (o.rank < 0)
            continue;
        if (o.time != kNoTime) {
            oomAt[i] = o.time + offset(o.rank);
            continue;
        }
        const auto it = timed.find(o.rank);
        // One timed OOM on the rank: it is this one. Several: which one is unknown, so no place.
        if (it == timed.end())
            continue;
        std::map<TimeNs, std::string> distinct(it->second.begin(), it->second.end());
        if (distinct.size() != 1)
            continue;
        Placement p;
        p.kind = Placement::Kind::Oom;
        p.index = i;
        p.rank = o.rank;
        p.timeNs = distinct.begin()->first + offset(o.rank);
        p.anchor = "same OOM as " + distinct.begin()->second;
        oomAt[i] = p.timeNs;
        out.push_back(std::move(p));
    }
    const auto &summaries = session.memorySummaries();
    for (std::size_t i = 0; i < summaries.size(); ++i) {
        const MemorySummary &m = summaries[i];
        if (m.time != kNoTime || m.oom < 0)
            continue;
        const auto it = oomAt.find(std::size_t(m.oom));
        if (it == oomAt.end())
            continue;
        Placement p;
        p.kind = Placement::Kind::MemorySummary;
        p.index = i;
        p.rank = m.rank;
        p.timeNs = it->second;
        p.anchor = "printed right after the OOM at line " + std::to_string(ooms[std::size_t(m.oom)].line);
        out.push_back(std::move(p));
    }
    return out;
}

} // namespace rs
