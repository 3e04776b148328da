#pragma once
// The export stages, measured on the benchmark trace: drawing the timeline figure of the whole
// session (PNG, compact lanes) and writing the merged Chrome trace. Each probe loads the session
// first and times only its stage; the report compares the stage with the import of the same file
// in the same run (export must stay a fraction of what reading the trace costs).
// Built only with the viewer (RANKSCOPE_BUILD_VIEWER), which the figure code lives in.

#include "childprocess.h"

#include <string>
#include <string_view>

namespace rs::bench {

class ExportProbes
{
public:
    static constexpr std::string_view kFigure = "export-figure";
    static constexpr std::string_view kMergedTrace = "export-merged-trace";

    /// Renders the figure of the whole session to a temporary PNG. values: {png bytes, width, height}
    static ProbeOutcome figure(const std::string &path);
    /// Writes the merged Chrome trace to a temporary .json. values: {bytes written}
    static ProbeOutcome mergedTrace(const std::string &path);
};

} // namespace rs::bench
