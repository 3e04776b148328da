#pragma once
// One entry of the finding catalog (DESIGN.md §4). A rule looks at the session and the analysis
// computed before findings (alignment, metrics, spikes, divergence) and adds findings only on
// evidence; it never invents a time or a rank. Rules are registered in RuleRegistry; adding one is
// a new file with a class like these and one line there.

#include "rulecontext.h"

#include <string_view>

namespace rs {

class FindingRule
{
public:
    virtual ~FindingRule() = default;
    /// Stable catalog id ("oom", "uneven-batch", ...): never renamed.
    virtual std::string_view id() const = 0;
    /// Appends the findings this rule sees in `ctx`.
    virtual void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const = 0;
};

} // namespace rs
