#pragma once
// What every rank group of one timeline shares: the session, the view state, the colours, the
// ruler's ticks and the scratch buffers of painting. Owned by TimelineView; groups only borrow it.
// Everything here is used on the UI thread only.

#include "analysisresult.h"
#include "evidenceindex.h"
#include "groupstack.h"
#include "palette.h"
#include "lod.h"
#include "plausibleextent.h"
#include "rulerticks.h"
#include "session.h"
#include "spanpalette.h"

#include <QPolygonF>
#include <QString>

#include <memory>
#include <vector>

namespace rs {

class ViewState;

struct TimelineContext {
    SessionPtr session;               ///< the frozen session shown (may be null)
    ViewState *state = nullptr;       ///< shared view state
    SpanPalette palette;              ///< span colours, memoised per name
    const RulerTicks *ticks = nullptr; ///< the ruler's ticks, for the grid
    int gutterWidth = 232;            ///< pixels left of the time axis (lane names)
    double memoryMax = 0;             ///< largest plausible device memory value of any rank: one shared scale
    PlausibleExtent extent;           ///< time axis and memory scale from plausible data (PlausibleExtent)
    std::vector<double> counterMax;   ///< per track: largest counter value (0 for non-counters)
    EvidenceIndex evidence;           ///< timed log records and OOMs per rank, by time
    std::shared_ptr<const AnalysisResult> analysis; ///< spikes and divergence of the session (may be null)
    GroupStack groups;                ///< the on-screen timeline's rank groups, laid out and stacked (empty in figures)
    const Palette *colors = &Palette::paper(); ///< colours by role: paper in figures, the screen's set on screen

    // Scratch buffers reused by every paint, so panning does not allocate.
    std::vector<SpanDrawItem> spanItems;
    std::vector<CounterColumn> columns;
    QPolygonF polygon;

    /// t = 0 of the ruler.
    TimeNs origin() const;
    /// The name of a string id as a QString, converted once per session.
    const QString &text(StringId id);
    /// Resets the per-session caches for `s`.
    void setSession(SessionPtr s);
    /// What the timeline can show: the plausible extent of the session's data (tracks, timed log
    /// records and OOMs), with OOMs placed by anchors.
    TimeRange dataRange() const;
    /// Takes the analysis' extent (aligned ranks, capacities) in place of the unaligned one.
    void setExtent(PlausibleExtent e);

private:
    std::vector<QString> m_text;
    std::vector<bool> m_textReady;
};

} // namespace rs
