#pragma once
// An owning copy of a JsonEvent, so the Kineto tokenizer tests can compare events after the
// tokenizer moved on (its views point into a buffer it reuses).

#include "kineto/jsoneventparser.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rs::test {

struct OwnedEvent {
    std::string ph, cat, name, pid, tid, ts, dur, args;
    std::vector<std::pair<std::string, std::string>> argList;
    std::int64_t offset = 0;
    bool operator==(const OwnedEvent &) const = default;
};

/// Copies `ev`; `argText` turns each argList value into the text the test compares.
template <typename ArgText>
OwnedEvent ownedCopy(const JsonEvent &ev, ArgText argText)
{
    OwnedEvent e{std::string(ev.ph.text), std::string(ev.cat.text), std::string(ev.name.text), std::string(ev.pid.text),
                 std::string(ev.tid.text), std::string(ev.ts.text), std::string(ev.dur.text), std::string(ev.args), {},
                 ev.offset};
    for (const auto &[k, v] : ev.argList)
        e.argList.emplace_back(std::string(k), argText(v));
    return e;
}

} // namespace rs::test
