#pragma once
// `rankscope export` (DESIGN.md §3): reads the inputs like analyze, runs the analysis so findings
// become annotations and clock offsets apply, and writes the figure (PNG, SVG, PDF), the merged
// Chrome trace (--output FILE.json[.gz], an extension of the contract) and the incident report
// (--report FILE.md with its images beside it). `--view compare` draws the compare figure instead
// of the timeline, `--reference RANK` its reference rank (both extensions of the contract). Runs without a display: main() starts a
// QGuiApplication on the offscreen platform when there is none.

#include "export/figureoptions.h"

#include <QString>
#include <QStringList>

#include <cstdio>
#include <map>
#include <optional>
#include <vector>

namespace rs {

struct SessionDocument;

class ExportCommand
{
public:
    /// The export options of the command line, before any input is read.
    struct Request {
        QString output;          ///< --output: .png, .svg, .pdf, .json or .json.gz
        QString report;          ///< --report FILE.md, or empty
        QString range;           ///< --range T0:T1 as given, or empty (the whole session)
        QString ranks;           ///< --ranks LIST as given, or empty (every rank)
        int width = 1600;        ///< --size W[xH]: logical pixels
        int height = 0;          ///< 0: as tall as the content
        double dpr = 1.0;        ///< --dpr (PNG only)
        bool dprGiven = false;   ///< --dpr was on the command line
        QString title;           ///< --title, or empty for the default
        FigureOptions::Detail detail = FigureOptions::Detail::Compact; ///< --detail
        FigureOptions::View view = FigureOptions::View::Timeline;      ///< --view timeline|compare
        RankId reference = kNoRank; ///< --reference RANK: the compare figure's reference; kNoRank: the median rank
        QStringList inputArgs;   ///< everything else: the shared options and the paths, for Cli::loadInputs
    };

    /// Runs the subcommand (args without "export"); exit status as in Cli::Exit.
    static int run(const QStringList &args, std::FILE *out, std::FILE *err);

    /// Splits `args` into the export options and the rest; false with `error` on a malformed option.
    static bool parseRequest(const QStringList &args, Request *request, QString *error);
    /// "0,2,5-7" → {0, 2, 5, 6, 7} (order kept, duplicates dropped); nullopt when malformed.
    static std::optional<std::vector<RankId>> parseRanks(const QString &text);
    /// "12.5s", "300ms", "40us", "2m", "1500ns" → ns; nullopt when not a duration with a unit.
    static std::optional<TimeNs> parseDuration(const QString &text);
    /// "T0:T1" on the aligned axis of a session spanning `full`: each side an integer (aligned
    /// wall-clock ns) or a duration relative to full.begin; an empty side is that end of `full`.
    /// The result is clipped to `full`; false with `error` when malformed or empty.
    static bool parseRange(const QString &text, TimeRange full, TimeRange *range, QString *error);

    /// The figure a request asks for, from the loaded session and its analysis: view, reference
    /// rank, ranks, range, size, title, detail and the findings as annotations. The one place where command-line
    /// inputs become figure inputs. With a saved session `document` (may be null), its annotations
    /// are drawn (documentAnnotations) and its view gives the defaults: the visible window when
    /// there is no --range, its hidden ranks left out and collapsed ranks folded when there is no
    /// --ranks, and its compare reference when there is no --reference. False with `error` when
    /// the request selects nothing (no rank left, empty range) or names a reference rank the
    /// session does not have;
    /// `warnings` (may be null) receives what was set aside (a saved window that holds no data).
    static bool figureInputs(const Request &request, const Session &session, const AnalysisResult &analysis,
                             const std::map<RankId, TimeNs> &offsets, const SessionDocument *document,
                             FigureOptions *figure, QString *error, QStringList *warnings = nullptr);

    /// The annotations a saved session shows with `analysis`, merged as the viewer merges them on
    /// reopening: every user annotation; finding annotations the person edited as saved, deleted
    /// ones not brought back, the rest made afresh from `analysis`; no finding annotations at all
    /// when the document hides them.
    static std::vector<Annotation> documentAnnotations(const SessionDocument &document, const AnalysisResult &analysis);
};

} // namespace rs
