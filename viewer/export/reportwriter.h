#pragma once
// Writes the incident report of a session: FILE.md (IncidentReport: findings, per-rank metrics,
// clock alignment, spikes, inputs with sizes and SHA-256) with its images beside it, linked by
// relative paths so the folder can be zipped into a ticket: FILE-timeline.png (the timeline
// figure), FILE-compare.png (every rank against the reference rank: small multiples and the
// per-rank metrics) and, when the most severe timed finding would be a sliver of the timeline,
// FILE-finding.png zoomed on it.

#include "figureoptions.h"
#include "taskcontrol.h"

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <memory>

namespace rs {

class ReportWriter
{
    Q_DECLARE_TR_FUNCTIONS(ReportWriter)

public:
    struct Options {
        QString title;         ///< report headline; empty: "Incident report: <figure title>"
        QString generatedAt;   ///< shown as given; empty: the current time in UTC
        bool findingZoom = true; ///< add FILE-finding.png around the most severe timed finding
        bool compare = true;     ///< add FILE-compare.png, the compare figure of the same ranks and window
        TaskControl control;     ///< progress per file; when stopped, nothing is left behind and write() fails
    };

    /// Writes `mdPath` and its images; `figure` gives the ranks, window, annotations and size of
    /// both the timeline and the compare figure (its view is ignored, its reference rank is the
    /// compare figure's). `written` (may be null)
    /// receives every file written, the report first. False with `error` set when a file cannot
    /// be written (files written before stay).
    static bool write(const QString &mdPath, SessionPtr session, std::shared_ptr<const AnalysisResult> analysis,
                      const FigureOptions &figure, const Options &options, QString *error = nullptr,
                      QStringList *written = nullptr);
    /// The path of an image beside `mdPath`: "dir/incident.md" + "timeline" → "dir/incident-timeline.png".
    static QString imagePath(const QString &mdPath, const QString &tag);
    /// The aligned window FILE-finding.png shows for `finding` within `figureRange`, or an empty
    /// range when the finding has no time or would fill most of the figure anyway.
    static TimeRange findingWindow(const Finding &finding, const AnalysisResult &analysis, TimeRange figureRange);
};

} // namespace rs
