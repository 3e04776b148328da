#include "analysisresult.h"

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

} // namespace rs
