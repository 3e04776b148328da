#pragma once
// The words of the incident's story: IncidentStory decides what caused what; this writes it as the
// one paragraph a person reads at 3 a.m. — the culprit and what happened to it, when (the step) and
// the key numbers of its evidence (what an OOM tried, what was free), the conditions behind it,
// what the other ranks did then and how the job ended, what stands apart, and "Fix: …". The
// numbers come from the metrics and spikes, not from parsing titles; anything without a phrasing of
// its own is told by its title, which the rules write for people.

#include "analysisresult.h"
#include "incidentsummary.h"
#include "session.h"

#include <string>
#include <string_view>
#include <vector>

namespace rs {

class StoryWriter
{
public:
    /// Writes about `result`; `session` (optional) adds the step of an OOM, the ranks that waited
    /// on a watchdog, how the launcher ended the job and what was read.
    StoryWriter(const AnalysisResult &result, const Session *session);

    /// The headline of `story` (chain, roles and culprits already decided); `main` is the cause
    /// the story is about (its strongest condition names the fix).
    std::string headline(const IncidentSummary &story, int main) const;
    /// The headline when nothing was found: what was read.
    std::string nothingFound() const;

    /// `title` told about its own rank: "Rank 2's caching allocator is fragmented" → "its caching
    /// allocator is fragmented", "Rank 2 keeps more memory…" → "it keeps more memory…", other text
    /// with its first letter lowered unless it starts an acronym.
    static std::string aboutItself(std::string_view title, RankId rank);

private:
    const Finding &at(int i) const { return m_r.findings[static_cast<std::size_t>(i)]; }
    std::int64_t stepOf(RankId rank, std::optional<TimeNs> aligned) const;
    std::string event(int i) const;
    std::string contribution(int j, int root, bool self) const;
    std::string consequence(int i, const std::vector<RankId> &culprits) const;
    std::string jobEnd() const;

    const AnalysisResult &m_r;
    const Session *m_session;
};

} // namespace rs
