#include "exportcommand.h"

#include "analyzer.h"
#include "annotations/annotation.h"
#include "annotations/annotationstore.h"
#include "cli.h"
#include "export/figureexporter.h"
#include "export/figurerenderer.h"
#include "export/mergedtracewriter.h"
#include "export/reportwriter.h"
#include "sessiondocument.h"
#include "timeline/memorychart.h"

#include <QFileInfo>
#include <QGuiApplication>
#include <QRegularExpression>
#include <QTimeZone>

#include <algorithm>
#include <cmath>
#include <memory>

namespace rs {

namespace {

void printErr(std::FILE *err, const QString &s)
{
    std::fputs(s.toUtf8().constData(), err);
    std::fputc('\n', err);
}

void printOut(std::FILE *out, const QString &s)
{
    std::fputs(s.toUtf8().constData(), out);
    std::fputc('\n', out);
}

// "--name VALUE" or "--name=VALUE": the value, advancing i; nullopt if `a` is not that option.
std::optional<QString> optionValue(const QStringList &args, int &i, const char *name, bool *missing)
{
    const QString &a = args[i];
    const QString n = QLatin1String(name);
    if (a == n) {
        if (i + 1 >= args.size()) {
            *missing = true;
            return QString();
        }
        return args[++i];
    }
    if (a.startsWith(n + QLatin1Char('=')))
        return a.mid(n.size() + 1);
    return std::nullopt;
}

bool isFigureOutput(const QString &path)
{
    return FigureExporter::formatForPath(path).has_value();
}

} // namespace

std::optional<std::vector<RankId>> ExportCommand::parseRanks(const QString &text)
{
    static const QRegularExpression item(QStringLiteral("^\\s*(\\d+)\\s*(?:-\\s*(\\d+)\\s*)?$"));
    std::vector<RankId> ranks;
    if (text.trimmed().isEmpty())
        return std::nullopt;
    for (const QString &part : text.split(QLatin1Char(','))) {
        const QRegularExpressionMatch m = item.match(part);
        if (!m.hasMatch())
            return std::nullopt;
        bool ok1 = false, ok2 = true;
        const int a = m.captured(1).toInt(&ok1);
        const int b = m.captured(2).isEmpty() ? a : m.captured(2).toInt(&ok2);
        // A range of more than 100k ranks is a typo, not a job.
        if (!ok1 || !ok2 || b < a || b - a > 100000)
            return std::nullopt;
        for (int r = a; r <= b; ++r)
            if (std::find(ranks.begin(), ranks.end(), r) == ranks.end())
                ranks.push_back(r);
    }
    return ranks;
}

std::optional<TimeNs> ExportCommand::parseDuration(const QString &text)
{
    // One or more "number unit" parts ("12.5s", "1m10s"), nothing else.
    static const QRegularExpression part(QStringLiteral("\\G\\s*(\\d+(?:\\.\\d*)?|\\.\\d+)\\s*(ns|us|µs|ms|min|s|m|h)"));
    const QString t = text.trimmed();
    double ns = 0;
    qsizetype pos = 0;
    while (pos < t.size()) {
        const QRegularExpressionMatch m = part.match(t, pos);
        if (!m.hasMatch())
            return std::nullopt;
        const QString unit = m.captured(2);
        const double scale = unit == QLatin1String("ns")                                   ? 1.0
                             : unit == QLatin1String("us") || unit == QStringLiteral("µs") ? 1e3
                             : unit == QLatin1String("ms")                                 ? 1e6
                             : unit == QLatin1String("s")                                  ? 1e9
                             : unit == QLatin1String("h")                                  ? 3600e9
                                                                                           : 60e9;
        ns += m.captured(1).toDouble() * scale;
        pos = m.capturedEnd();
    }
    if (pos == 0 || !std::isfinite(ns) || ns > 9.2e18)
        return std::nullopt;
    return static_cast<TimeNs>(std::llround(ns));
}

bool ExportCommand::parseRange(const QString &text, TimeRange full, TimeRange *range, QString *error)
{
    const qsizetype colon = text.indexOf(QLatin1Char(':'));
    if (colon < 0 || text.indexOf(QLatin1Char(':'), colon + 1) >= 0) {
        *error = QStringLiteral("--range expects T0:T1 (either side may be empty), got '%1'").arg(text);
        return false;
    }
    auto side = [&](const QString &s, TimeNs fallback, TimeNs *out) {
        const QString t = s.trimmed();
        if (t.isEmpty()) {
            *out = fallback;
            return true;
        }
        bool ok = false;
        const qlonglong absolute = t.toLongLong(&ok);
        if (ok) {
            *out = absolute;
            return true;
        }
        if (const auto d = parseDuration(t)) {
            *out = full.begin + *d;
            return true;
        }
        *error = QStringLiteral("--range: '%1' is neither aligned nanoseconds nor a duration like 12.5s, 300ms, 40us, 2m").arg(t);
        return false;
    };
    TimeRange r;
    if (!side(text.left(colon), full.begin, &r.begin) || !side(text.mid(colon + 1), full.end, &r.end))
        return false;
    if (r.isEmpty()) {
        *error = QStringLiteral("--range '%1' is empty: its end is not after its start").arg(text);
        return false;
    }
    const TimeRange clipped{std::max(r.begin, full.begin), std::min(r.end, full.end)};
    if (clipped.isEmpty()) {
        *error = QStringLiteral("--range '%1' holds no data: the session spans %2:%3 (aligned ns)")
                     .arg(text)
                     .arg(full.begin)
                     .arg(full.end);
        return false;
    }
    *range = clipped;
    return true;
}

bool ExportCommand::parseRequest(const QStringList &args, Request *req, QString *error)
{
    for (int i = 0; i < args.size(); ++i) {
        bool missing = false;
        const QString &a = args[i];
        if (a == QLatin1String("--")) {
            req->inputArgs << args.mid(i);
            break;
        }
        if (auto v = optionValue(args, i, "--output", &missing)) {
            req->output = *v;
        } else if (auto rp = optionValue(args, i, "--report", &missing)) {
            req->report = *rp;
        } else if (auto rg = optionValue(args, i, "--range", &missing)) {
            req->range = *rg;
        } else if (auto rk = optionValue(args, i, "--ranks", &missing)) {
            req->ranks = *rk;
            if (!missing && !parseRanks(*rk)) {
                *error = QStringLiteral("--ranks expects a list like 0,2,5-7, got '%1'").arg(*rk);
                return false;
            }
        } else if (auto sz = optionValue(args, i, "--size", &missing)) {
            static const QRegularExpression re(QStringLiteral("^(\\d+)(?:[xX×](\\d+))?$"));
            const QRegularExpressionMatch m = re.match(sz->trimmed());
            const int w = m.hasMatch() ? m.captured(1).toInt() : 0;
            const int h = m.hasMatch() && !m.captured(2).isEmpty() ? m.captured(2).toInt() : 0;
            if (!missing && (!m.hasMatch() || w < 320 || w > 20000 || (h != 0 && (h < 100 || h > 20000)))) {
                *error = QStringLiteral("--size expects WIDTHxHEIGHT or WIDTH in logical pixels (width 320-20000, height 100-20000), got '%1'").arg(*sz);
                return false;
            }
            req->width = w;
            req->height = h;
        } else if (auto d = optionValue(args, i, "--dpr", &missing)) {
            bool ok = false;
            req->dpr = d->toDouble(&ok);
            req->dprGiven = true;
            if (!missing && (!ok || req->dpr < 0.5 || req->dpr > 4)) {
                *error = QStringLiteral("--dpr expects a number from 0.5 to 4, got '%1'").arg(*d);
                return false;
            }
        } else if (auto t = optionValue(args, i, "--title", &missing)) {
            req->title = *t;
        } else if (auto dt = optionValue(args, i, "--detail", &missing)) {
            if (*dt == QLatin1String("compact"))
                req->detail = FigureOptions::Detail::Compact;
            else if (*dt == QLatin1String("full"))
                req->detail = FigureOptions::Detail::Full;
            else if (!missing) {
                *error = QStringLiteral("--detail expects compact or full, got '%1'").arg(*dt);
                return false;
            }
        } else if (auto vw = optionValue(args, i, "--view", &missing)) {
            if (*vw == QLatin1String("timeline"))
                req->view = FigureOptions::View::Timeline;
            else if (*vw == QLatin1String("compare"))
                req->view = FigureOptions::View::Compare;
            else if (!missing) {
                *error = QStringLiteral("--view expects timeline or compare, got '%1'").arg(*vw);
                return false;
            }
        } else if (auto rf = optionValue(args, i, "--reference", &missing)) {
            bool ok = false;
            const int rank = rf->trimmed().toInt(&ok);
            if (!missing && (!ok || rank < 0)) {
                *error = QStringLiteral("--reference expects a rank number, got '%1'").arg(*rf);
                return false;
            }
            req->reference = rank;
        } else if (a == QLatin1String("--json")) {
            *error = QStringLiteral("unknown option '--json' (export writes files; --output FILE.json writes the merged trace)");
            return false;
        } else {
            req->inputArgs << a;
            // Shared options with a separate value keep it with them.
            if ((a == QLatin1String("--assign-rank") || a == QLatin1String("--clock-offset") || a == QLatin1String("--time-zone"))
                && i + 1 < args.size())
                req->inputArgs << args[++i];
        }
        if (missing) {
            *error = QStringLiteral("%1 needs a value").arg(a);
            return false;
        }
    }
    if (req->output.isEmpty()) {
        *error = QStringLiteral("--output FILE.{png,svg,pdf,json} is required");
        return false;
    }
    if (!isFigureOutput(req->output) && !MergedTraceWriter::isTracePath(req->output)) {
        *error = QStringLiteral("--output '%1': unknown extension (png, svg, pdf for a figure; json or json.gz for the merged trace)")
                     .arg(req->output);
        return false;
    }
    if (!req->report.isEmpty() && !req->report.endsWith(QLatin1String(".md"), Qt::CaseInsensitive)) {
        *error = QStringLiteral("--report '%1': the report is Markdown, name it FILE.md").arg(req->report);
        return false;
    }
    return true;
}

std::vector<Annotation> ExportCommand::documentAnnotations(const SessionDocument &document, const AnalysisResult &analysis)
{
    // The viewer's own store does the merge, so the command line and the window cannot disagree
    // about which finding annotations a reopened session shows.
    AnnotationStore store;
    store.reset(document.annotations, document.deletedFindingKeys, document.editedFindingKeys);
    store.setFindingAnnotations(annotationsFromFindings(analysis));
    store.setFindingAnnotationsVisible(document.findingAnnotationsVisible);
    return store.visibleAnnotations();
}

bool ExportCommand::figureInputs(const Request &request, const Session &session, const AnalysisResult &analysis,
                                 const std::map<RankId, TimeNs> &offsets, const SessionDocument *document,
                                 FigureOptions *figure, QString *error, QStringList *warnings)
{
    FigureOptions o;
    o.width = request.width;
    o.height = request.height;
    o.devicePixelRatio = request.dpr;
    o.title = request.title;
    o.detail = request.detail;
    o.view = request.view;
    o.clockOffsets = offsets;
    o.annotations = document ? documentAnnotations(*document, analysis) : annotationsFromFindings(analysis);
    if (document && request.ranks.isEmpty()) {
        // As FigureOptions::fromView does: the ranks not hidden in session order, an empty list
        // (every rank) when none is hidden; collapsed ranks among those shown.
        const auto has = [](const std::vector<RankId> &v, RankId r) { return std::find(v.begin(), v.end(), r) != v.end(); };
        bool anyHidden = false;
        for (const Rank &r : session.ranks()) {
            if (has(document->view.hidden, r.id)) {
                anyHidden = true;
                continue;
            }
            o.ranks.push_back(r.id);
            if (has(document->view.collapsed, r.id))
                o.collapsed.push_back(r.id);
        }
        if (!anyHidden)
            o.ranks.clear();
    }
    if (!request.ranks.isEmpty()) {
        const std::optional<std::vector<RankId>> wanted = parseRanks(request.ranks);
        if (!wanted) {
            *error = QStringLiteral("--ranks expects a list like 0,2,5-7, got '%1'").arg(request.ranks);
            return false;
        }
        for (RankId r : *wanted)
            if (session.rank(r))
                o.ranks.push_back(r);
        if (o.ranks.empty()) {
            QStringList have;
            for (const Rank &r : session.ranks())
                have << QString::number(r.id);
            *error = QStringLiteral("--ranks '%1' leaves no rank: the session has %2")
                         .arg(request.ranks, have.isEmpty() ? QStringLiteral("none") : have.join(QLatin1Char(',')));
            return false;
        }
    }
    if (request.reference != kNoRank) {
        if (!session.rank(request.reference)) {
            QStringList have;
            for (const Rank &r : session.ranks())
                have << QString::number(r.id);
            *error = QStringLiteral("--reference %1: the session has no such rank (it has %2)")
                         .arg(request.reference)
                         .arg(have.isEmpty() ? QStringLiteral("none") : have.join(QLatin1Char(',')));
            return false;
        }
        o.referenceRank = request.reference;
    } else if (document && session.rank(document->view.referenceRank)) {
        o.referenceRank = document->view.referenceRank; // the reference the compare view had
    }
    std::map<RankId, TimeNs> all;
    for (const Rank &r : session.ranks())
        all[r.id] = offsets.count(r.id) ? offsets.at(r.id) : analysis.offsetOf(r.id);
    const TimeRange full = FigureRenderer::alignedDataRange(session, &analysis, all);
    if (!request.range.isEmpty()) {
        if (full.isEmpty()) {
            *error = QStringLiteral("--range: the inputs have no time stamps to select from");
            return false;
        }
        if (!parseRange(request.range, full, &o.range, error))
            return false;
    } else if (document && document->view.visible) {
        // The saved window as it was on screen (it may reach past the data, like a zoomed-out
        // view), unless it misses the data altogether: sources changed since, or other offsets.
        const TimeRange saved = *document->view.visible;
        if (!saved.isEmpty() && saved.intersects(full))
            o.range = saved;
        else if (warnings)
            *warnings << QStringLiteral("the session's saved window %1:%2 holds no data; the whole session is drawn")
                             .arg(saved.begin)
                             .arg(saved.end);
    }
    *figure = std::move(o);
    return true;
}

int ExportCommand::run(const QStringList &args, std::FILE *out, std::FILE *err)
{
    Request req;
    QString error;
    if (!parseRequest(args, &req, &error)) {
        printErr(err, QStringLiteral("rankscope export: ") + error);
        std::fputs(Cli::usage().toUtf8().constData(), err);
        return Cli::Usage;
    }
    if (!qobject_cast<QGuiApplication *>(QCoreApplication::instance())) {
        printErr(err, QStringLiteral("rankscope export: drawing needs a QGuiApplication (start it through the rankscope executable)"));
        return Cli::Usage;
    }
    // Figures draw the memory chart through the engine the executable installs (the screen's
    // QCustomPlot chart); without it they would carry a lane that says so, never a wrong chart.
    if ((isFigureOutput(req.output) || !req.report.isEmpty()) && !MemoryChartEngine::installed()) {
        printErr(err, QStringLiteral("rankscope export: figures need the memory chart engine (start it through the rankscope executable)"));
        return Cli::Usage;
    }
    const bool figureOut = isFigureOutput(req.output);
    if (req.dprGiven && FigureExporter::formatForPath(req.output) != FigureExporter::Format::Png)
        printErr(err, QStringLiteral("rankscope export: --dpr applies to PNG only; ignored for %1").arg(req.output));
    if (!figureOut && (!req.range.isEmpty() || !req.ranks.isEmpty()))
        printErr(err, QStringLiteral("rankscope export: the merged trace holds every rank and the whole session; --range and --ranks shape the figures only"));
    if (!figureOut && req.view == FigureOptions::View::Compare)
        printErr(err, QStringLiteral("rankscope export: --view shapes the figure; the merged trace has no view"));
    if (req.reference != kNoRank && req.report.isEmpty() && !(figureOut && req.view == FigureOptions::View::Compare))
        printErr(err, QStringLiteral("rankscope export: --reference applies to the compare figure (--view compare, or the report's FILE-compare.png); ignored"));

    Cli::Inputs inputs;
    if (const int status = Cli::loadInputs("export", req.inputArgs, err, inputs); status != Cli::Ok)
        return status;
    Analyzer::Options aopt;
    aopt.clockOffsets = inputs.clockOffsets;
    auto analysis = std::make_shared<const AnalysisResult>(Analyzer::run(*inputs.session, aopt));

    FigureOptions figure;
    QStringList warnings;
    if (!figureInputs(req, *inputs.session, *analysis, inputs.clockOffsets, inputs.document ? &*inputs.document : nullptr,
                      &figure, &error, &warnings)) {
        printErr(err, QStringLiteral("rankscope export: ") + error);
        return Cli::Usage;
    }
    for (const QString &w : warnings)
        printErr(err, inputs.documentPath + QStringLiteral(": warning: ") + w);
    if (!inputs.timeZone.empty()) {
        const QTimeZone zone(QByteArray::fromStdString(inputs.timeZone));
        if (zone.isValid())
            figure.timeZone = zone;
    }
    if (!figure.ranks.empty() && !req.ranks.isEmpty())
        if (const auto wanted = parseRanks(req.ranks); wanted && wanted->size() > figure.ranks.size())
            printErr(err, QStringLiteral("rankscope export: --ranks '%1': only %2 of those ranks are in the session").arg(req.ranks).arg(figure.ranks.size()));

    if (figureOut) {
        const FigureExporter exporter(inputs.session, analysis);
        if (!exporter.exportTo(req.output, *FigureExporter::formatForPath(req.output), figure, &error)) {
            printErr(err, QStringLiteral("rankscope export: ") + error);
            return Cli::Usage;
        }
    } else if (!MergedTraceWriter::write(req.output, *inputs.session, analysis.get(), inputs.clockOffsets, &error, figure.annotations)) {
        printErr(err, QStringLiteral("rankscope export: ") + error);
        return Cli::Usage;
    }
    printOut(out, req.output);
    if (!req.report.isEmpty()) {
        QStringList written;
        if (!ReportWriter::write(req.report, inputs.session, analysis, figure, {}, &error, &written)) {
            printErr(err, QStringLiteral("rankscope export: ") + error);
            return Cli::Usage;
        }
        for (const QString &f : written)
            printOut(out, f);
    }
    return inputs.sourceErrors ? Cli::SourceErrors : Cli::Ok;
}

} // namespace rs
