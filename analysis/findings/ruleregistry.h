#pragma once
// The catalog of finding rules, in the order DESIGN.md §4 lists them.

#include "findingrule.h"

#include <memory>
#include <vector>

namespace rs {

class RuleRegistry
{
public:
    static const RuleRegistry &instance();
    const std::vector<std::unique_ptr<FindingRule>> &rules() const { return m_rules; }
    /// The rule with `id`, or nullptr.
    const FindingRule *rule(std::string_view id) const;
    /// Runs every rule and orders the findings by severity (high first), then time.
    std::vector<Finding> evaluate(const RuleContext &ctx) const;

private:
    std::vector<std::unique_ptr<FindingRule>> m_rules;
};

} // namespace rs
