#include "referencerank.h"

#include "statistics.h"

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

} // namespace

std::vector<std::optional<double>> ReferenceRank::values(const RankMetrics &m)
{
    const auto d = [](const auto &opt) { return opt ? std::optional<double>(double(*opt)) : std::nullopt; };
    return {d(m.peakAllocatedBytes), d(m.peakReservedBytes), d(m.peakTimeNs),     d(m.gpuUsedPeakBytes),
            d(m.steps),              d(m.stepTimeMedianNs),  d(m.collectives),   std::optional<double>(m.oom ? 1 : 0)};
}

std::vector<ReferenceRank::Score> ReferenceRank::scores(const std::vector<RankMetrics> &metrics)
{
    std::vector<Score> out(metrics.size());
    std::vector<std::vector<std::optional<double>>> vals;
    vals.reserve(metrics.size());
    int most = 0;
    for (std::size_t i = 0; i < metrics.size(); ++i) {
        vals.push_back(values(metrics[i]));
        out[i].rank = metrics[i].rank;
        out[i].metrics = int(std::count_if(vals[i].begin(), vals[i].end(), [](const auto &v) { return v.has_value(); }));
        most = std::max(most, out[i].metrics);
    }
    for (Score &s : out)
        s.competes = s.metrics == most;
    for (int k = 0; k < kMetricCount; ++k) {
        std::vector<double> xs;
        for (std::size_t i = 0; i < metrics.size(); ++i)
            if (out[i].competes && vals[i][std::size_t(k)])
                xs.push_back(*vals[i][std::size_t(k)]);
        if (xs.empty())
            continue;
        const double m = median(xs);
        std::vector<double> dev;
        dev.reserve(xs.size());
        for (double x : xs)
            dev.push_back(std::abs(x - m));
        double scale = 1.4826 * median(dev);
        if (!(scale > 0)) {
            double sum = 0;
            for (double d : dev)
                sum += d;
            scale = sum / double(dev.size());
        }
        if (!(scale > 0) || !std::isfinite(scale))
            continue;
        for (std::size_t i = 0; i < metrics.size(); ++i)
            if (out[i].competes && vals[i][std::size_t(k)])
                out[i].distance += std::abs(*vals[i][std::size_t(k)] - m) / scale;
    }
    return out;
}

RankId ReferenceRank::pick(const std::vector<RankMetrics> &metrics)
{
    const std::vector<Score> s = scores(metrics);
    const Score *best = nullptr;
    for (const Score &c : s) {
        if (!c.competes)
            continue;
        if (!best) {
            best = &c;
            continue;
        }
        const double tol = 1e-9 * std::max({1.0, std::abs(c.distance), std::abs(best->distance)});
        if (c.distance < best->distance - tol || (std::abs(c.distance - best->distance) <= tol && c.rank < best->rank))
            best = &c;
    }
    return best ? best->rank : kNoRank;
}

} // namespace rs
