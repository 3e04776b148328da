// memory-growth: allocated memory at the start of each step grows step over step, the signature
// of tensors kept alive across iterations (accumulated losses, stored outputs, retained graphs).
// Measured on the lowest allocated value inside each step; it must rise at every step, steadily
// (the smallest rise at least a quarter of the largest), by >= 256 MiB and >= 5 % in all.

#include "rules.h"

#include <algorithm>

namespace rs::rules {

namespace {

constexpr std::int64_t kMinGrowth = 256LL << 20;

class MemoryGrowthRule final : public FindingRule
{
public:
    std::string_view id() const override { return "memory-growth"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        for (const Rank &r : ctx.session.ranks()) {
            if (r.steps.size() < 3)
                continue;
            for (TrackId id : r.tracks) {
                const Track &t = ctx.session.tracks()[id];
                if (t.kind != TrackKind::MemoryAllocated || t.device < 0 || t.counter.empty())
                    continue;
                // The lowest allocated value inside each step: what survives from one step to the next.
                std::vector<std::pair<const Step *, double>> floors;
                for (const Step &s : r.steps) {
                    const auto b = std::lower_bound(t.counter.times.begin(), t.counter.times.end(), s.range.begin);
                    const auto e = std::lower_bound(b, t.counter.times.end(), s.range.end);
                    if (b == e)
                        continue;
                    const auto i0 = std::size_t(b - t.counter.times.begin()), i1 = std::size_t(e - t.counter.times.begin());
                    floors.emplace_back(&s, *std::min_element(t.counter.values.begin() + std::ptrdiff_t(i0),
                                                              t.counter.values.begin() + std::ptrdiff_t(i1)));
                }
                if (floors.size() < 3)
                    continue;
                // Steady growth: every step keeps more, and no step alone accounts for it. A single
                // jump is a one-time allocation (the optimizer creates its state at the first
                // optimizer.step(), a cache warms up), not something retained every iteration.
                double smallest = floors[1].second - floors[0].second, largest = smallest;
                for (std::size_t i = 2; i < floors.size(); ++i) {
                    const double inc = floors[i].second - floors[i - 1].second;
                    smallest = std::min(smallest, inc);
                    largest = std::max(largest, inc);
                }
                const double growth = floors.back().second - floors.front().second;
                if (smallest <= 0 || smallest * 4 < largest || growth < double(kMinGrowth)
                    || growth < 0.05 * floors.front().second)
                    continue;
                Finding f;
                f.ranks = {r.id};
                const bool large = growth >= 0.10 * floors.front().second && growth >= double(1LL << 30);
                f.severity = large ? Severity::Medium : Severity::Low;
                f.timeNs = ctx.aligned(r.id, floors.front().first->range.begin);
                f.endNs = ctx.aligned(r.id, floors.back().first->range.end);
                f.title = "Rank " + std::to_string(r.id) + " keeps more memory every step: +"
                    + formatBytes(std::int64_t(growth)) + " over " + std::to_string(floors.size()) + " steps";
                for (const auto &[step, v] : floors)
                    f.evidence.push_back(ctx.derived(r.id, "step " + std::to_string(step->number) + ": lowest allocated "
                                                               + formatBytes(std::int64_t(v)),
                                                     ctx.aligned(r.id, step->range.begin),
                                                     ctx.session.sources()[t.source].evidencePath()));
                f.fix = "Find tensors kept across steps: accumulate losses with loss.item() or loss.detach(), do not keep "
                        "outputs or hidden states in lists, avoid retain_graph=True, and check that the optimizer state "
                        "is created once.";
                out.push_back(std::move(f));
                break; // one finding per rank
            }
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> memoryGrowth()
{
    return std::make_unique<MemoryGrowthRule>();
}

} // namespace rs::rules
