#pragma once
// A large rise of a rank's allocated memory as the memory lane shows it: shaded from `time` for
// `duration`, labelled with its size, explained in the tooltip. Made from the analysis' spikes by
// AnalysisOverlay::spikeMarks; the screen's chart and the lane's tooltip read the same marks.

#include "types.h"

#include <QString>

#include <cstdint>

namespace rs {

struct SpikeMark {
    TimeNs time = 0;     ///< data time the rise starts (the clock offset is applied like for the curves)
    TimeNs duration = 0; ///< how long the rise took
    QString label;       ///< "+60.98 GiB"
    QString tooltip;     ///< attribution and step (rich text)
    std::int64_t bytes = 0; ///< the rise: the larger gets its label first where labels would overlap
};

} // namespace rs
