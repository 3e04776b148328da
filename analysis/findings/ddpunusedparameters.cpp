// ddp-unused-parameters: DDP's own messages about unused parameters. The error ("Expected to have
// finished reduction in the prior iteration ...") stops training; the warning that
// find_unused_parameters=True found none means every step pays an extra graph traversal.

#include "rules.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace rs::rules {

namespace {

bool mentionsUnusedParameters(std::string_view text)
{
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find("unused parameter") != std::string::npos;
}

class DdpUnusedParametersRule final : public FindingRule
{
public:
    std::string_view id() const override { return "ddp-unused-parameters"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        // One finding per kind of message, across ranks.
        std::map<int, Finding> byKind;
        for (const LogRecord &r : ctx.session.logs().records) {
            if (!(r.flags & LogFlagUnusedParameters))
                continue;
            const std::string_view text = ctx.session.logs().text(r);
            const bool error = text.find("Expected to have finished reduction") != std::string::npos
                || text.find("did not receive grad") != std::string::npos;
            const bool wasted = text.find("did not find any unused parameters") != std::string::npos;
            // The option's name alone is no evidence: HF Trainer prints its arguments at start
            // ("ddp_find_unused_parameters=None,"), and scripts echo their configs.
            if (!error && !wasted && !mentionsUnusedParameters(text))
                continue;
            const int kind = error ? 0 : wasted ? 1 : 2;
            Finding &f = byKind[kind];
            if (f.evidence.empty()) {
                f.severity = error ? Severity::High : wasted ? Severity::Medium : Severity::Low;
                f.title = error ? "DDP stopped: some parameters got no gradient (unused parameters)"
                    : wasted ? "find_unused_parameters=True but DDP found no unused parameters (wasted traversal every step)"
                             : "DDP reports unused parameters";
                f.fix = error ? "Make every parameter take part in the loss, or construct DistributedDataParallel(..., "
                                "find_unused_parameters=True) / static_graph=True when some parameters are legitimately unused."
                              : "Set ddp_find_unused_parameters=False (HF TrainingArguments) or "
                                "DistributedDataParallel(..., find_unused_parameters=False); it is only needed when a "
                                "parameter really gets no gradient.";
            }
            ctx.gather(f, r);
        }
        for (auto &[kind, f] : byKind) {
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> ddpUnusedParameters()
{
    return std::make_unique<DdpUnusedParametersRule>();
}

} // namespace rs::rules
