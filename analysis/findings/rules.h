#pragma once
// Factories of the built-in rules, one per file (the file is named after the finding id).

#include "findingrule.h"

#include <memory>

namespace rs::rules {

std::unique_ptr<FindingRule> oom();
std::unique_ptr<FindingRule> unevenBatch();
std::unique_ptr<FindingRule> activationMemory();
std::unique_ptr<FindingRule> ddpUnusedParameters();
std::unique_ptr<FindingRule> allocatorFragmentation();
std::unique_ptr<FindingRule> ncclBufferMemory();
std::unique_ptr<FindingRule> initFullParams();
std::unique_ptr<FindingRule> nonPytorchMemory();
std::unique_ptr<FindingRule> memoryGrowth();
std::unique_ptr<FindingRule> straggler();
std::unique_ptr<FindingRule> collectiveDesync();
std::unique_ptr<FindingRule> ncclError();
std::unique_ptr<FindingRule> driverMismatch();
std::unique_ptr<FindingRule> rankFailure();

} // namespace rs::rules
