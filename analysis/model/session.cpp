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

std::vector<std::uint32_t> Session::flowsAt(TrackId track, std::uint32_t span) const
{
    std::vector<std::uint32_t> out;
    const FlowEnd at{track, span};
    const auto key = [](const FlowEnd &e) { return std::pair(e.track, e.span); };
    auto from = std::lower_bound(m_flows.begin(), m_flows.end(), at,
                                 [&key](const Flow &f, const FlowEnd &e) { return key(f.from) < key(e); });
    for (; from != m_flows.end() && from->from == at; ++from)
        out.push_back(static_cast<std::uint32_t>(from - m_flows.begin()));
    auto to = std::lower_bound(m_flowsByEnd.begin(), m_flowsByEnd.end(), at,
                               [this, &key](std::uint32_t i, const FlowEnd &e) { return key(m_flows[i].to) < key(e); });
    for (; to != m_flowsByEnd.end() && m_flows[*to].to == at; ++to)
        out.push_back(*to);
    return out;
}

bool Session::hasErrors() const
{
    return std::any_of(m_sources.begin(), m_sources.end(), [](const Source &s) { return s.hasErrors(); });
}

} // namespace rs
