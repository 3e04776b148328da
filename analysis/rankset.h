#pragma once
// Sorted sets of ranks kept as vectors (a finding's ranks, the culprits, the waiting ranks): the
// few operations every rule and the story need, in one place.

#include "types.h"

#include <algorithm>
#include <vector>

namespace rs::rankset {

/// True when `r` is in `v`.
inline bool has(const std::vector<RankId> &v, RankId r)
{
    return std::find(v.begin(), v.end(), r) != v.end();
}

/// Inserts `r` into the sorted `v` unless it is there.
inline void addUnique(std::vector<RankId> &v, RankId r)
{
    if (!has(v, r))
        v.insert(std::upper_bound(v.begin(), v.end(), r), r);
}

/// The real ranks of `ranks` (no job-level or unknown marker), sorted, each once.
inline std::vector<RankId> real(const std::vector<RankId> &ranks)
{
    std::vector<RankId> out;
    for (RankId r : ranks)
        if (r >= 0)
            out.push_back(r);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace rs::rankset
