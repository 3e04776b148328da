#include "storywriter.h"

#include "rankset.h"

#include "findings/rulecontext.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace rs {

namespace {

std::vector<RankId> realRanks(const std::vector<RankId> &ranks)
{
    return rankset::real(ranks);
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

} // namespace

StoryWriter::StoryWriter(const AnalysisResult &result, const Session *session)
    : m_r(result)
    , m_session(session)
{
}

std::int64_t StoryWriter::stepOf(RankId rank, std::optional<TimeNs> aligned) const
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
std::string StoryWriter::event(int i) const
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
std::string StoryWriter::contribution(int j, int root, bool self) const
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
    return self ? StoryWriter::aboutItself(f.title, rank) : lowerFirst(f.title);
}
// What followed. The ranks that reported a watchdog timeout, other than the culprits, are the ones
// that waited; anything else is told by its title.
std::string StoryWriter::consequence(int i, const std::vector<RankId> &culprits) const
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
std::string StoryWriter::jobEnd() const
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

std::string StoryWriter::nothingFound() const
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

// What happened to whom, why, what the others did then, what stands apart, the fix.
std::string StoryWriter::headline(const IncidentSummary &s, int main) const
{
    if (m_r.findings.empty())
        return nothingFound();
    std::vector<int> tier, contributors, after;
    for (int i : s.chain)
        (s.roleOf(i).role == StoryRole::Cause ? tier : s.roleOf(i).role == StoryRole::Contributing ? contributors : after).push_back(i);
    std::string events;
    for (int r : tier)
        events += events.empty() ? event(r) : "; " + lowerFirst(event(r));
    // Without a culprit, say so, unless the cause's own words already do.
    const bool saysSo = lowerAll(events).find("no rank can be blamed") != std::string::npos;
    std::string text = (s.culpritRanks.empty() && !saysSo ? "No rank can be blamed: " + lowerFirst(events) : events) + ".";
    std::vector<std::string> why;
    for (int j : contributors) {
        const std::string c = contribution(j, s.roleOf(j).relatedTo, s.culpritRanks.size() == 1);
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
    const std::size_t apart = m_r.findings.size() - s.chain.size();
    if (apart > 0)
        text += " " + plural(apart, "other finding stands", "other findings stand") + " apart from this.";
    // The fix of the cause's strongest condition (the chain lists them strongest first), else its own.
    int lead = main;
    for (int j : contributors)
        if (s.roleOf(j).relatedTo == main && !at(j).fix.empty()) {
            lead = j;
            break;
        }
    if (main >= 0 && !at(lead).fix.empty())
        text += " Fix: " + at(lead).fix;
    return text;
}

std::string StoryWriter::aboutItself(std::string_view title, RankId rank)
{
    std::string s(title);
    const std::string name = std::to_string(rank);
    for (const char *form : {"Rank ", "rank "}) {
        const std::string possessive = form + name + "'s ";
        for (std::size_t pos = s.find(possessive); pos != std::string::npos; pos = s.find(possessive, pos))
            s.replace(pos, possessive.size(), pos == 0 ? "Its " : "its ");
    }
    const std::string subject = "Rank " + name + " ";
    if (s.rfind(subject, 0) == 0)
        s.replace(0, subject.size(), "It ");
    return lowerFirst(s);
}

} // namespace rs
