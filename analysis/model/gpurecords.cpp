#include "gpurecords.h"

#include <map>
#include <set>

namespace rs {

namespace {

// A key that names one GPU in several records; two records with different ranks make it ambiguous
// (the same uuid can only be one device, but index-as-rank guesses can disagree across hosts).
template <typename Key>
struct Owners {
    std::map<Key, std::set<RankId>> ranks;
    std::map<Key, std::int32_t> index;

    void add(const Key &k, RankId r, std::int32_t idx)
    {
        ranks[k].insert(r);
        index.emplace(k, idx);
    }
    bool find(const Key &k, RankId &r, std::int32_t &idx) const
    {
        const auto it = ranks.find(k);
        if (it == ranks.end() || it->second.size() != 1)
            return false;
        r = *it->second.begin();
        idx = index.at(k);
        return true;
    }
};

} // namespace

void resolveGpuProcesses(GpuEvidence &gpus, const LogEvidence &logs)
{
    Owners<std::string> byUuid;
    Owners<std::int64_t> byBus;
    for (const GpuRecord &g : gpus.gpus) {
        if (g.rank < 0)
            continue;
        if (!g.uuid.empty())
            byUuid.add(g.uuid, g.rank, g.index);
        if (g.busId >= 0)
            byBus.add(g.busId, g.rank, g.index);
    }
    // NCCL prints the bus id of each member's GPU; on several hosts one bus id belongs to several
    // ranks, and then it says nothing.
    Owners<std::int64_t> byNccl;
    for (const NcclCommInfo &c : logs.comms)
        if (c.busId >= 0 && c.rank >= 0)
            byNccl.add(c.busId, c.rank, c.cudaDev);
    for (GpuProcess &p : gpus.processes) {
        if (p.rank >= 0)
            continue;
        RankId r = kNoRank;
        std::int32_t idx = -1;
        if ((!p.uuid.empty() && byUuid.find(p.uuid, r, idx)) || (p.busId >= 0 && byBus.find(p.busId, r, idx))) {
            p.rank = r;
            if (p.index < 0)
                p.index = idx;
        } else if (p.busId >= 0 && byNccl.find(p.busId, r, idx)) {
            p.rank = r;
        }
    }
}

} // namespace rs
