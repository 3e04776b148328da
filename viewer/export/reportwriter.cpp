#include "reportwriter.h"

#include "comparefigure.h"
#include "figureexporter.h"
#include "figurerenderer.h"
#include "report/incidentreport.h"
#include "timeformat.h"

#include <QDateTime>
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QTimeZone>

#include <algorithm>

namespace rs {

QString ReportWriter::imagePath(const QString &mdPath, const QString &tag)
{
    const QFileInfo info(mdPath);
    QString base = info.fileName();
    if (base.endsWith(QLatin1String(".md"), Qt::CaseInsensitive))
        base.chop(3);
    return info.dir().filePath(base + QLatin1Char('-') + tag + QStringLiteral(".png"));
}

TimeRange ReportWriter::findingWindow(const Finding &finding, const AnalysisResult &analysis, TimeRange figureRange)
{
    if (!finding.timeNs || figureRange.isEmpty())
        return {};
    // A step and a half before the moment and half a step after show what led up to it; without
    // steps, a twentieth of the figure.
    TimeNs step = 0;
    for (RankId r : finding.ranks)
        if (const RankMetrics *m = analysis.metricsOf(r); m && m->stepTimeMedianNs)
            step = std::max(step, *m->stepTimeMedianNs);
    const TimeNs t = *finding.timeNs;
    const TimeNs end = finding.endNs ? std::max(*finding.endNs, t) : t;
    const TimeNs before = step > 0 ? step + step / 2 : figureRange.duration() / 20;
    const TimeNs after = step > 0 ? step / 2 : figureRange.duration() / 40;
    const TimeRange window{std::max(t - before, figureRange.begin), std::min(end + after, figureRange.end)};
    if (window.duration() < 10 || window.duration() * 2 > figureRange.duration())
        return {};
    return window;
}

bool ReportWriter::write(const QString &mdPath, SessionPtr session, std::shared_ptr<const AnalysisResult> analysis,
                         const FigureOptions &figure, const Options &options, QString *error, QStringList *written)
{
    if (!session) {
        if (error)
            *error = tr("no session to report on");
        return false;
    }
    const AnalysisResult empty;
    const AnalysisResult &result = analysis ? *analysis : empty;
    const FigureExporter exporter(session, analysis);
    QStringList files;
    // Progress by file: the figures, then the text (which hashes every input: the slow part on
    // multi-GB traces). A stop between two files removes what was written.
    const TaskControl &control = options.control;
    const qint64 steps = 2 + (options.compare ? 1 : 0) + (options.findingZoom ? 1 : 0);
    qint64 step = 0;
    const auto stopped = [&] {
        if (!control.stopped())
            return false;
        for (const QString &file : files)
            QFile::remove(file);
        if (error)
            *error = tr("cancelled: %1 was not written").arg(mdPath);
        return true;
    };
    const auto next = [&](const QString &what) { control.report(step++, steps, what); };

    // The figures of the report are fixed: the timeline and the compare figure of the same ranks
    // and window, whichever of them `figure` was made from.
    FigureOptions timelineOptions = figure;
    timelineOptions.view = FigureOptions::View::Timeline;
    IncidentReport::Options ro;
    const FigureRenderer timeline(session, analysis, timelineOptions);
    const QString title = options.title.isEmpty() ? tr("Incident report: %1").arg(timeline.title()) : options.title;
    ro.title = title.toStdString();
    ro.generatedAt = (options.generatedAt.isEmpty()
                          ? QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm 'UTC'"))
                          : options.generatedAt)
                         .toStdString();
    if (!figure.range.isEmpty())
        ro.range = timeline.range();
    // The user's own notes, arrows and ranges go into the report's text too (a finding's annotation
    // is already its finding).
    for (const Annotation &a : figure.annotations) {
        if (a.origin != Annotation::Origin::User)
            continue;
        IncidentReport::Note n;
        n.kind = a.kind == Annotation::Kind::Arrow ? "arrow" : a.kind == Annotation::Kind::Range ? "range" : "note";
        n.rank = a.rank;
        n.endRank = a.endRank;
        n.time = a.time;
        n.endTime = a.endTime;
        n.text = a.text.toStdString();
        ro.notes.push_back(std::move(n));
    }

    const QString timelinePath = imagePath(mdPath, QStringLiteral("timeline"));
    next(tr("Drawing %1…").arg(QFileInfo(timelinePath).fileName()));
    if (!exporter.exportTo(timelinePath, FigureExporter::Format::Png, timelineOptions, error))
        return false;
    files << timelinePath;
    ro.images.push_back({QFileInfo(timelinePath).fileName().toStdString(),
                         tr("Timeline of %1, %2").arg(timeline.ranks().size() == 1 ? tr("1 rank") : tr("%1 ranks").arg(timeline.ranks().size()),
                                                      timeline.rangeText())
                             .toStdString()});

    if (stopped())
        return false;
    if (options.compare) {
        next(tr("Drawing %1…").arg(QFileInfo(imagePath(mdPath, QStringLiteral("compare"))).fileName()));
        FigureOptions compareOptions = figure;
        compareOptions.view = FigureOptions::View::Compare;
        const CompareFigure compare(session, analysis, compareOptions);
        const QString comparePath = imagePath(mdPath, QStringLiteral("compare"));
        if (!exporter.exportTo(comparePath, FigureExporter::Format::Png, compareOptions, error))
            return false;
        files << comparePath;
        const QString against = compare.referenceRank() == kNoRank ? QString()
            : compare.referenceIsMedian()                          ? tr(" against the median rank, rank %1").arg(compare.referenceRank())
                                                                   : tr(" against rank %1").arg(compare.referenceRank());
        ro.images.push_back({QFileInfo(comparePath).fileName().toStdString(),
                             tr("Memory and per-rank metrics of %1%2, %3")
                                 .arg(compare.ranks().size() == 1 ? tr("1 rank") : tr("%1 ranks").arg(compare.ranks().size()), against,
                                      compare.rangeText())
                                 .toStdString()});
    }

    if (stopped())
        return false;
    if (options.findingZoom)
        next(tr("Drawing %1…").arg(QFileInfo(imagePath(mdPath, QStringLiteral("finding"))).fileName()));
    if (options.findingZoom && !result.findings.empty()) {
        // The zoom shows the incident's cause, the event its story hangs on; without a story with a
        // timed cause, the most severe finding.
        const Finding *top = nullptr;
        for (int i : result.summary.chain) {
            const Finding *f = i >= 0 && static_cast<std::size_t>(i) < result.findings.size() ? &result.findings[static_cast<std::size_t>(i)] : nullptr;
            if (f && f->timeNs && result.summary.roleOf(i).role == StoryRole::Cause) {
                top = f;
                break;
            }
        }
        const bool cause = top != nullptr;
        for (const Finding &f : result.findings)
            if (!cause && f.timeNs && (!top || f.severity > top->severity))
                top = &f;
        // Zoomed within the whole session, not the figure's window: a saved session's view may
        // already be narrow, or elsewhere, and the report must still show the cause.
        FigureOptions whole = timelineOptions;
        whole.range = {};
        const TimeRange window = top ? findingWindow(*top, result, FigureRenderer(session, analysis, whole).range()) : TimeRange{};
        if (!window.isEmpty()) {
            FigureOptions zoom = timelineOptions;
            zoom.range = window;
            zoom.title = QString::fromStdString(top->title);
            zoom.highlight = {top->ranks, top->endNs ? TimeRange{*top->timeNs, *top->endNs} : TimeRange{}};
            const QString zoomPath = imagePath(mdPath, QStringLiteral("finding"));
            if (!exporter.exportTo(zoomPath, FigureExporter::Format::Png, zoom, error))
                return false;
            files << zoomPath;
            const FigureRenderer z(session, analysis, zoom);
            ro.images.push_back({QFileInfo(zoomPath).fileName().toStdString(),
                                 (cause ? tr("Around the incident's cause (%1): %2") : tr("Around the most severe finding (%1): %2"))
                                     .arg(QString::fromLatin1(top->id.c_str()), z.rangeText())
                                     .toStdString()});
        }
    }

    if (stopped())
        return false;
    next(tr("Writing %1 (hashing the inputs)…").arg(QFileInfo(mdPath).fileName()));
    const std::string md = IncidentReport::markdown(*session, result, ro);
    if (stopped())
        return false;
    QFile f(mdPath);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(md.data(), static_cast<qint64>(md.size())) != static_cast<qint64>(md.size())) {
        if (error)
            *error = tr("cannot write %1: %2").arg(mdPath, f.errorString());
        return false;
    }
    f.close();
    files.prepend(mdPath);
    control.report(steps, steps);
    if (written)
        *written = files;
    return true;
}

} // namespace rs
