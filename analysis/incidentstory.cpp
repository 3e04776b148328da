#include "incidentstory.h"

#include "findings/rulecontext.h"
#include "storyrelations.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

namespace rs {

namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();

std::vector<RankId> realRanks(const std::vector<RankId> &ranks)
{
    std::vector<RankId> out;
    for (RankId r : ranks)
        if (r >= 0)
            out.push_back(r);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string capitalised(std::string s)
{
    if (!s.empty())
        s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
    return s;
}

// Lowers the first letter of a sentence so it continues another, unless it starts an acronym
// ("NCCL hit…", "CUDA 12.4…").
std::string lowerFirst(std::string s)
{
    if (s.size() >= 2 && std::isupper(static_cast<unsigned char>(s[0])) && std::islower(static_cast<unsigned char>(s[1])))
        s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

std::string capitalisedAll(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string lowerAll(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// "a, b and c".
std::string joined(const std::vector<std::string> &parts)
{
    std::string s;
    for (std::size_t i = 0; i < parts.size(); ++i)
        s += (i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ") + parts[i];
    return s;
}

// Whether `text` names rank `r` ("rank 2", "Rank 2's"; not "rank 21").
bool mentionsRank(const std::string &text, RankId r)
{
    const std::string name = std::to_string(r);
    for (const char *form : {"Rank ", "rank ", "ranks ", "Ranks "})
        for (std::size_t at = text.find(form); at != std::string::npos; at = text.find(form, at + 1)) {
            // The list after "ranks " ("ranks 0, 1, 3") names each of its numbers.
            std::size_t p = at + std::char_traits<char>::length(form);
            for (;;) {
                std::size_t e = p;
                while (e < text.size() && std::isdigit(static_cast<unsigned char>(text[e])))
                    ++e;
                if (e == p)
                    break;
                if (text.compare(p, e - p, name) == 0)
                    return true;
                if (text.compare(e, 2, ", ") != 0)
                    break;
                p = e + 2;
            }
        }
    return false;
}

std::string plural(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
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
    std::int64_t stepOf(RankId rank, std::optional<TimeNs> aligned) const;
    std::string event(int i) const;
    std::string contribution(int j, int root, bool self) const;
    std::string consequence(int i, const std::vector<RankId> &culprits) const;
    std::string jobEnd() const;
    std::string nothingFound() const;

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

std::int64_t Storyteller::stepOf(RankId rank, std::optional<TimeNs> aligned) const
{
    const Rank *r = m_session && aligned ? m_session->rank(rank) : nullptr;
    if (!r)
        return -1;
    const TimeNs t = *aligned - m_r.offsetOf(rank);
    for (const Step &s : r->steps)
        if (s.range.contains(t))
            return s.number;
    return -1;
}

// What happened, as the story's first sentence. An OOM is told with the numbers of its message
// (what it tried, what was free); anything else by its title, which the rules write for people.
std::string Storyteller::event(int i) const
{
    const Finding &f = at(i);
    const std::vector<RankId> ranks = realRanks(f.ranks);
    const RankMetrics *m = ranks.size() == 1 ? m_r.metricsOf(ranks.front()) : nullptr;
    if (f.id == "oom" && m && m->oomRequestedBytes) {
        std::string s = "Rank " + std::to_string(ranks.front()) + " ran out of GPU memory";
        if (m->oomCount > 1)
            s += " " + std::to_string(m->oomCount) + " times";
        if (const std::int64_t step = stepOf(ranks.front(), f.timeNs); step >= 0)
            s += " in step " + std::to_string(step);
        s += " (tried " + formatBytes(*m->oomRequestedBytes);
        if (m->oomFreeBytes)
            s += ", " + formatBytes(*m->oomFreeBytes) + " free";
        return s + ")";
    }
    // A title that does not say whose it is gets its ranks in front ("Rank 1: CUDA 13.0 software…").
    const bool named = std::any_of(ranks.begin(), ranks.end(), [&f](RankId r) { return mentionsRank(f.title, r); });
    return ranks.empty() || named ? f.title : capitalised(rankList(ranks)) + ": " + f.title;
}

// A condition behind `root`, about the culprit ("it", "its") when `self`, else naming its rank.
std::string Storyteller::contribution(int j, int root, bool self) const
{
    const Finding &f = at(j);
    const std::vector<RankId> ranks = realRanks(f.ranks);
    if (ranks.size() != 1)
        return lowerFirst(f.title);
    const RankId rank = ranks.front();
    const std::string who = self ? "it" : "rank " + std::to_string(rank);
    const std::string whose = self ? "its" : "rank " + std::to_string(rank) + "'s";
    const std::int64_t rootStep = stepOf(rank, at(root).timeNs);
    const RankMetrics *m = m_r.metricsOf(rank);
    if (f.id == "uneven-batch" && m) {
        // The step the rank failed in when it had more there, else the first step it had more.
        for (const bool failedStep : {true, false})
            for (const auto &[step, mine] : m->microBatchesPerStep) {
                if (failedStep && step != rootStep)
                    continue;
                std::vector<std::int64_t> peers;
                for (const RankMetrics &o : m_r.metrics)
                    if (o.rank != rank)
                        for (const auto &[s, n] : o.microBatchesPerStep)
                            if (s == step)
                                peers.push_back(n);
                if (peers.empty())
                    continue;
                std::nth_element(peers.begin(), peers.begin() + static_cast<std::ptrdiff_t>(peers.size() / 2), peers.end());
                const std::int64_t median = peers[peers.size() / 2];
                if (mine > median)
                    return who + " got " + std::to_string(mine) + " micro-batches"
                        + (step != rootStep ? " in step " + std::to_string(step) : std::string()) + " where its peers got "
                        + std::to_string(median);
            }
    }
    if (f.id == "activation-memory") {
        const Spike *top = nullptr;
        for (const Spike &s : m_r.spikes)
            if (s.rank == rank && (!top || s.bytes > top->bytes))
                top = &s;
        if (top)
            return whose + " activations rose " + formatBytes(top->bytes) + " in the forward pass"
                + (top->step >= 0 && top->step != rootStep ? " of step " + std::to_string(top->step) : std::string());
    }
    if (f.id == "allocator-fragmentation" && m && m->fragmentationBytes && *m->fragmentationBytes > 0)
        return whose + " allocator held " + formatBytes(*m->fragmentationBytes) + " reserved but unused (fragmented)";
    return self ? IncidentStory::aboutItself(f.title, rank) : lowerFirst(f.title);
}

// What followed. The ranks that reported a watchdog timeout, other than the culprits, are the ones
// that waited; anything else is told by its title.
std::string Storyteller::consequence(int i, const std::vector<RankId> &culprits) const
{
    const Finding &f = at(i);
    if (f.id == "collective-desync" && m_session) {
        std::set<RankId> waited;
        std::string op;
        for (const WatchdogTimeout &w : m_session->logs().timeouts)
            if (w.rank >= 0 && std::find(culprits.begin(), culprits.end(), w.rank) == culprits.end()) {
                waited.insert(w.rank);
                if (op.empty())
                    op = lowerAll(w.opType);
            }
        if (!waited.empty()) {
            const std::vector<RankId> list(waited.begin(), waited.end());
            return rankList(list) + " waited in " + (op.empty() ? std::string("a collective") : op)
                + (list.size() == 1 ? " until its watchdog timed out" : " until their watchdogs timed out");
        }
    }
    // The culprit's own process dying is part of what happened to it: told by how it ended.
    const std::vector<RankId> ranks = realRanks(f.ranks);
    if (f.id == "rank-failure" && ranks.size() == 1 && std::find(culprits.begin(), culprits.end(), ranks.front()) != culprits.end()) {
        std::string how = "exited";
        if (m_session)
            for (const ChildFailure &c : m_session->logs().failures)
                if (c.rank == ranks.front()) {
                    how = !c.signal.empty() ? "died of " + c.signal : c.exitCode != 0 ? "exited with code " + std::to_string(c.exitCode) : how;
                    break;
                }
        return "rank " + std::to_string(ranks.front()) + "'s process " + how;
    }
    // Anything else by its title, without the details after a colon (an exception's message).
    const std::string title = f.title.substr(0, f.title.find(": "));
    return lowerFirst(title);
}

// How the job ended, when a launcher or scheduler said so: a scheduler's cancel ends it for
// everyone; otherwise the launcher that reported the first failure stopped the rest.
std::string Storyteller::jobEnd() const
{
    if (!m_session)
        return {};
    const LogEvidence &logs = m_session->logs();
    // Schedulers are acronyms ("slurm" → SLURM); launchers are commands and keep their spelling.
    auto name = [](const std::string &launcher) {
        return launcher == "slurm" || launcher == "pbs" ? capitalisedAll(launcher) : launcher;
    };
    for (const JobEvent &e : logs.jobEvents)
        if (e.kind == JobEventKind::Cancelled && !e.launcher.empty())
            return name(e.launcher) + " cancelled the job" + (e.reason.empty() ? std::string() : " (" + lowerAll(e.reason) + ")");
    const ChildFailure *first = nullptr;
    for (const ChildFailure &c : logs.failures)
        if (!c.launcher.empty() && (!first || (c.rootCause && !first->rootCause)))
            first = &c;
    if (first)
        return name(first->launcher) + " stopped the job";
    return {};
}

std::string Storyteller::nothingFound() const
{
    if (!m_session)
        return "No findings: nothing points at a failed rank, a hang or a memory problem.";
    std::vector<RankId> ranks;
    for (const Rank &r : m_session->ranks())
        ranks.push_back(r.id);
    std::string s = "No findings: RankScope read " + plural(m_session->sources().size(), "input file", "input files");
    if (!ranks.empty())
        s += " (" + rankList(ranks) + ")";
    return s + " and nothing points at a failed rank, a hang or a memory problem.";
}

IncidentSummary Storyteller::tell()
{
    IncidentSummary s;
    s.roles.resize(count());
    if (m_f.empty()) {
        s.headline = nothingFound();
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
    std::vector<int> contributors;
    for (int r : tier) {
        for (int j : contributorsOf(r)) {
            s.chain.push_back(j);
            contributors.push_back(j);
        }
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

    // The paragraph: what happened to whom, why, what the others did then, what is left, the fix.
    std::string text;
    std::string events;
    for (int r : tier)
        events += events.empty() ? event(r) : "; " + lowerFirst(event(r));
    // Without a culprit, say so, unless the cause's own words already do.
    const bool saysSo = lowerAll(events).find("no rank can be blamed") != std::string::npos;
    text = (s.culpritRanks.empty() && !saysSo ? "No rank can be blamed: " + lowerFirst(events) : events) + ".";
    std::vector<std::string> why;
    for (int j : contributors) {
        const std::string c = contribution(j, m_feeds[static_cast<std::size_t>(j)], s.culpritRanks.size() == 1);
        if (std::find(why.begin(), why.end(), c) == why.end())
            why.push_back(c);
    }
    if (!why.empty())
        text += " " + capitalised(joined(why)) + ".";
    std::vector<std::string> then;
    for (int i : after) {
        const std::string c = consequence(i, s.culpritRanks);
        if (std::find(then.begin(), then.end(), c) == then.end())
            then.push_back(c);
    }
    constexpr std::size_t kMaxThen = 3; // the rest are in the list; the paragraph stays readable
    if (then.size() > kMaxThen) {
        const std::size_t more = then.size() - kMaxThen;
        then.resize(kMaxThen);
        then.push_back(plural(more, "more finding", "more findings"));
    }
    if (!then.empty()) {
        // How the job ended belongs to a rank's story; without a culprit it is the story itself.
        const std::string end = s.culpritRanks.empty() ? std::string() : jobEnd();
        if (!end.empty())
            then.push_back(end);
        text += " Then " + joined(then) + ".";
    }
    const std::size_t apart = count() - s.chain.size();
    if (apart > 0)
        text += " " + plural(apart, "other finding stands", "other findings stand") + " apart from this.";
    if (const Finding &lead = at(leadOf(main)); !lead.fix.empty())
        text += " Fix: " + lead.fix;
    s.headline = text;
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

std::string IncidentStory::aboutItself(std::string_view title, RankId rank)
{
    std::string s(title);
    const std::string name = std::to_string(rank);
    for (const char *form : {"Rank ", "rank "}) {
        const std::string possessive = form + name + "'s ";
        for (std::size_t at = s.find(possessive); at != std::string::npos; at = s.find(possessive, at))
            s.replace(at, possessive.size(), at == 0 ? "Its " : "its ");
    }
    const std::string subject = "Rank " + name + " ";
    if (s.rfind(subject, 0) == 0)
        s.replace(0, subject.size(), "It ");
    return lowerFirst(s);
}

IncidentSummary IncidentStory::build(const AnalysisResult &result, const Session *session)
{
    return Storyteller(result, session).tell();
}

} // namespace rs
