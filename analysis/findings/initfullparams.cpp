// init-full-params: the OOM came before training did — while weights were loaded, moved to the
// GPU, broadcast or wrapped (DDP/FSDP construction), when every rank briefly holds the full model.
//
// Two kinds of evidence. The traceback printed with the OOM names the init code (DDP's
// _sync_module_states, FSDP's __init__, load_state_dict / from_pretrained, Module._apply behind
// .to()/.cuda()). Or the OOM precedes the rank's first ProfilerStep, and that step is the first of
// the job (#0 or #1): profilers usually start later (a schedule's wait and warm-up steps), and an
// OOM before a later first step says nothing about initialisation.

#include "rules.h"

#include <algorithm>
#include <array>

namespace rs::rules {

namespace {

constexpr std::int64_t kTracebackLines = 80; // how far above the OOM message a traceback may start

struct Marker {
    const char *text;
    const char *what;
};
constexpr std::array<Marker, 8> kMarkers{{
    {"_sync_module_states", "DDP/FSDP broadcasting the initial weights"},
    {"_sync_params_and_buffers", "DDP broadcasting the initial weights"},
    {"_broadcast_coalesced", "broadcasting the initial weights"},
    {"fully_sharded_data_parallel.py\", line", "FSDP wrapping the model"},
    {"load_state_dict", "loading a checkpoint"},
    {"from_pretrained", "loading pretrained weights"},
    {"in _apply", "moving the model to the GPU (.to() / .cuda())"},
    {"_move_states_to_device", "moving the model to the GPU"},
}};

// A line of the traceback that ends in `o` (same source and rank, from the nearest "Traceback" line
// above it) that names init code.
const LogRecord *initFrame(const RuleContext &ctx, const OomEvent &o, const char **what)
{
    if (o.line <= 0)
        return nullptr;
    auto near = [&](const LogRecord &r) {
        return r.source == o.source && r.rank == o.rank && r.line <= o.line && r.line >= o.line - kTracebackLines;
    };
    std::int64_t start = -1;
    for (const LogRecord &r : ctx.session.logs().records)
        if (near(r) && ctx.session.logs().text(r).find("Traceback (most recent call last)") != std::string::npos)
            start = std::max(start, r.line);
    if (start < 0)
        return nullptr;
    for (const LogRecord &r : ctx.session.logs().records) {
        if (!near(r) || r.line < start)
            continue;
        for (const Marker &m : kMarkers)
            if (ctx.session.logs().text(r).find(m.text) != std::string::npos) {
                *what = m.what;
                return &r;
            }
    }
    return nullptr;
}

class InitFullParamsRule final : public FindingRule
{
public:
    std::string_view id() const override { return "init-full-params"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        for (const OomInfo &o : ctx.ooms) {
            Finding f;
            const char *what = nullptr;
            const LogRecord *frame = o.event ? initFrame(ctx, *o.event, &what) : nullptr;
            const Rank *r = ctx.session.rank(o.rank);
            const bool beforeFirstStep = r && !r->steps.empty() && o.rankTime != kNoTime
                && o.rankTime < r->steps.front().range.begin && r->steps.front().number <= 1;
            if (!frame && !beforeFirstStep)
                continue;
            f.ranks = {o.rank};
            f.severity = Severity::High;
            if (o.alignedTime != kNoTime)
                f.timeNs = o.alignedTime;
            f.title = "Rank " + std::to_string(o.rank) + " ran out of memory "
                + (frame ? std::string("during initialisation: ") + what : std::string("before its first step (during initialisation)"));
            f.evidence = o.evidence;
            if (frame)
                f.evidence.push_back(ctx.evidence(*frame));
            if (beforeFirstStep)
                f.evidence.push_back(ctx.derived(o.rank, "the first ProfilerStep (#" + std::to_string(r->steps.front().number)
                                                             + ") starts " + formatDuration(r->steps.front().range.begin - o.rankTime)
                                                             + " after the OOM",
                                                 ctx.aligned(o.rank, r->steps.front().range.begin)));
            f.fix = "Do not materialise the full model on every GPU: create it on the meta device or load the checkpoint "
                    "on rank 0 only with FSDP(sync_module_states=True), shard it (ShardingStrategy.FULL_SHARD / "
                    "fsdp_config), or use CPU offload (cpu_offload=CPUOffload(offload_params=True)) while wrapping.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> initFullParams()
{
    return std::make_unique<InitFullParamsRule>();
}

} // namespace rs::rules
