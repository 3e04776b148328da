#pragma once
// Tooltip texts and hit-tests that several lane kinds share: a span (spans and step lanes), an
// instant or the profiler's OOM instant, a CUDA OOM, a log record (log and launcher lanes).

#include "timeline/lanekind.h"

#include <QCoreApplication>

namespace rs {

class LaneTooltips
{
    Q_DECLARE_TR_FUNCTIONS(RankGroupWidget)

public:
    static QString span(const LaneFrame &f, const EventRef &hit);
    /// An instant, or the CUDA OOM it records, with its time.
    static QString instant(const LaneFrame &f, const EventRef &hit);
    /// "CUDA out of memory", what it asked for and how it was placed (an OOM or an OOM instant).
    static QString oom(const LaneFrame &f, const EventRef &hit);
    static QString logRecord(const LaneFrame &f, std::uint32_t index);
    /// Whether `hit` is an out-of-memory event (a CUDA OOM or a profiler [OutOfMemory] instant).
    static bool isOom(const Session &s, const EventRef &hit);
    /// The OOM moment of the rank within 4 px of `x`, or none.
    static EventRef oomAt(const LaneFrame &f, int x);
};

} // namespace rs
