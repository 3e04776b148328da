#include "rankdiff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace rs {

std::vector<OpDiffRow> RankDiff::ops(const Session &session, const RankOpTotals &a, const RankOpTotals &b)
{
    std::vector<OpDiffRow> out;
    out.reserve(std::max(a.totals.size(), b.totals.size()));
    // Both lists are sorted by (kind, name): one merge pass pairs them up.
    const auto key = [](const OpTotal &t) { return std::make_pair(t.kind, t.name); };
    auto ia = a.totals.begin();
    auto ib = b.totals.begin();
    while (ia != a.totals.end() || ib != b.totals.end()) {
        OpDiffRow row;
        if (ib == b.totals.end() || (ia != a.totals.end() && key(*ia) < key(*ib))) {
            row = {ia->name, ia->kind, ia->stats, {}};
            ++ia;
        } else if (ia == a.totals.end() || key(*ib) < key(*ia)) {
            row = {ib->name, ib->kind, {}, ib->stats};
            ++ib;
        } else {
            row = {ia->name, ia->kind, ia->stats, ib->stats};
            ++ia;
            ++ib;
        }
        out.push_back(row);
    }
    std::sort(out.begin(), out.end(), [&session](const OpDiffRow &x, const OpDiffRow &y) {
        const TimeNs tx = std::llabs(x.timeDelta()), ty = std::llabs(y.timeDelta());
        if (tx != ty)
            return tx > ty;
        const std::int64_t bx = std::llabs(x.bytesDelta()), by = std::llabs(y.bytesDelta());
        if (bx != by)
            return bx > by;
        if (x.name != y.name) {
            const auto sx = session.str(x.name), sy = session.str(y.name);
            if (sx != sy)
                return sx < sy;
        }
        return x.kind < y.kind;
    });
    return out;
}

std::vector<StepDiffRow> RankDiff::steps(const Session &session, RankId a, RankId b)
{
    std::map<std::int64_t, StepDiffRow> rows;
    const auto add = [&](RankId rankId, bool sideA) {
        const Rank *rank = session.rank(rankId);
        if (!rank)
            return;
        for (const Step &s : rank->steps) {
            StepDiffRow &r = rows[s.number];
            r.number = s.number;
            std::optional<TimeNs> &dur = sideA ? r.a : r.b;
            if (dur)
                continue;
            dur = s.range.duration();
            (sideA ? r.startA : r.startB) = s.range.begin;
            (sideA ? r.incompleteA : r.incompleteB) = s.incomplete;
        }
    };
    add(a, true);
    add(b, false);
    std::vector<StepDiffRow> out;
    out.reserve(rows.size());
    for (auto &[number, row] : rows)
        out.push_back(row);
    return out;
}

std::vector<std::int64_t> RankDiff::completedByBoth(const Session &session, RankId a, RankId b)
{
    std::vector<std::int64_t> out;
    for (const StepDiffRow &r : steps(session, a, b))
        if (r.completedByBoth())
            out.push_back(r.number);
    return out;
}

bool RankDiff::anyIncomplete(const Session &session, RankId a, RankId b)
{
    for (RankId id : {a, b})
        if (const Rank *r = session.rank(id))
            for (const Step &s : r->steps)
                if (s.incomplete)
                    return true;
    return false;
}

} // namespace rs
