#include "session.h"

#include <algorithm>

namespace rs {

std::string_view Session::args(TrackId track, ArgsId id) const
{
    if (track >= m_tracks.size())
        return {};
    const SourceId src = m_tracks[track].source;
    return src < m_args.size() ? m_args[src].view(id) : std::string_view();
}

const Rank *Session::rank(RankId rank) const
{
    auto it = std::lower_bound(m_ranks.begin(), m_ranks.end(), rank, [](const Rank &r, RankId id) { return r.id < id; });
    return it != m_ranks.end() && it->id == rank ? &*it : nullptr;
}

std::size_t Session::spanCount() const
{
    std::size_t n = 0;
    for (const Track &t : m_tracks)
        n += t.spans.size();
    return n;
}

bool Session::hasErrors() const
{
    return std::any_of(m_sources.begin(), m_sources.end(), [](const Source &s) { return s.hasErrors(); });
}

} // namespace rs
