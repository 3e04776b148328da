#pragma once
// The legend of the exported timeline figure (FigureRenderer), between the rank groups and the
// findings block: a swatch for each thing the figure actually draws and for nothing else (memory
// curves and lines, CUDA OOMs, the span families present, log marks, finding callouts, user
// annotations), wrapped into rows across the given width. What is drawn is collected once from the
// rank groups and the annotations; measuring and painting then run the same layout code, so the
// height measured for the figure's layout is exactly the height painted.

#include "figureoptions.h"
#include "timeline/lanelayout.h"
#include "timeline/spanpalette.h"

#include <QCoreApplication>
#include <QFont>
#include <QRect>

#include <set>
#include <vector>

class QPainter;

namespace rs {

class FigureFindings;

class FigureLegend
{
    // FigureRenderer's context: the legend's texts were translated there before it had a class.
    Q_DECLARE_TR_FUNCTIONS(FigureRenderer)

public:
    /// Notes what one rank group draws: its memory curves and capacity line (from `layout`), the
    /// GPU streams, span families and log lane among `lanes` (the lanes kept on the figure), and
    /// whether the rank has an OOM. Call once per group, in the figure's rank order.
    void addGroup(const Session &session, RankId rank, const LaneLayout &layout, const std::vector<Lane> &lanes, bool hasOom);
    /// Whether allocation spikes are highlighted on the memory lanes.
    void setSpikes(bool spikes) { m_spikes = spikes; }
    /// Notes the kinds of user annotations drawn and the severities of finding annotations drawn as
    /// callouts (those `findings` does not number; numbered markers are explained by the list).
    void addAnnotations(const std::vector<Annotation> &annotations, const AnalysisResult *analysis,
                        const FigureFindings &findings);

    /// The height the legend needs in `width` logical pixels with `font` as the figure's base font.
    int height(int width, const QFont &font) const;
    /// Lays the legend out from r.topLeft() within r.width() and, when `draw`, paints it; returns the
    /// height used.
    int paint(QPainter &p, const QRect &r, const QFont &font, bool draw) const;

private:
    std::vector<RankId> m_ranks;                // the groups, top to bottom (the allocated swatch shows up to three colours)
    bool m_memoryLane = false;                  // some group has a memory lane
    bool m_used = false;                        // an nvidia-smi "used" curve (dashed)
    bool m_reserved = false;                    // a reserved curve (line)
    bool m_snapshot = false;                    // an allocator snapshot curve (dotted)
    bool m_capacity = false;                    // a GPU capacity line
    bool m_spikes = false;                      // allocation spikes highlighted
    bool m_oom = false;                         // some rank has an OOM
    bool m_gpu = false;                         // some span lane is a GPU stream
    bool m_logs = false;                        // some group has a log lane
    bool m_launcher = false;                    // some group has a launcher lane
    std::set<SpanPalette::Family> m_families;   // span families seen on the lanes drawn
    std::set<Severity> m_severities;            // of finding annotations drawn as callouts
    bool m_note = false, m_range = false, m_arrow = false; // user annotation kinds drawn
};

} // namespace rs
