#include "ruleregistry.h"

#include "rules.h"

#include <algorithm>

namespace rs {

const RuleRegistry &RuleRegistry::instance()
{
    static const RuleRegistry registry = [] {
        RuleRegistry r;
        r.m_rules.push_back(rules::oom());
        r.m_rules.push_back(rules::unevenBatch());
        r.m_rules.push_back(rules::activationMemory());
        r.m_rules.push_back(rules::ddpUnusedParameters());
        r.m_rules.push_back(rules::allocatorFragmentation());
        r.m_rules.push_back(rules::ncclBufferMemory());
        r.m_rules.push_back(rules::initFullParams());
        r.m_rules.push_back(rules::nonPytorchMemory());
        r.m_rules.push_back(rules::memoryGrowth());
        r.m_rules.push_back(rules::straggler());
        r.m_rules.push_back(rules::collectiveDesync());
        r.m_rules.push_back(rules::ncclError());
        r.m_rules.push_back(rules::driverMismatch());
        r.m_rules.push_back(rules::rankFailure());
        return r;
    }();
    return registry;
}

const FindingRule *RuleRegistry::rule(std::string_view id) const
{
    for (const auto &r : m_rules)
        if (r->id() == id)
            return r.get();
    return nullptr;
}

std::vector<Finding> RuleRegistry::evaluate(const RuleContext &ctx) const
{
    std::vector<Finding> out;
    for (const auto &r : m_rules) {
        std::vector<Finding> found;
        r->evaluate(ctx, found);
        for (Finding &f : found)
            f.id = std::string(r->id());
        out.insert(out.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
    }
    std::stable_sort(out.begin(), out.end(), findingReadsBefore);
    return out;
}

} // namespace rs
