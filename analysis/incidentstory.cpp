#include "incidentstory.h"

#include "rankset.h"

#include "storyrelations.h"
#include "storywriter.h"

#include <algorithm>
#include <limits>

namespace rs {

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

std::vector<RankId> realRanks(const std::vector<RankId> &ranks)
{
    return rankset::real(ranks);
}

// The inputs of the story: the result, the session when there is one, and the links found.
class Storyteller
{
public:
    Storyteller(const AnalysisResult &result, const Session *session)
        : m_r(result)
        , m_f(result.findings)
        , m_session(session)
    {
    }

    IncidentSummary tell();

private:
    std::size_t count() const { return m_f.size(); }
    const Finding &at(int i) const { return m_f[static_cast<std::size_t>(i)]; }
    TimeNs timeOf(int i) const { return at(i).timeNs.value_or(kNever); }
    void link();
    int rootOf(int i) const;
    int pickMain(const std::vector<int> &roots, const std::vector<int> &groupSize) const;
    std::vector<int> contributorsOf(int root) const;
    int leadOf(int root) const;

    const AnalysisResult &m_r;
    const std::vector<Finding> &m_f;
    const Session *m_session;
    std::vector<int> m_causeOf; // direct cause of a consequence, -1 otherwise
    std::vector<int> m_feeds;   // the finding a contributing condition led to, -1 otherwise
};

void Storyteller::link()
{
    const int n = static_cast<int>(count());
    m_causeOf.assign(count(), -1);
    m_feeds.assign(count(), -1);
    // A consequence hangs off its earliest cause (timed before untimed, then reading order); the
    // chain up from it ends at the cause the story is about.
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (j != i && StoryRelations::relation(at(j), at(i)) == StoryRole::Consequence
                && (m_causeOf[static_cast<std::size_t>(i)] < 0 || timeOf(j) < timeOf(m_causeOf[static_cast<std::size_t>(i)])))
                m_causeOf[static_cast<std::size_t>(i)] = j;
    // Links decided by time cannot loop; this guards against a table that someday could.
    for (int i = 0; i < n; ++i) {
        int r = i, steps = 0;
        while (m_causeOf[static_cast<std::size_t>(r)] >= 0 && steps++ <= n)
            r = m_causeOf[static_cast<std::size_t>(r)];
        if (steps > n)
            m_causeOf[static_cast<std::size_t>(i)] = -1;
    }
    // A condition leads to the first (most severe, earliest) finding it explains, unless it is
    // itself a consequence of something.
    for (int j = 0; j < n; ++j) {
        if (m_causeOf[static_cast<std::size_t>(j)] >= 0)
            continue;
        for (int i = 0; i < n && m_feeds[static_cast<std::size_t>(j)] < 0; ++i)
            if (i != j && StoryRelations::relation(at(j), at(i)) == StoryRole::Contributing)
                m_feeds[static_cast<std::size_t>(j)] = i;
    }
}

int Storyteller::rootOf(int i) const
{
    int r = i;
    for (std::size_t steps = 0; m_causeOf[static_cast<std::size_t>(r)] >= 0 && steps <= count(); ++steps)
        r = m_causeOf[static_cast<std::size_t>(r)];
    return r;
}

// The story is the most severe cause; among equals the one most else hangs on, then the earliest.
int Storyteller::pickMain(const std::vector<int> &roots, const std::vector<int> &groupSize) const
{
    int best = -1;
    for (int r : roots) {
        if (best < 0) {
            best = r;
            continue;
        }
        const Finding &a = at(r), &b = at(best);
        const int ga = groupSize[static_cast<std::size_t>(r)], gb = groupSize[static_cast<std::size_t>(best)];
        if (a.severity != b.severity ? a.severity > b.severity : ga != gb ? ga > gb : timeOf(r) < timeOf(best))
            best = r;
    }
    return best;
}

// The conditions that led to `root`, the strongest first.
std::vector<int> Storyteller::contributorsOf(int root) const
{
    std::vector<int> out;
    for (int j = 0; j < static_cast<int>(count()); ++j)
        if (m_feeds[static_cast<std::size_t>(j)] == root)
            out.push_back(j);
    std::stable_sort(out.begin(), out.end(), [this](int a, int b) {
        return at(a).severity != at(b).severity ? at(a).severity > at(b).severity : timeOf(a) < timeOf(b);
    });
    return out;
}

// Whose fix ends the incident: an OOM's own fix is first aid, the strongest condition behind it
// names the setting to change.
int Storyteller::leadOf(int root) const
{
    for (int j : contributorsOf(root))
        if (!at(j).fix.empty())
            return j;
    return root;
}

IncidentSummary Storyteller::tell()
{
    IncidentSummary s;
    s.roles.resize(count());
    if (m_f.empty()) {
        s.headline = StoryWriter(m_r, m_session).nothingFound();
        return s;
    }
    link();
    const int n = static_cast<int>(count());
    std::vector<int> roots, groupSize(count(), 1);
    for (int i = 0; i < n; ++i) {
        if (m_causeOf[static_cast<std::size_t>(i)] < 0 && m_feeds[static_cast<std::size_t>(i)] < 0)
            roots.push_back(i);
        else if (m_feeds[static_cast<std::size_t>(i)] >= 0)
            ++groupSize[static_cast<std::size_t>(m_feeds[static_cast<std::size_t>(i)])];
        else
            ++groupSize[static_cast<std::size_t>(rootOf(i))];
    }
    // The table never links every finding to another; should it ever, the first one is the story.
    if (roots.empty()) {
        roots.push_back(0);
        m_causeOf[0] = m_feeds[0] = -1;
    }
    const int main = pickMain(roots, groupSize);
    // Causes of the same kind and weight as the main one happened side by side (every rank of a
    // node ran out of memory): all of them are the story, earliest first.
    std::vector<int> tier;
    for (int r : roots)
        if (at(r).id == at(main).id && at(r).severity == at(main).severity)
            tier.push_back(r);
    std::stable_sort(tier.begin(), tier.end(), [this](int a, int b) { return timeOf(a) < timeOf(b); });

    for (int i = 0; i < n; ++i) {
        FindingStory &role = s.roles[static_cast<std::size_t>(i)];
        role.fixFrom = i;
        if (m_feeds[static_cast<std::size_t>(i)] >= 0) {
            role.role = StoryRole::Contributing;
            role.relatedTo = m_feeds[static_cast<std::size_t>(i)];
        } else if (m_causeOf[static_cast<std::size_t>(i)] >= 0) {
            role.role = StoryRole::Consequence;
            role.relatedTo = rootOf(i);
            role.fixFrom = leadOf(role.relatedTo);
        } else {
            const bool inTier = std::find(tier.begin(), tier.end(), i) != tier.end();
            role.role = inTier || groupSize[static_cast<std::size_t>(i)] > 1 ? StoryRole::Cause : StoryRole::Unrelated;
        }
    }

    // The chain: for each cause, the conditions behind it, then it; then everything that followed,
    // in time order, a consequence without time right after what it followed from.
    for (int r : tier) {
        for (int j : contributorsOf(r))
            s.chain.push_back(j);
        s.chain.push_back(r);
        for (RankId k : realRanks(at(r).ranks))
            s.culpritRanks.push_back(k);
    }
    s.culpritRanks = realRanks(s.culpritRanks);
    std::vector<int> after;
    std::vector<TimeNs> when(count(), kNever);
    std::vector<int> depth(count(), 0);
    for (int i = 0; i < n; ++i) {
        if (m_causeOf[static_cast<std::size_t>(i)] < 0 || std::find(tier.begin(), tier.end(), rootOf(i)) == tier.end())
            continue;
        after.push_back(i);
        int k = i;
        for (std::size_t steps = 0; k >= 0 && steps <= count(); ++steps, k = m_causeOf[static_cast<std::size_t>(k)]) {
            if (at(k).timeNs) {
                when[static_cast<std::size_t>(i)] = *at(k).timeNs;
                break;
            }
            ++depth[static_cast<std::size_t>(i)];
        }
    }
    std::stable_sort(after.begin(), after.end(), [&](int a, int b) {
        const auto ka = std::pair(when[static_cast<std::size_t>(a)], depth[static_cast<std::size_t>(a)]);
        const auto kb = std::pair(when[static_cast<std::size_t>(b)], depth[static_cast<std::size_t>(b)]);
        return ka < kb;
    });
    s.chain.insert(s.chain.end(), after.begin(), after.end());
    s.headline = StoryWriter(m_r, m_session).headline(s, main);
    return s;
}

} // namespace

const char *storyRoleName(StoryRole r)
{
    switch (r) {
    case StoryRole::Cause: return "cause";
    case StoryRole::Contributing: return "contributing";
    case StoryRole::Consequence: return "consequence";
    case StoryRole::Unrelated: return "unrelated";
    }
    return "unrelated";
}

std::string IncidentSummary::firstSentence() const
{
    // A full stop followed by a space or the end; one inside a number ("5.23 GiB") is not an end.
    for (std::size_t i = 0; i < headline.size(); ++i)
        if (headline[i] == '.' && (i + 1 == headline.size() || headline[i + 1] == ' '))
            return headline.substr(0, i);
    return headline;
}

FindingStory IncidentSummary::roleOf(int index) const
{
    return index >= 0 && index < static_cast<int>(roles.size()) ? roles[static_cast<std::size_t>(index)] : FindingStory{};
}

IncidentSummary IncidentStory::build(const AnalysisResult &result, const Session *session)
{
    return Storyteller(result, session).tell();
}

} // namespace rs
