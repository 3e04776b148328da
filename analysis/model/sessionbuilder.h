#pragma once
// Collects finished SourceBuilders (from any number of worker tasks) and freezes them into one
// immutable Session: resolves each source's rank, merges string pools, orders every rank's tracks.

#include "session.h"
#include "sourcebuilder.h"

#include <map>
#include <optional>
#include <string>

namespace rs {

class SessionBuilder
{
public:
    /// Adds a finished source. Sources keep the order they were added in.
    void addSource(SourceBuilder &&source);
    /// Forces the rank of the source whose path is `path` (the user's --assign-rank).
    void assignRank(const std::string &path, RankId rank) { m_overrides[path] = rank; }
    /// Renames the ranks a multi-rank source feeds (e.g. nvidia-smi GPU index → rank), for the
    /// source whose path is `path`. Ranks not in `map` stay.
    void mapRanks(const std::string &path, std::map<RankId, RankId> map) { m_rankMaps[path] = std::move(map); }
    std::size_t sourceCount() const { return m_pending.size(); }
    /// Notes a file from an opened folder that no importer recognised.
    void addSkipped(std::string path) { m_skipped.push_back(std::move(path)); }

    /// Builds the session. The builder is left empty.
    std::shared_ptr<const Session> freeze();

    /// Rank spelled in a file name: "rank-3", "rank_3", "rank3", "worker3", "[rank3]"; nullopt if none.
    static std::optional<RankId> rankFromFileName(const std::string &path);

private:
    std::vector<SourceBuilder> m_pending;
    std::vector<std::string> m_skipped;
    std::map<std::string, RankId> m_overrides;
    std::map<std::string, std::map<RankId, RankId>> m_rankMaps;
    void remapRanks(SourceBuilder &b, const std::map<RankId, RankId> &map);
    // Warns about rank claims that cannot all be right: two per-rank files of one kind naming the
    // same rank, a rank not below its file's world size, files stating different world sizes.
    void checkRankClaims(const std::vector<bool> &undecided);
};

} // namespace rs
