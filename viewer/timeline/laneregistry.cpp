#include "laneregistry.h"

#include "lanes/builtinlanes.h"

#include <algorithm>

namespace rs {

LaneRegistry::LaneRegistry()
{
    // One line per built-in kind; the order is the stacking order of a group's rank-level lanes
    // (track lanes follow, per track, in this order too).
    add(makeHeaderLane());
    add(makeFindingsLane());
    add(makeSummaryLane());
    add(makeMemoryLane());
    add(makeStepsLane());
    add(makeLogLane());
    add(makeLauncherLane());
    add(makeSpansLane());
    add(makeInstantsLane());
    add(makeCounterLane());
}

LaneRegistry &LaneRegistry::instance()
{
    static LaneRegistry registry;
    return registry;
}

std::vector<const LaneKind *> LaneRegistry::kinds() const
{
    std::vector<const LaneKind *> out;
    out.reserve(m_kinds.size());
    for (const auto &k : m_kinds)
        out.push_back(k.get());
    return out;
}

const LaneKind *LaneRegistry::find(std::string_view id) const
{
    for (const auto &k : m_kinds)
        if (k->id() == id)
            return k.get();
    return nullptr;
}

const LaneKind *LaneRegistry::add(std::unique_ptr<LaneKind> kind, std::string_view after)
{
    const LaneKind *added = kind.get();
    remove(kind->id());
    auto at = std::find_if(m_kinds.begin(), m_kinds.end(), [&](const auto &k) { return k->id() == after; });
    if (at != m_kinds.end())
        m_kinds.insert(at + 1, std::move(kind));
    else
        m_kinds.push_back(std::move(kind));
    return added;
}

bool LaneRegistry::remove(std::string_view id)
{
    const auto it = std::find_if(m_kinds.begin(), m_kinds.end(), [&](const auto &k) { return k->id() == id; });
    if (it == m_kinds.end())
        return false;
    m_retired.push_back(std::move(*it));
    m_kinds.erase(it);
    return true;
}

} // namespace rs
