#include "analyzer.h"

#include "anchorplacement.h"
#include "clockalignment.h"
#include "findings/ruleregistry.h"
#include "incidentstory.h"
#include "memoryspikes.h"
#include "plausibleextent.h"
#include "rankdivergence.h"
#include "rankmetrics.h"

namespace rs {

AnalysisResult Analyzer::run(const Session &session, const Options &options)
{
    AnalysisResult r;
    r.alignment = ClockAlignment::align(session, options.clockOffsets);
    r.placements = AnchorPlacement::place(session, r.alignment);
    r.metrics = RankMetricsBuilder::build(session, r.alignment);
    r.spikes = MemorySpikes::find(session, r.alignment);
    r.divergent = RankDivergence::find(r.metrics);
    RuleContext ctx{session, r.alignment, r.metrics, r.spikes, r.divergent};
    ctx.ooms = collectOoms(ctx);
    r.findings = RuleRegistry::instance().evaluate(ctx);
    r.summary = IncidentStory::build(r, &session);
    r.extent = PlausibleExtent::find(session, &r);
    return r;
}

} // namespace rs
