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
    const std::vector<TimeNs> inliers(d.begin() + std::ptrdiff_t(bestBegin), d.begin() + std::ptrdiff_t(bestEnd));
    Estimate e;
    e.offset = upperMedian(inliers);
    std::vector<TimeNs> err;
    for (TimeNs x : inliers)
        err.push_back(std::llabs(x - e.offset));
    e.residual = upperMedian(err);
    e.anchors = int(inliers.size());
    return e;
}

// One collective alone could be matched to anything; ask for two agreeing pairs unless the traces
// hold only one each.
int minAnchors(const Collectives &a, const Collectives &b)
{
    return std::min<int>(2, int(std::min(a.size(), b.size())));
}

// Exact pairs by c10d sequence number (same process group and op), when both ranks carry them.
std::optional<Estimate> matchBySeq(const Collectives &ref, const Collectives &other)
{
    std::map<std::tuple<StringId, StringId, std::int64_t>, TimeNs> ends;
    for (const Collective *c : ref)
        if (c->seq >= 0)
            ends.emplace(std::make_tuple(c->processGroup, c->op, c->seq), c->end);
    std::vector<TimeNs> d;
    for (const Collective *c : other)
        if (c->seq >= 0)
            if (auto it = ends.find(std::make_tuple(c->processGroup, c->op, c->seq)); it != ends.end())
                d.push_back(it->second - c->end);
    auto e = consensus(std::move(d));
    if (!e || e->anchors < std::max(1, minAnchors(ref, other)))
        return std::nullopt;
    return e;
}

// The k-th collective of `other` against the (k+s)-th of `ref`, for every shift s in the window.
std::optional<Estimate> matchByShift(const Collectives &ref, const Collectives &other, std::optional<TimeNs> prior)
{
    if (ref.empty() || other.empty())
        return std::nullopt;
    // The window, within a budget of pairs so long traces (tens of thousands of collectives
    // without sequence numbers) stay fast: at least 16 shifts either way.
    const std::size_t budget = std::max<std::size_t>(16, 4'000'000 / other.size());
    const int maxShift = int(std::min({std::size_t(ClockAlignment::kMaxShift), std::max(ref.size(), other.size()), budget}));
    struct Candidate {
        int shift;
        Estimate e;
    };
    std::vector<Candidate> candidates;
    int best = 0;
    for (int s = -maxShift; s <= maxShift; ++s) {
        std::vector<TimeNs> d;
        for (std::size_t k = 0; k < other.size(); ++k) {
            const std::int64_t j = std::int64_t(k) + s;
            if (j < 0 || j >= std::int64_t(ref.size()))
                continue;
            const Collective &a = *ref[std::size_t(j)];
            const Collective &b = *other[k];
            if (Signature(a.op, a.processGroup, a.inNelems) == Signature(b.op, b.processGroup, b.inNelems))
                d.push_back(a.end - b.end);
        }
        if (auto e = consensus(std::move(d))) {
            best = std::max(best, e->anchors);
            candidates.push_back({s, *e});
        }
    }
    const int need = minAnchors(ref, other);
    if (best < need || best == 0)
        return std::nullopt;
    // Shifts that agree nearly as well as the best one (>= 80 % of its pairs) are ambiguous
    // alternatives only when the collectives repeat; the prior decides between them.
    const int close = std::max(need, (best * 4 + 4) / 5);
    const Candidate *pick = nullptr;
    auto better = [&](const Candidate &c) {
        if (!pick)
            return true;
        if (prior) {
            const TimeNs dc = std::llabs(c.e.offset - *prior), dp = std::llabs(pick->e.offset - *prior);
            if (dc != dp)
                return dc < dp;
        }
        if (c.e.anchors != pick->e.anchors)
            return c.e.anchors > pick->e.anchors;
        return std::abs(c.shift) < std::abs(pick->shift);
    };
    for (const Candidate &c : candidates)
        if (c.e.anchors >= (prior ? close : best) && better(c))
            pick = &c;
    return pick->e;
}

// Offset from step ends with the same ProfilerStep number.
std::optional<Estimate> matchSteps(const Rank &ref, const Rank &other)
{
    std::vector<TimeNs> d;
    for (const Step &a : ref.steps)
        for (const Step &b : other.steps)
            if (a.number == b.number)
                d.push_back(a.range.end - b.range.end);
    if (d.empty())
        return std::nullopt;
    Estimate e;
    e.offset = upperMedian(d);
    std::vector<TimeNs> err;
    for (TimeNs x : d)
        err.push_back(std::llabs(x - e.offset));
    e.residual = upperMedian(err);
    e.anchors = int(d.size());
    return e;
}

bool rankHasClock(const Session &s, const Rank &r)
{
    for (SourceId id : r.sources)
        if (s.sources()[id].hasClock)
            return true;
    return false;
}

} // namespace

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

    // Collectives, transitively: a rank may match any rank already aligned by collectives.
    std::vector<const Rank *> viaCollectives;
    if (!collOf(ref->id).empty())
        viaCollectives.push_back(ref);
    for (bool progress = true; progress;) {
        progress = false;
        for (const Rank &r : ranks) {
            if (est.count(r.id) || collOf(r.id).empty())
                continue;
            for (std::size_t i = 0; i < viaCollectives.size() && !est.count(r.id); ++i) {
                const Rank *k = viaCollectives[i];
                std::optional<TimeNs> prior;
                if (auto st = matchSteps(*k, r))
                    prior = st->offset;
                else if (clock[k->id] && clock[r.id])
                    prior = 0;
                auto e = matchBySeq(collOf(k->id), collOf(r.id));
                if (!e)
                    e = matchByShift(collOf(k->id), collOf(r.id), prior);
                if (!e || !plausible(k->id, r.id, e->offset))
                    continue;
                RankAlignment a;
                a.rank = r.id;
                a.reference = k->id;
                a.offsetNs = e->offset + est[k->id].offsetNs;
                a.residualNs = e->residual;
                a.anchors = e->anchors;
                a.method = AlignmentMethod::Collectives;
                est[r.id] = a;
                progress = true;
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
            if (st && (!clock[r.id] || std::llabs(st->offset) > kStepTrustNs) && plausible(ref->id, r.id, st->offset)) {
                a.offsetNs = st->offset;
                a.residualNs = st->residual;
                a.anchors = st->anchors;
                a.method = AlignmentMethod::Steps;
            } else {
                a.method = clock[r.id] ? AlignmentMethod::WallClock : AlignmentMethod::None;
            }
        }
        // A user's offset replaces this rank's estimate; it never moves the other ranks.
        if (auto it = overrides.find(r.id); it != overrides.end()) {
            a.offsetNs = it->second;
            a.method = AlignmentMethod::User;
            a.residualNs.reset();
            a.anchors = 0;
        }
        out.push_back(a);
    }
    return out;
}

} // namespace rs
