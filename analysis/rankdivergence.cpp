#include "rankdivergence.h"

#include "statistics.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

namespace rs {

namespace {

struct MetricDef {
    const char *key;
    std::function<std::optional<double>(const RankMetrics &)> get;
    bool structural;
    const char *noun;
    // Values from different kinds of evidence are not compared with each other (a trace's peak
    // covers its profiled steps, a memory_summary's the whole process): null when all are alike.
    std::function<int(const RankMetrics &)> kind = nullptr;
    // Only values above the median diverge (arriving early at a collective is no fault), and they
    // must be at least this far above it in the metric's unit: a difference that matters to a step.
    bool onlyAbove = false;
    std::function<double(const std::vector<RankMetrics> &)> minDiff = nullptr;
};

// Lateness that matters: at least 1 ms and 1 % of the job's median step (the median over ranks
// of their median steps), so launch jitter and sub-millisecond skew stay silent.
double materialLateness(const std::vector<RankMetrics> &metrics)
{
    std::vector<double> steps;
    for (const RankMetrics &m : metrics)
        if (m.stepTimeMedianNs)
            steps.push_back(double(*m.stepTimeMedianNs));
    return std::max(double(RankDivergence::kMinLatenessNs), RankDivergence::kMinLatenessStepFraction * median(steps));
}

template <typename T>
std::optional<double> asDouble(const std::optional<T> &v)
{
    return v ? std::optional<double>(double(*v)) : std::nullopt;
}

const std::vector<MetricDef> &definitions()
{
    static const std::vector<MetricDef> defs = {
        {"peak_allocated_bytes", [](const RankMetrics &m) { return asDouble(m.peakAllocatedBytes); }, false, "peak allocated memory",
         [](const RankMetrics &m) { return int(m.peakSource); }},
        {"peak_reserved_bytes", [](const RankMetrics &m) { return asDouble(m.peakReservedBytes); }, false, "peak reserved memory",
         [](const RankMetrics &m) { return int(m.peakReservedSource); }},
        {"gpu_used_peak_bytes", [](const RankMetrics &m) { return asDouble(m.gpuUsedPeakBytes); }, false, "GPU memory used"},
        {"step_time_median_ns", [](const RankMetrics &m) { return asDouble(m.stepTimeMedianNs); }, false, "median step time"},
        {"input_elements", [](const RankMetrics &m) { return asDouble(m.inputElements); }, false, "input elements"},
        {"collective_lateness_ns", [](const RankMetrics &m) { return asDouble(m.collectiveLatenessNs); }, false, "arrival delay at collectives",
         nullptr, true, materialLateness},
        {"steps", [](const RankMetrics &m) { return asDouble(m.steps); }, true, "steps"},
        {"micro_batches", [](const RankMetrics &m) { return asDouble(m.microBatches); }, true, "micro-batches"},
        {"collectives", [](const RankMetrics &m) { return asDouble(m.collectives); }, true, "collectives"},
    };
    return defs;
}

std::string human(const char *key, double v)
{
    char buf[64];
    const std::string k(key);
    if (k.find("bytes") != std::string::npos)
        std::snprintf(buf, sizeof buf, "%.2f GiB", v / double(1LL << 30));
    else if (k.find("_ns") != std::string::npos)
        std::snprintf(buf, sizeof buf, "%.3f ms", v / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

// The divergences of one metric among ranks whose values are comparable.
void compareGroup(const MetricDef &def, const std::vector<std::pair<RankId, double>> &values, double minDiff,
                  std::vector<Divergence> &out)
{
    if (values.size() < 3)
        return;
    std::vector<double> xs;
    for (const auto &[r, v] : values)
        xs.push_back(v);
    const double med = median(xs);
    if (def.structural) {
        // The value most ranks share; ties go to the smaller one (the "normal" count).
        std::map<double, int> counts;
        for (double x : xs)
            ++counts[x];
        double mode = xs.front();
        int best = 0;
        for (const auto &[x, n] : counts)
            if (n > best) {
                mode = x;
                best = n;
            }
        if (best * 2 <= int(xs.size()))
            return; // no majority: nothing is "normal"
        for (const auto &[rank, v] : values) {
            if (v == mode)
                continue;
            Divergence d;
            d.rank = rank;
            d.metric = def.key;
            d.value = v;
            d.median = mode;
            d.score = v > mode ? 100.0 : -100.0;
            d.reason = "rank " + std::to_string(rank) + " has " + human(def.key, v) + " " + def.noun + " where "
                + std::to_string(best) + " of " + std::to_string(xs.size()) + " ranks have " + human(def.key, mode);
            out.push_back(std::move(d));
        }
        return;
    }
    std::vector<double> dev;
    for (double x : xs)
        dev.push_back(std::fabs(x - med));
    const double mad = median(dev);
    for (const auto &[rank, v] : values) {
        const double diff = v - med;
        if (std::fabs(diff) < RankDivergence::kMinRelativeDiff * std::max(std::fabs(med), 1.0) || std::fabs(diff) < minDiff
            || (def.onlyAbove && diff <= 0))
            continue;
        // MAD 0 means every other rank agrees exactly: any real difference is an outlier.
        const double z = mad > 0 ? diff / (1.4826 * mad) : (diff > 0 ? 100.0 : -100.0);
        if (std::fabs(z) < RankDivergence::kZThreshold)
            continue;
        Divergence d;
        d.rank = rank;
        d.metric = def.key;
        d.value = v;
        d.median = med;
        d.score = z;
        d.reason = "rank " + std::to_string(rank) + " " + def.noun + " " + human(def.key, v) + " vs median "
            + human(def.key, med);
        out.push_back(std::move(d));
    }
}

} // namespace

std::vector<Divergence> RankDivergence::find(const std::vector<RankMetrics> &metrics)
{
    std::vector<Divergence> out;
    for (const MetricDef &def : definitions()) {
        std::map<int, std::vector<std::pair<RankId, double>>> groups;
        for (const RankMetrics &m : metrics)
            if (auto v = def.get(m))
                groups[def.kind ? def.kind(m) : 0].emplace_back(m.rank, *v);
        const double minDiff = def.minDiff ? def.minDiff(metrics) : 0.0;
        for (const auto &[kind, values] : groups)
            compareGroup(def, values, minDiff, out);
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const Divergence &a, const Divergence &b) { return std::fabs(a.score) > std::fabs(b.score); });
    return out;
}

} // namespace rs
