#pragma once
// The ranks overview: one thin row per rank on the timeline's time axis, coloured by a metric, so a
// thousand ranks fit one screen and the odd rank stands out (the one whose memory fills its GPU,
// the one that idles while the others compute, the one whose log turns red). With more ranks than
// pixel rows, each row shows the worst of the ranks it stands for. Paints with QPainter alone: the
// viewer's overview widget, and a figure or a benchmark, draw through it.

#include "timescale.h"
#include "types.h"

#include <QColor>
#include <QCoreApplication>
#include <QRect>
#include <QString>

#include <functional>
#include <vector>

class QPainter;

namespace rs {

struct TimelineContext;

class RanksOverviewPainter
{
    Q_DECLARE_TR_FUNCTIONS(RanksOverviewPainter)

public:
    enum class Metric {
        MemoryShare, ///< allocated memory as a share of the rank's GPU (or of the largest rank's peak)
        Busy,        ///< GPU streams (else CPU threads) busy: level 0 of every stream, folded
        LogProblems, ///< warnings, errors and OOMs of the rank's log, where they happened
    };
    static QString metricName(Metric m);

    /// What one frame shows.
    struct Frame {
        TimelineContext *ctx = nullptr;
        std::vector<RankId> ranks;                   ///< top to bottom
        std::function<TimeNs(RankId)> offsetOf;      ///< the rank's clock offset (view = data + offset)
        TimeScale view;                              ///< view time → x in the painter's coordinates
        QRect area;                                  ///< the rows' rectangle (data side, right of any labels)
        Metric metric = Metric::MemoryShare;
        RankId selected = kNoRank;                   ///< outlined
    };

    /// Paints every row into `f.area`.
    static void paint(QPainter &p, const Frame &f);
    /// The rank of the row at `y`, or kNoRank (the first of the ranks a row stands for).
    static RankId rankAt(const Frame &f, int y);
    /// The value of `metric` for `rank` at view time `t` (0..1; -1: nothing known), for tooltips.
    static double valueAt(const Frame &f, RankId rank, TimeNs t);
    /// The colour of a value 0..1 on the overview's ramp (grey → amber → red).
    static QColor ramp(double v);
    /// The row span of `rank`: [top, bottom) in f.area's coordinates; empty when not shown.
    static std::pair<int, int> rowOf(const Frame &f, RankId rank);
};

} // namespace rs
