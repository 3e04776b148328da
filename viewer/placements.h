#pragma once
// Look-ups of the analysis' placements (analysis/anchorplacement.h) for the viewer: an OOM message
// or memory_summary table printed without a time stamp is drawn and listed at the time of the timed
// OOM it is the same event as, and always says so ("placed by anchor: …").

#include "analysisresult.h"
#include "session.h"

#include <QString>

#include <cstdint>

namespace rs {

/// The placement of Session::ooms()[index] (kind Oom) or Session::memorySummaries()[index]
/// (kind MemorySummary) in `analysis`, or nullptr (also when `analysis` is null).
const Placement *findPlacement(const AnalysisResult *analysis, Placement::Kind kind, std::size_t index);

/// The OOM placement of log record `record` when it is untimed and is the line an untimed, placed
/// OOM message was read from (same source and line); nullptr otherwise.
const Placement *findLogPlacement(const Session &session, const AnalysisResult *analysis, std::uint32_t record);

/// The placement's time in its rank's data clock (the analysis' clock offset of the rank taken
/// off), so it can be shifted by the view's offsets like any timed record.
TimeNs placedDataTime(const AnalysisResult &analysis, const Placement &placement);

/// "placed by anchor: <anchor>".
QString placedByText(const Placement &placement);

} // namespace rs
