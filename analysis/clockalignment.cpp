#include "clockalignment.h"

#include <algorithm>
#include <cstdlib>
#include <tuple>

namespace rs {

namespace {

template <typename T>
T median(std::vector<T> v)
{
    if (v.empty())
        return T{};
    const auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

struct Estimate {
    TimeNs offset = 0;
    TimeNs residual = 0;
    int anchors = 0;
};

using Signature = std::tuple<StringId, StringId, std::int64_t>;

std::vector<const Collective *> collectivesOf(const Session &s, RankId rank)
{
    std::vector<const Collective *> out;
    for (const Collective &c : s.collectives())
        if (c.rank == rank)
            out.push_back(&c);
    return out;
}

// Best offset that maps `other`'s collective ends onto `ref`'s, or nothing when too few agree.
std::optional<Estimate> matchCollectives(const std::vector<const Collective *> &ref,
                                         const std::vector<const Collective *> &other)
{
    if (ref.empty() || other.empty())
        return std::nullopt;
    const int maxShift = int(std::min<std::size_t>(64, std::max(ref.size(), other.size())));
    std::optional<Estimate> best;
    int bestShiftAbs = 0;
    for (int s = -maxShift; s <= maxShift; ++s) {
        std::vector<TimeNs> d;
        for (std::size_t k = 0; k < other.size(); ++k) {
            const std::int64_t j = std::int64_t(k) + s;
            if (j < 0 || j >= std::int64_t(ref.size()))
                continue;
            const Collective &a = *ref[std::size_t(j)];
            const Collective &b = *other[k];
            if (Signature(a.op, a.processGroup, a.inNelems) != Signature(b.op, b.processGroup, b.inNelems))
                continue;
            d.push_back(a.end - b.end);
        }
        if (d.empty())
            continue;
        const TimeNs m = median(d);
        std::vector<TimeNs> inliers;
        for (TimeNs x : d)
            if (std::llabs(x - m) <= ClockAlignment::kInlierToleranceNs)
                inliers.push_back(x);
        const int n = int(inliers.size());
        if (!best || n > best->anchors || (n == best->anchors && std::abs(s) < bestShiftAbs)) {
            Estimate e;
            e.offset = median(inliers);
            std::vector<TimeNs> err;
            for (TimeNs x : inliers)
                err.push_back(std::llabs(x - e.offset));
            e.residual = median(err);
            e.anchors = n;
            best = e;
            bestShiftAbs = std::abs(s);
        }
    }
    // One collective alone could be matched to anything; ask for two agreeing pairs unless the
    // traces hold only one each.
    if (!best || best->anchors < std::min<int>(2, int(std::min(ref.size(), other.size()))))
        return std::nullopt;
    return best;
}

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
    e.offset = median(d);
    std::vector<TimeNs> err;
    for (TimeNs x : d)
        err.push_back(std::llabs(x - e.offset));
    e.residual = median(err);
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
    // The reference: the lowest rank with collectives, else the lowest rank with a clock.
    const Rank *ref = nullptr;
    for (const Rank &r : ranks)
        if (!collectivesOf(session, r.id).empty()) {
            ref = &r;
            break;
        }
    if (!ref)
        for (const Rank &r : ranks)
            if (rankHasClock(session, r)) {
                ref = &r;
                break;
            }
    if (!ref)
        ref = &ranks.front();
    const auto refColl = collectivesOf(session, ref->id);

    for (const Rank &r : ranks) {
        RankAlignment a;
        a.rank = r.id;
        a.reference = ref->id;
        const bool clock = rankHasClock(session, r);
        if (auto it = overrides.find(r.id); it != overrides.end()) {
            a.offsetNs = it->second;
            a.method = AlignmentMethod::User;
        } else if (&r == ref) {
            a.method = clock ? (refColl.empty() ? AlignmentMethod::WallClock : AlignmentMethod::Collectives)
                             : AlignmentMethod::None;
            a.anchors = int(refColl.size());
            if (!refColl.empty())
                a.residualNs = 0;
        } else if (auto c = matchCollectives(refColl, collectivesOf(session, r.id))) {
            a.offsetNs = c->offset;
            a.residualNs = c->residual;
            a.anchors = c->anchors;
            a.method = AlignmentMethod::Collectives;
        } else if (auto st = matchSteps(*ref, r); st && (!clock || std::llabs(st->offset) > kStepTrustNs)) {
            a.offsetNs = st->offset;
            a.residualNs = st->residual;
            a.anchors = st->anchors;
            a.method = AlignmentMethod::Steps;
        } else {
            a.method = clock ? AlignmentMethod::WallClock : AlignmentMethod::None;
        }
        out.push_back(a);
    }
    return out;
}

} // namespace rs
