#include "analysisresult.h"

#include <algorithm>
#include <limits>

namespace rs {

const char *alignmentMethodName(AlignmentMethod m)
{
    switch (m) {
    case AlignmentMethod::Collectives: return "collectives";
    case AlignmentMethod::Steps: return "steps";
    case AlignmentMethod::WallClock: return "wall-clock";
    case AlignmentMethod::Anchor: return "anchor";
    case AlignmentMethod::User: return "user";
    case AlignmentMethod::None: return "none";
    }
    return "none";
}

const char *confidenceName(RankAlignment::Confidence c)
{
    return c == RankAlignment::Confidence::Low ? "low" : "high";
}

const char *memorySourceName(MemorySource s)
{
    switch (s) {
    case MemorySource::None: return nullptr;
    case MemorySource::Trace: return "trace";
    case MemorySource::Snapshot: return "snapshot";
    case MemorySource::MemorySummary: return "memory-summary";
    case MemorySource::OomMessage: return "oom-message";
    case MemorySource::Log: return "log";
    case MemorySource::Summary: return "summary";
    }
    return nullptr;
}

const char *severityName(Severity s)
{
    switch (s) {
    case Severity::Info: return "info";
    case Severity::Low: return "low";
    case Severity::Medium: return "medium";
    case Severity::High: return "high";
    }
    return "info";
}

const RankMetrics *AnalysisResult::metricsOf(RankId rank) const
{
    for (const RankMetrics &m : metrics)
        if (m.rank == rank)
            return &m;
    return nullptr;
}

TimeNs AnalysisResult::offsetOf(RankId rank) const
{
    for (const RankAlignment &a : alignment)
        if (a.rank == rank)
            return a.offsetNs;
    return 0;
}

bool findingReadsBefore(const Finding &a, const Finding &b)
{
    if (a.severity != b.severity)
        return a.severity > b.severity;
    constexpr TimeNs kNever = std::numeric_limits<TimeNs>::max();
    return a.timeNs.value_or(kNever) < b.timeNs.value_or(kNever);
}

std::vector<int> findingOrder(const AnalysisResult &result)
{
    const std::vector<Finding> &f = result.findings;
    std::vector<int> order(f.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = static_cast<int>(i);
    std::stable_sort(order.begin(), order.end(), [&f](int a, int b) {
        return findingReadsBefore(f[static_cast<std::size_t>(a)], f[static_cast<std::size_t>(b)]);
    });
    return order;
}

} // namespace rs
