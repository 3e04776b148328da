#pragma once
// The lane kinds a rank group is built from, in the order their lanes stack: the built-in ones
// (lanes/builtinlanes.h), registered once, plus any a caller adds. Rank-level lanes come in this
// order (header, findings, summary, memory, steps, log, launcher), then, per track of the rank,
// each kind's track lanes (spans, instants, counter). Used on the UI thread and by headless export;
// registration happens before the first layout.

#include "lanekind.h"

#include <memory>
#include <string_view>
#include <vector>

namespace rs {

class LaneRegistry
{
public:
    /// The process-wide registry, with the built-in kinds.
    static LaneRegistry &instance();

    /// The kinds in stacking order.
    std::vector<const LaneKind *> kinds() const;
    /// The kind with id `id`, or nullptr.
    const LaneKind *find(std::string_view id) const;
    /// Adds `kind` after the kind with id `after` (at the end when there is none such); replaces a
    /// kind of the same id. Returns the kind added.
    const LaneKind *add(std::unique_ptr<LaneKind> kind, std::string_view after = {});
    /// Removes the kind with id `id` (tests that registered one); false when there was none.
    bool remove(std::string_view id);

private:
    LaneRegistry();
    std::vector<std::unique_ptr<LaneKind>> m_kinds;
    std::vector<std::unique_ptr<LaneKind>> m_retired; // removed kinds: lanes laid out earlier may point at them
};

} // namespace rs
