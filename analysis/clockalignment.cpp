#include "clockalignment.h"

#include "statistics.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace rs {

namespace {

struct Estimate {
    TimeNs offset = 0;
    TimeNs residual = 0;
    int anchors = 0;
};

using Collectives = std::vector<const Collective *>;
using Signature = std::tuple<StringId, StringId, std::int64_t>;

Signature signatureOf(const Collective &c)
{
    return {c.op, c.processGroup, c.inNelems};
}

// The offset the differences `d` (non-empty) agree on: their median, with the median error left.
Estimate estimate(const std::vector<TimeNs> &d)
{
    Estimate e;
    e.offset = upperMedian(d);
    std::vector<TimeNs> err;
    for (TimeNs x : d)
        err.push_back(std::llabs(x - e.offset));
    e.residual = upperMedian(err);
    e.anchors = int(d.size());
    return e;
}

// The largest group of differences that agree within the tolerance (the densest window of the
// sorted values, not the window around the overall median: when most pairs are noise, as with
// point-to-point ops between other peers, the median can sit outside the true cluster).
std::optional<Estimate> consensus(std::vector<TimeNs> d)
{
    if (d.empty())
        return std::nullopt;
    std::sort(d.begin(), d.end());
    std::size_t bestBegin = 0, bestEnd = 0;
    for (std::size_t i = 0, j = 0; i < d.size(); ++i) {
        j = std::max(j, i);
        while (j < d.size() && d[j] - d[i] <= ClockAlignment::kInlierToleranceNs)
            ++j;
        if (j - i > bestEnd - bestBegin) {
            bestBegin = i;
            bestEnd = j;
        }
    }
    return estimate(std::vector<TimeNs>(d.begin() + std::ptrdiff_t(bestBegin), d.begin() + std::ptrdiff_t(bestEnd)));
}

constexpr std::size_t kMaxCandidates = 64;

// One collective alone could be matched to anything; ask for two agreeing pairs unless the traces
// hold only one each.
int minAnchors(const Collectives &a, const Collectives &b)
{
    return std::min<int>(2, int(std::min(a.size(), b.size())));
}

// The reference's collective ends by signature, sorted, for matching by time.
class EndIndex
{
public:
    explicit EndIndex(const Collectives &ref)
    {
        for (const Collective *c : ref)
            m_ends[signatureOf(*c)].push_back(c->end);
        for (auto &[sig, ends] : m_ends)
            std::sort(ends.begin(), ends.end());
    }

    // Every collective of `other` paired with the reference's collective of the same signature
    // whose end is nearest to its own end + `offset`, each used once, within the tolerance.
    // Matching by time rather than by position counts every collective both ranks ran, however many
    // one of them added or skipped in between; the result is the estimate of those pairs.
    std::optional<Estimate> at(const Collectives &other, TimeNs offset) const
    {
        std::map<Signature, std::vector<bool>> used;
        std::vector<TimeNs> d;
        for (const Collective *c : other) {
            const auto it = m_ends.find(signatureOf(*c));
            if (it == m_ends.end())
                continue;
            const std::vector<TimeNs> &ends = it->second;
            std::vector<bool> &taken = used[it->first];
            taken.resize(ends.size());
            const TimeNs want = c->end + offset;
            auto pos = std::size_t(std::lower_bound(ends.begin(), ends.end(), want - ClockAlignment::kInlierToleranceNs) - ends.begin());
            std::size_t best = ends.size();
            for (; pos < ends.size() && ends[pos] <= want + ClockAlignment::kInlierToleranceNs; ++pos)
                if (!taken[pos] && (best == ends.size() || std::llabs(ends[pos] - want) < std::llabs(ends[best] - want)))
                    best = pos;
            if (best == ends.size())
                continue;
            taken[best] = true;
            d.push_back(ends[best] - c->end);
        }
        if (d.empty())
            return std::nullopt;
        return estimate(d);
    }

private:
    std::map<Signature, std::vector<TimeNs>> m_ends;
};

// Pairs by c10d sequence number: the same process group and Seq is the same collective on every
// member, whatever either rank ran before it. When the pairs do not agree on one offset (under 90 %
// of them in the consensus), a rank's counter moved apart from its peers' mid-trace (it counted
// collectives they did not join): the numbers no longer name the same collective, and nothing is
// returned.
std::optional<Estimate> matchBySeq(const Collectives &ref, const Collectives &other)
{
    std::map<std::pair<StringId, std::int64_t>, TimeNs> ends;
    for (const Collective *c : ref)
        if (c->seq >= 0)
            ends.emplace(std::make_pair(c->processGroup, c->seq), c->end);
    std::vector<TimeNs> d;
    for (const Collective *c : other)
        if (c->seq >= 0)
            if (auto it = ends.find(std::make_pair(c->processGroup, c->seq)); it != ends.end())
                d.push_back(it->second - c->end);
    const std::size_t pairs = d.size();
    auto e = consensus(std::move(d));
    if (!e || e->anchors < std::max(1, minAnchors(ref, other)) || std::size_t(e->anchors) * 10 < pairs * 9)
        return std::nullopt;
    return e;
}

// What one rank pair's collectives say about their offset.
struct PairMatch {
    Estimate e;
    std::string lowReason; // why the offset is uncertain, "" when it is not
};

std::string ms(TimeNs ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

// The k-th collective of `other` against the (k+s)-th of `ref`, for every shift s in the window,
// gives the candidate offsets; each is then scored by matching the collectives by time (EndIndex),
// so the count of a candidate is every collective it explains, not only those in step with one
// position shift. The candidate with the most anchors wins; when collectives repeat with one
// signature (periodic), several agree almost as well and the one closest to the prior wins.
std::optional<PairMatch> matchByShift(const Collectives &ref, const Collectives &other, const EndIndex &index,
                                      std::optional<TimeNs> prior)
{
    if (ref.empty() || other.empty())
        return std::nullopt;
    // The window, within a budget of pairs so long traces (tens of thousands of collectives
    // without sequence numbers) stay fast: at least 16 shifts either way.
    const std::size_t budget = std::max<std::size_t>(16, 4'000'000 / other.size());
    const int maxShift = int(std::min({std::size_t(ClockAlignment::kMaxShift), std::max(ref.size(), other.size()), budget}));
    std::vector<Estimate> raw;
    int rawBest = 0;
    for (int s = -maxShift; s <= maxShift; ++s) {
        std::vector<TimeNs> d;
        for (std::size_t k = 0; k < other.size(); ++k) {
            const std::int64_t j = std::int64_t(k) + s;
            if (j < 0 || j >= std::int64_t(ref.size()))
                continue;
            const Collective &a = *ref[std::size_t(j)];
            const Collective &b = *other[k];
            if (signatureOf(a) == signatureOf(b))
                d.push_back(a.end - b.end);
        }
        if (auto e = consensus(std::move(d))) {
            rawBest = std::max(rawBest, e->anchors);
            raw.push_back(*e);
        }
    }
    const int need = minAnchors(ref, other);
    if (rawBest < need || rawBest == 0)
        return std::nullopt;
    // Candidates worth scoring: a shift that explains under half of the best one's pairs is noise,
    // and of long periodic traces (every shift explains nearly all) the strongest kMaxCandidates do.
    // Offsets within the tolerance of one already scored are the same candidate.
    std::vector<Estimate> candidates;
    std::stable_sort(raw.begin(), raw.end(), [](const Estimate &a, const Estimate &b) { return a.anchors > b.anchors; });
    for (const Estimate &r : raw) {
        if (r.anchors * 2 < rawBest || candidates.size() >= kMaxCandidates)
            break;
        if (std::any_of(candidates.begin(), candidates.end(),
                        [&](const Estimate &c) { return std::llabs(c.offset - r.offset) <= ClockAlignment::kInlierToleranceNs; }))
            continue;
        if (auto e = index.at(other, r.offset))
            candidates.push_back(e->anchors >= r.anchors ? *e : r);
    }
    int best = 0;
    for (const Estimate &c : candidates)
        best = std::max(best, c.anchors);
    if (best < need)
        return std::nullopt;
    // Offsets that agree nearly as well as the best one (>= 80 % of its pairs) are ambiguous
    // alternatives; the prior decides between them.
    const int close = std::max(need, (best * 4 + 4) / 5);
    const Estimate *pick = nullptr;
    auto better = [&](const Estimate &c) {
        if (!pick)
            return true;
        if (prior) {
            const TimeNs dc = std::llabs(c.offset - *prior), dp = std::llabs(pick->offset - *prior);
            if (dc != dp)
                return dc < dp;
        }
        if (c.anchors != pick->anchors)
            return c.anchors > pick->anchors;
        return std::llabs(c.offset) < std::llabs(pick->offset);
    };
    for (const Estimate &c : candidates)
        if (c.anchors >= (prior ? close : best) && better(c))
            pick = &c;
    // Doubtful when another offset explains about as many collectives (within 5 %) or more: the
    // collectives alone cannot tell them apart.
    PairMatch m{*pick, {}};
    const int rival = pick->anchors - std::max(1, pick->anchors / 20);
    for (const Estimate &c : candidates)
        if (&c != pick && c.anchors >= rival && std::llabs(c.offset - pick->offset) > ClockAlignment::kInlierToleranceNs) {
            m.lowReason = std::to_string(c.anchors) + " collectives also fit an offset " + ms(c.offset - pick->offset)
                + " away (they repeat); " + (prior ? "the prior" : "the larger count") + " decided";
            break;
        }
    return m;
}

struct StepNumberLess {
    bool operator()(const Step *x, std::int64_t n) const { return x->number < n; }
    bool operator()(std::int64_t n, const Step *x) const { return n < x->number; }
};

// Offset from step ends with the same ProfilerStep number. A cut-off step ends where its rank
// stopped, not at the step's barrier: it says nothing about the clock.
std::optional<Estimate> matchSteps(const Rank &ref, const Rank &other)
{
    // Paired by number through a sorted index: a training log gives every rank a step per line,
    // tens of thousands of them, and pairing each with each was quadratic.
    std::vector<const Step *> byNumber;
    byNumber.reserve(other.steps.size());
    for (const Step &b : other.steps)
        if (!b.incomplete)
            byNumber.push_back(&b);
    std::stable_sort(byNumber.begin(), byNumber.end(), [](const Step *x, const Step *y) { return x->number < y->number; });
    std::vector<TimeNs> d;
    for (const Step &a : ref.steps) {
        if (a.incomplete)
            continue;
        const auto [lo, hi] = std::equal_range(byNumber.begin(), byNumber.end(), a.number, StepNumberLess{});
        for (auto it = lo; it != hi; ++it)
            d.push_back(a.range.end - (*it)->range.end);
    }
    if (d.empty())
        return std::nullopt;
    return estimate(d);
}

bool rankHasClock(const Session &s, const Rank &r)
{
    for (SourceId id : r.sources)
        if (s.sources()[id].hasClock)
            return true;
    return false;
}

std::string unquoted(std::string v)
{
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"')
        v = v.substr(1, v.size() - 2);
    return v;
}

} // namespace

std::map<RankId, std::string> ClockAlignment::hosts(const Session &session)
{
    std::map<RankId, std::string> named;
    std::map<RankId, bool> conflict;
    auto note = [&](RankId rank, const std::string &host) {
        if (rank < 0 || host.empty())
            return;
        auto [it, added] = named.emplace(rank, host);
        if (!added && it->second != host)
            conflict[rank] = true;
    };
    // NCCL's Init lines name the host of every member; the rank they print is the global rank only
    // in the communicator of the whole job (the largest one).
    std::int32_t world = 0;
    for (const NcclCommInfo &c : session.logs().comms)
        world = std::max(world, c.nranks);
    for (const Rank &r : session.ranks())
        world = std::max(world, r.worldSize);
    for (const NcclCommInfo &c : session.logs().comms)
        if (c.nranks == world)
            note(c.rank, c.host);
    for (const ChildFailure &f : session.logs().failures)
        note(f.rank, f.host);
    for (const LogProcess &p : session.logs().processes)
        note(p.rank, p.host);
    for (const Source &s : session.sources())
        if (s.ranks.size() == 1)
            note(s.ranks.front(), unquoted(s.metadataValue("hostname")));
    for (const auto &[rank, bad] : conflict)
        named.erase(rank);
    return named;
}

std::vector<RankAlignment> ClockAlignment::align(const Session &session, const std::map<RankId, TimeNs> &overrides)
{
    std::vector<RankAlignment> out;
    const auto &ranks = session.ranks();
    if (ranks.empty())
        return out;
    std::map<RankId, Collectives> coll;
    for (const Collective &c : session.collectives())
        coll[c.rank].push_back(&c);
    std::map<RankId, bool> clock;
    for (const Rank &r : ranks)
        clock[r.id] = rankHasClock(session, r);
    const std::map<RankId, std::string> host = hosts(session);
    auto hostOf = [&host](RankId r) {
        auto it = host.find(r);
        return it == host.end() ? std::string() : it->second;
    };
    // Two ranks read one clock when they ran on one host and both sources carry it.
    auto shareClock = [&](RankId a, RankId b) { return clock[a] && clock[b] && !hostOf(a).empty() && hostOf(a) == hostOf(b); };
    auto collOf = [&coll](RankId r) -> const Collectives & {
        static const Collectives none;
        auto it = coll.find(r);
        return it == coll.end() ? none : it->second;
    };

    // The reference: the lowest rank with collectives and a clock (so the common axis is a real
    // wall clock), else with collectives, else with a clock, else the lowest rank.
    const Rank *ref = nullptr;
    for (int pass = 0; pass < 3 && !ref; ++pass)
        for (const Rank &r : ranks) {
            const bool hasColl = !collOf(r.id).empty();
            if ((pass == 0 && hasColl && clock[r.id]) || (pass == 1 && hasColl) || (pass == 2 && clock[r.id])) {
                ref = &r;
                break;
            }
        }
    if (!ref)
        ref = &ranks.front();

    auto plausible = [&](RankId a, RankId b, TimeNs offset) {
        return !(clock[a] && clock[b] && std::llabs(offset) > kMaxClockSkewNs);
    };
    std::map<RankId, RankAlignment> est;
    RankAlignment &r0 = est[ref->id];
    r0.rank = ref->id;
    r0.reference = ref->id;
    r0.anchors = int(collOf(ref->id).size());
    r0.method = !clock[ref->id] ? AlignmentMethod::None
                                : (collOf(ref->id).empty() ? AlignmentMethod::WallClock : AlignmentMethod::Collectives);
    if (!collOf(ref->id).empty())
        r0.residualNs = 0;
    if (r0.method == AlignmentMethod::None) {
        r0.confidence = RankAlignment::Confidence::Low;
        r0.confidenceReason = "no clock: its times are its source's own, not a wall clock";
    }

    // What the collectives alone say: sequence numbers when they name the collectives exactly,
    // else the shift search. A rank's counter that ran ahead of the collectives its peers joined
    // is caught twice: its pairs disagree (matchBySeq), or the wall clocks (when both have one)
    // line up more collective ends than the sequence numbers do.
    auto byCollectives = [&](const Rank &k, const Rank &r, const EndIndex &index) -> std::optional<PairMatch> {
        const Collectives &a = collOf(k.id), &b = collOf(r.id);
        if (auto e = matchBySeq(a, b)) {
            PairMatch m{*e, {}};
            if (auto t = index.at(b, e->offset); t && t->anchors > m.e.anchors)
                m.e = *t;
            if (clock[k.id] && clock[r.id] && std::llabs(m.e.offset) > kInlierToleranceNs)
                if (auto z = index.at(b, 0); z && z->anchors > m.e.anchors)
                    m.e = *z;
            return m;
        }
        std::optional<TimeNs> prior;
        if (auto st = matchSteps(k, r))
            prior = st->offset;
        else if (clock[k.id] && clock[r.id])
            prior = 0;
        return matchByShift(a, b, index, prior);
    };
    // One rank against one already aligned: the offset between them and how far it can be trusted.
    auto matchPair = [&](const Rank &k, const Rank &r) -> std::optional<PairMatch> {
        const EndIndex index(collOf(k.id));
        auto m = byCollectives(k, r, index);
        if (!shareClock(k.id, r.id))
            return m;
        // One host, one clock: the processes' profiler clocks differ by well under a millisecond,
        // so the offset is what the collectives that end together near zero say, within the
        // tolerance. A rank that ran extra collectives must not pull it a collective period away;
        // only an offset that explains more than twice as many collectives (the host's clocks
        // really disagree, or the few that met at zero did so by chance) is taken instead.
        if (auto z = index.at(collOf(r.id), 0); z && z->anchors >= minAnchors(collOf(k.id), collOf(r.id))
                                                 && (!m || m->e.anchors <= 2 * z->anchors))
            return PairMatch{*z, {}};
        if (m)
            m->lowReason = "shares host " + hostOf(r.id) + " with rank " + std::to_string(k.id)
                + ", yet their collectives do not agree at one clock";
        return m;
    };

    // Collectives, transitively: a rank may match any rank already aligned by collectives, those
    // that share its clock first.
    std::vector<const Rank *> viaCollectives;
    if (!collOf(ref->id).empty())
        viaCollectives.push_back(ref);
    for (bool progress = true; progress;) {
        progress = false;
        for (const Rank &r : ranks) {
            if (est.count(r.id) || collOf(r.id).empty())
                continue;
            std::vector<const Rank *> order = viaCollectives;
            std::stable_partition(order.begin(), order.end(), [&](const Rank *k) { return shareClock(k->id, r.id); });
            for (const Rank *k : order) {
                auto m = matchPair(*k, r);
                if (!m || !plausible(k->id, r.id, m->e.offset))
                    continue;
                const RankAlignment &base = est[k->id];
                RankAlignment a;
                a.rank = r.id;
                a.reference = k->id;
                a.offsetNs = m->e.offset + base.offsetNs;
                a.residualNs = m->e.residual;
                a.anchors = m->e.anchors;
                a.method = AlignmentMethod::Collectives;
                if (!m->lowReason.empty())
                    a.confidenceReason = m->lowReason;
                else if (a.anchors < kMinConfidentAnchors)
                    a.confidenceReason = "only " + std::to_string(a.anchors) + " collectives matched";
                else if (m->e.residual > kMaxConfidentResidualNs)
                    a.confidenceReason = "collective ends still disagree by " + ms(m->e.residual) + " (median) after the offset";
                else if (base.confidence == RankAlignment::Confidence::Low)
                    a.confidenceReason = "aligned through rank " + std::to_string(k->id) + ", whose offset is uncertain";
                if (!a.confidenceReason.empty())
                    a.confidence = RankAlignment::Confidence::Low;
                est[r.id] = a;
                progress = true;
                break;
            }
            if (est.count(r.id))
                viaCollectives.push_back(&r);
        }
    }

    for (const Rank &r : ranks) {
        RankAlignment a;
        if (auto it = est.find(r.id); it != est.end()) {
            a = it->second;
        } else {
            a.rank = r.id;
            a.reference = ref->id;
            const auto st = matchSteps(*ref, r);
            if (st && !shareClock(ref->id, r.id) && (!clock[r.id] || std::llabs(st->offset) > kStepTrustNs)
                && plausible(ref->id, r.id, st->offset)) {
                a.offsetNs = st->offset;
                a.residualNs = st->residual;
                a.anchors = st->anchors;
                a.method = AlignmentMethod::Steps;
                a.confidence = RankAlignment::Confidence::Low;
                a.confidenceReason = "step ends only (steps do not end together exactly)";
            } else {
                a.method = clock[r.id] ? AlignmentMethod::WallClock : AlignmentMethod::None;
                if (!clock[r.id]) {
                    a.confidence = RankAlignment::Confidence::Low;
                    a.confidenceReason = "no clock and nothing to anchor it";
                } else if (!collOf(r.id).empty()) {
                    a.confidence = RankAlignment::Confidence::Low;
                    a.confidenceReason = "its collectives match no other rank's: its own wall clock is used unchecked";
                }
            }
        }
        a.host = hostOf(r.id);
        // A user's offset replaces this rank's estimate; it never moves the other ranks.
        if (auto it = overrides.find(r.id); it != overrides.end()) {
            a.offsetNs = it->second;
            a.method = AlignmentMethod::User;
            a.residualNs.reset();
            a.anchors = 0;
            a.confidence = RankAlignment::Confidence::High;
            a.confidenceReason.clear();
        }
        out.push_back(a);
    }
    return out;
}

} // namespace rs
