#pragma once
// Writes the merged, aligned Chrome trace of every rank (one process per rank, clock offsets
// applied) for colleagues who live in Perfetto or chrome://tracing. ".json" is plain JSON,
// ".json.gz" is the same gzip-compressed (Perfetto opens both); streamed, never held whole.

#include "taskcontrol.h"
#include "annotations/annotation.h"
#include "analysisresult.h"
#include "session.h"

#include <QCoreApplication>
#include <QString>

#include <map>

namespace rs {

class MergedTraceWriter
{
    Q_DECLARE_TR_FUNCTIONS(MergedTraceWriter)

public:
    /// True for paths ending in ".json" or ".json.gz" (any case).
    static bool isTracePath(const QString &path);
    /// Writes `session` to `path` on the aligned axis: each rank shifted by `offsets[rank]` when
    /// given, else by the analysis' offset (`analysis` may be null: no shift). gzip-compressed when
    /// the path ends in ".gz". False with `error` set (may be null) when the file cannot be written.
    /// The findings of `analysis`, the user's `annotations` (a finding's own annotation is its
    /// finding) and the log records go on a "RankScope" process and each rank's Log thread.
    /// `control` (may be null) hears how much was written; when it is stopped the file is removed
    /// and write() fails with "cancelled".
    static bool write(const QString &path, const Session &session, const AnalysisResult *analysis,
                      const std::map<RankId, TimeNs> &offsets = {}, QString *error = nullptr,
                      const std::vector<Annotation> &annotations = {}, const TaskControl *control = nullptr);
};

} // namespace rs
