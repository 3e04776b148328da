#include "cli.h"

#include "analyzer.h"
#include "exportcommand.h"
#include "summarizecommand.h"
#include "summarizer.h"
#include "versioninfo.h"
#include "sessionloader.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QDir>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace rs {

namespace {

void printErr(std::FILE *err, const std::string &s)
{
    std::fputs(s.c_str(), err);
    std::fputc('\n', err);
}

nlohmann::json countsJson(const SourceCounts &c)
{
    return {{"spans", c.spans},
            {"instants", c.instants},
            {"memory_events", c.memoryEvents},
            {"counter_samples", c.counterSamples},
            {"steps", c.steps},
            {"collectives", c.collectives},
            {"log_lines", c.logLines},
            {"warnings", c.warnings},
            {"memory_summaries", c.memorySummaries},
            {"oom_messages", c.oomMessages},
            {"gpu_samples", c.gpuSamples},
            {"segments", c.segments},
            {"trace_entries", c.traceEntries},
            {"flows", c.flows},
            {"flow_ends_unpaired", c.flowEndsUnpaired}};
}

// "path:line: message" or "path: message", as the contract says. A summary's diagnostics are its
// original's, and name that file.
std::string diagnosticLine(const Source &s, const Diagnostic &d)
{
    std::string out = s.evidencePath();
    if (d.line >= 0)
        out += ":" + std::to_string(d.line);
    out += ": ";
    out += d.isError() ? "error: " : "warning: ";
    out += d.message;
    // Offsets count decompressed bytes: in a .gz/.zst file, say so, or a reader seeks the wrong place.
    const std::string byte = s.compression == Compression::None ? "byte " : "decompressed offset ";
    if (d.line < 0 && d.offset >= 0)
        out += " (at " + byte + std::to_string(d.offset) + ")";
    out += " [" + d.code;
    if (d.count > 1) {
        out += " ×" + std::to_string(d.count) + "; also at";
        for (const Diagnostic::Example &e : d.examples)
            out += e.line >= 0 ? " line " + std::to_string(e.line) : " " + byte + std::to_string(e.offset);
        if (d.count > std::int64_t(d.examples.size()) + 1)
            out += " …";
    }
    out += "]";
    return out;
}

nlohmann::json diagnosticJson(const Diagnostic &d)
{
    auto loc = [](std::int64_t v) { return v >= 0 ? nlohmann::json(v) : nlohmann::json(nullptr); };
    nlohmann::json examples = nlohmann::json::array();
    for (const Diagnostic::Example &e : d.examples)
        examples.push_back({{"line", loc(e.line)}, {"offset", loc(e.offset)}, {"message", e.message}});
    return {{"severity", d.isError() ? "error" : "warning"},
            {"code", d.code},
            {"count", d.count},
            {"message", d.message},
            {"line", loc(d.line)},
            {"offset", loc(d.offset)},
            {"examples", examples}};
}

std::string formatWallClock(TimeNs t)
{
    const auto dt = QDateTime::fromMSecsSinceEpoch(t / 1000000, Qt::UTC);
    return dt.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz 'UTC'")).toStdString();
}

std::string formatDuration(TimeNs ns)
{
    char buf[64];
    if (ns >= 1000000000)
        std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(ns) / 1e9);
    else if (ns >= 1000000)
        std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.3f us", static_cast<double>(ns) / 1e3);
    return buf;
}

// A recognised file whose every count is zero, read with errors, gave the user nothing.
bool nothingRead(const Source &s)
{
    const nlohmann::json c = countsJson(s.counts);
    for (auto it = c.begin(); it != c.end(); ++it)
        if (it.value().get<std::int64_t>() != 0)
            return false;
    return s.timeRange.isEmpty();
}

struct ParsedArgs {
    bool json = false;
    std::vector<std::string> paths;
    std::map<std::string, int> assign;
    std::map<RankId, TimeNs> offsets;  // --clock-offset, then (after load) the session file's
    std::string timeZone;              // --time-zone, or (after load) the session file's
    std::string error;
    // Filled by load() when a session file is among the paths:
    std::optional<SessionDocument> document; // the document, when it could be read
    std::string documentPath;                // its path as given
    bool documentErrors = false;             // unreadable, or a source missing or changed (printed)
    bool allowOutside = false;               // --allow-outside-sources: a session file may name files outside its folder
    std::int64_t maxDecompressed = 0;        // --max-decompressed: per-file ceiling, 0 = the default
    bool noCache = false;                    // --no-cache: neither read nor fill the import cache
};

// "--name VALUE" or "--name=VALUE": the value, advancing i; nullopt if `a` is not that option.
std::optional<QString> optionValue(const QStringList &args, int &i, const char *name)
{
    const QString a = args[i];
    const QString n = QLatin1String(name);
    if (a == n)
        return i + 1 < args.size() ? std::optional<QString>(args[++i]) : std::optional<QString>(QString());
    if (a.startsWith(n + QLatin1Char('=')))
        return a.mid(n.size() + 1);
    return std::nullopt;
}

ParsedArgs parseCommon(const QStringList &args)
{
    ParsedArgs p;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--json")) {
            p.json = true;
        } else if (auto v = optionValue(args, i, "--assign-rank")) {
            if (!Cli::parseAssignRank(*v, p.assign))
                p.error = "--assign-rank expects PATH=N with N a non-negative integer, got '" + v->toStdString() + "'";
        } else if (auto o = optionValue(args, i, "--clock-offset")) {
            // RANK=NS: the user's own offset for a rank, in nanoseconds (may be negative).
            const int eq = o->indexOf(QLatin1Char('='));
            bool okRank = false, okNs = false;
            const int rank = eq > 0 ? o->left(eq).toInt(&okRank) : -1;
            const qlonglong ns = eq > 0 ? o->mid(eq + 1).toLongLong(&okNs) : 0;
            if (!okRank || !okNs || rank < 0)
                p.error = "--clock-offset expects RANK=NANOSECONDS, got '" + o->toStdString() + "'";
            else
                p.offsets[rank] = ns;
        } else if (auto z = optionValue(args, i, "--time-zone")) {
            p.timeZone = z->toStdString();
        } else if (a == QLatin1String("--allow-outside-sources")) {
            p.allowOutside = true;
        } else if (a == QLatin1String("--no-cache")) {
            p.noCache = true;
        } else if (auto m = optionValue(args, i, "--max-decompressed")) {
            if (const auto bytes = Cli::parseSize(*m))
                p.maxDecompressed = *bytes;
            else
                p.error = "--max-decompressed expects a size such as 64G (at least 1M), got '" + m->toStdString() + "'";
        } else if (a == QLatin1String("--")) {
            for (++i; i < args.size(); ++i)
                p.paths.push_back(args[i].toStdString());
        } else if (a.startsWith(QLatin1String("--"))) {
            p.error = "unknown option '" + a.toStdString() + "'";
        } else {
            p.paths.push_back(a.toStdString());
        }
    }
    if (p.error.empty() && p.paths.empty())
        p.error = "no input paths given";
    return p;
}

std::string canonicalPath(const std::string &p)
{
    std::error_code ec;
    const auto c = std::filesystem::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

// A path naming a saved session rather than a source: a file (never a folder) with the
// .rankscope extension or a plain-JSON document of our schema.
bool isSessionFile(const std::string &path)
{
    std::error_code ec;
    return !std::filesystem::is_directory(path, ec) && SessionDocument::looksLikeSessionFile(QString::fromStdString(path));
}

// Reads the session file `path` into `p`: replaces it in p.paths by its sources, prints what was
// wrong with them, and merges its choices under the command line's (command-line ones win).
// `options` receives the rank overrides and maps of its sources.
void openSessionFile(const std::string &path, std::FILE *err, ParsedArgs &p, SessionLoader::Options &options)
{
    const QString docPath = QString::fromStdString(path);
    std::vector<std::string> sources;
    QString why;
    std::optional<SessionDocument> doc = SessionDocument::load(docPath, &why);
    if (!doc) {
        printErr(err, why.toStdString()); // already "path: message"
        p.documentErrors = true;
    } else {
        SessionDocument::Resolution r = SessionDocument::resolve(*doc, docPath, true, p.allowOutside);
        // The saved paths are relative to the session file: name each problem by where it was
        // looked for or found, so the line makes sense from any working directory. Missing and
        // changed sources are errors (exit 1, as for a source read with errors); a moved one was
        // loaded as saved, so it is a warning.
        const QDir base = QFileInfo(docPath).absoluteDir();
        for (const SessionDocument::Problem &pr : r.problems) {
            const bool isError = pr.kind != SessionDocument::Problem::Kind::Moved;
            const std::string where = pr.foundAt.empty()
                ? QDir::cleanPath(base.absoluteFilePath(QString::fromStdString(pr.path))).toStdString()
                : pr.foundAt;
            std::string what = pr.message;
            if (what.starts_with(pr.path + ": "))
                what.erase(0, pr.path.size() + 2);
            printErr(err, where + (isError ? ": error: " : ": warning: ") + what);
            p.documentErrors = p.documentErrors || isError;
        }
        sources = r.paths;
        options.rankOverrides = std::move(r.options.rankOverrides);
        options.rankMaps = std::move(r.options.rankMaps);
        if (p.timeZone.empty())
            p.timeZone = r.options.timeZone;
        for (const auto &[rank, ns] : doc->clockOffsets)
            p.offsets.emplace(rank, ns); // emplace keeps a --clock-offset for the same rank
        p.document = std::move(doc);
    }
    p.documentPath = path;
    const auto at = std::find(p.paths.begin(), p.paths.end(), path);
    const auto pos = p.paths.erase(at);
    p.paths.insert(pos, sources.begin(), sources.end());
}

// The common start of a subcommand: parse, open a session file among the paths, expand folders,
// read every file. Returns Ok or the usage status (the message is printed).
int load(const char *command, const QStringList &args, std::FILE *err, ParsedArgs &p, SessionPtr &session)
{
    p = parseCommon(args);
    std::vector<std::string> sessionFiles;
    for (const std::string &path : p.paths)
        if (isSessionFile(path))
            sessionFiles.push_back(path);
    // One session is one incident; two would disagree about offsets, view and annotations.
    if (p.error.empty() && sessionFiles.size() > 1)
        p.error = "give at most one session file (.rankscope), got " + std::to_string(sessionFiles.size());
    if (!p.error.empty()) {
        printErr(err, std::string("rankscope ") + command + ": " + p.error);
        std::fputs(Cli::usage().toUtf8().constData(), err);
        return Cli::Usage;
    }
    SessionLoader::Options options;
    if (!sessionFiles.empty())
        openSessionFile(sessionFiles.front(), err, p, options);
    // --assign-rank wins over the session file's choice for the same file, however it is spelled.
    for (const auto &[path, rank] : p.assign) {
        const std::string want = canonicalPath(path);
        std::erase_if(options.rankOverrides, [&](const auto &e) { return canonicalPath(e.first) == want; });
    }
    options.rankOverrides.insert(p.assign.begin(), p.assign.end());
    options.timeZone = p.timeZone;
    options.maxDecompressedBytes = p.maxDecompressed;
    options.cache = Cli::cacheEnabled(p.noCache);
    SessionLoader loader(p.paths, options);
    if (loader.files().empty()) {
        printErr(err, std::string("rankscope ") + command + ": "
                          + (sessionFiles.empty() ? "no files found in the given folders" : "nothing usable in the given paths"));
        return Cli::Usage;
    }
    session = loader.run();
    // Both subcommands say which files of an opened folder were not inputs.
    for (const std::string &skipped : session->skippedFiles())
        printErr(err, skipped + ": skipped (not a format RankScope reads)");
    return Cli::Ok;
}

} // namespace

QString Cli::usage()
{
    return QStringLiteral(
        "usage: rankscope [PATH...]                          open the viewer (files or folders)\n"
        "       rankscope inspect [--json] [--assign-rank PATH=N]... PATH...\n"
        "                                                    what each source is and what was read from it\n"
        "       rankscope analyze [--json] [--assign-rank PATH=N]... [--clock-offset RANK=NS]... PATH...\n"
        "                                                    alignment, per-rank metrics, spikes, divergent ranks, findings\n"
        "       rankscope export --output FILE.{png,svg,pdf,json,json.gz} [--report FILE.md] [--range T0:T1]\n"
        "                        [--ranks LIST] [--size WxH] [--dpr N] [--title TEXT] [--detail compact|full]\n"
        "                        [--view timeline|compare] [--reference RANK]\n"
        "                        [--assign-rank PATH=N]... [--clock-offset RANK=NS]... PATH...\n"
        "                                                    the aligned timeline (or, --view compare, every rank against\n"
        "                                                    the reference rank) as a figure, the merged Chrome trace,\n"
        "                                                    the incident report with its images\n"
        "       rankscope summarize [--output DIR] [--json] [--threads N] [--counter-samples N] [--assign-rank PATH=N]... PATH...\n"
        "                                                    one compact summary file per input (FILE.rankscope-summary),\n"
        "                                                    readable by every command and the viewer like the file itself;\n"
        "                                                    counters keep at most --counter-samples samples (65536)\n"
        "Options: --time-zone ZONE  zone of time stamps that carry none (nvidia-smi, logs); default: local\n"
        "         --allow-outside-sources  let a session file name sources outside its own folder\n"
        "         --max-decompressed SIZE  stop reading a file past SIZE decompressed bytes (K/M/G/T); default 64G\n"
        "         --no-cache  neither read files back from the import cache nor keep them in it\n"
        "                     (~/.cache/rankscope; RANKSCOPE_NO_CACHE=1 does the same)\n"
        "\n"
        "A folder means every recognised file below it. --assign-rank overrides a source's rank.\n"
        "One PATH may be a saved session (FILE.rankscope): its sources are read with its rank choices,\n"
        "time zone and clock offsets (options on the command line win); export also draws its annotations\n"
        "and takes its visible window, hidden and collapsed ranks unless --range / --ranks are given.\n"
        "Its missing or changed sources are errors (exit 1), moved ones warnings.\n"
        "Exit status: 0 success; 1 some sources had errors; 2 usage error or nothing usable.\n");
}

bool Cli::cacheEnabled(bool noCacheOption)
{
    return !noCacheOption && qEnvironmentVariableIsEmpty("RANKSCOPE_NO_CACHE");
}

bool Cli::isSubcommand(const QStringList &args)
{
    if (args.isEmpty())
        return false;
    const QString &a = args.front();
    return a == QLatin1String("inspect") || a == QLatin1String("analyze") || a == QLatin1String("export")
        || a == QLatin1String("summarize")
        || a == QLatin1String("--help") || a == QLatin1String("-h") || a == QLatin1String("help")
        || a == QLatin1String("--version");
}

std::optional<std::int64_t> Cli::parseSize(const QString &value)
{
    QString v = value.trimmed().toUpper();
    if (v.endsWith(QLatin1Char('B')) && v.size() > 1 && !v.at(v.size() - 2).isDigit())
        v.chop(1); // "64GB", "64GiB" read as 64G
    if (v.endsWith(QLatin1Char('I')))
        v.chop(1);
    int shift = 0;
    if (!v.isEmpty() && !v.back().isDigit()) {
        const QChar unit = v.back();
        shift = unit == QLatin1Char('K') ? 10 : unit == QLatin1Char('M') ? 20 : unit == QLatin1Char('G') ? 30
              : unit == QLatin1Char('T') ? 40 : -1;
        v.chop(1);
    }
    bool ok = false;
    const qlonglong n = v.toLongLong(&ok);
    if (!ok || shift < 0 || n <= 0 || n >= (qlonglong(1) << (50 - shift)))
        return std::nullopt;
    const std::int64_t bytes = std::int64_t(n) << shift;
    if (bytes < (std::int64_t(1) << 20))
        return std::nullopt;
    return bytes;
}

bool Cli::parseAssignRank(const QString &value, std::map<std::string, int> &into)
{
    const int eq = value.lastIndexOf(QLatin1Char('='));
    if (eq <= 0)
        return false;
    bool ok = false;
    const int rank = value.mid(eq + 1).toInt(&ok);
    if (!ok || rank < 0)
        return false;
    into[value.left(eq).toStdString()] = rank;
    return true;
}

int Cli::run(const QStringList &args, std::FILE *out, std::FILE *err)
{
    const QString cmd = args.value(0);
    if (cmd == QLatin1String("--help") || cmd == QLatin1String("-h") || cmd == QLatin1String("help")) {
        std::fputs(usage().toUtf8().constData(), out);
        return Ok;
    }
    if (cmd == QLatin1String("--version")) {
        std::fputs(VersionInfo::text().toUtf8().constData(), out);
        return Ok;
    }
    if (cmd == QLatin1String("inspect"))
        return inspect(args.mid(1), out, err);
    if (cmd == QLatin1String("analyze"))
        return analyze(args.mid(1), out, err);
    if (cmd == QLatin1String("export"))
        return ExportCommand::run(args.mid(1), out, err);
    if (cmd == QLatin1String("summarize"))
        return SummarizeCommand::run(args.mid(1), out, err);
    printErr(err, "rankscope: '" + cmd.toStdString() + "' is not available in this version yet");
    std::fputs(usage().toUtf8().constData(), err);
    return Usage;
}

int Cli::loadInputs(const char *command, const QStringList &args, std::FILE *err, Inputs &inputs)
{
    ParsedArgs p;
    if (const int status = load(command, args, err, p, inputs.session); status != Ok)
        return status;
    if (p.json) {
        printErr(err, std::string("rankscope ") + command + ": unknown option '--json'");
        return Usage;
    }
    inputs.clockOffsets = p.offsets;
    inputs.timeZone = p.timeZone;
    inputs.sourceErrors = p.documentErrors;
    inputs.document = std::move(p.document);
    inputs.documentPath = QString::fromStdString(p.documentPath);
    bool anyUsable = false;
    for (const Source &s : inputs.session->sources()) {
        anyUsable = anyUsable || (!s.format.empty() && !(s.hasErrors() && nothingRead(s)));
        inputs.sourceErrors = inputs.sourceErrors || s.hasErrors();
        for (const Diagnostic &d : s.diagnostics)
            if (d.isError())
                printErr(err, diagnosticLine(s, d));
    }
    if (!anyUsable) {
        printErr(err, std::string("rankscope ") + command + ": nothing usable in the given paths");
        return Usage;
    }
    return Ok;
}

int Cli::inspect(const QStringList &args, std::FILE *out, std::FILE *err)
{
    ParsedArgs p;
    SessionPtr session;
    if (const int status = load("inspect", args, err, p, session); status != Ok)
        return status;

    bool anyUsable = false;
    bool anyErrors = false;
    nlohmann::json sources = nlohmann::json::array();
    for (const Source &s : session->sources()) {
        const bool usable = !s.format.empty() && !(s.hasErrors() && nothingRead(s));
        anyUsable = anyUsable || usable;
        anyErrors = anyErrors || s.hasErrors();
        for (const Diagnostic &d : s.diagnostics)
            printErr(err, diagnosticLine(s, d));
        if (p.json) {
            nlohmann::json diags = nlohmann::json::array();
            for (const Diagnostic &d : s.diagnostics)
                diags.push_back(diagnosticJson(d));
            nlohmann::json range = nullptr;
            if (s.hasClock && !s.timeRange.isEmpty())
                range = nlohmann::json::array({s.timeRange.begin, s.timeRange.end});
            sources.push_back({{"path", s.path},
                               {"format", s.format.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.format)},
                               {"compression", compressionName(s.compression)},
                               {"ranks", s.ranks},
                               {"rank_origin", rankOriginName(s.rankOrigin)},
                               {"world_size", s.worldSize > 0 ? nlohmann::json(s.worldSize) : nlohmann::json(nullptr)},
                               {"bytes", s.fileBytes},
                               {"counts", countsJson(s.counts)},
                               {"time_range_ns", range},
                               {"diagnostics", diags}});
            // A summary names the file it was written from and what it kept of it.
            if (const SummaryFacts *f = s.summary.get())
                sources.back()["summary_of"] = {{"path", f->originPath},
                                                {"absolute_path", f->originAbsolute},
                                                {"format", f->originFormat},
                                                {"bytes", f->originBytes},
                                                {"sha256", f->originSha256},
                                                {"reachable", Summarizer::originReachable(*f)},
                                                {"writer", f->writer},
                                                {"counter_samples_kept", f->samplesKept},
                                                {"counter_samples_dropped", f->samplesDropped},
                                                {"spans_kept", f->spansKept},
                                                {"spans_dropped", f->spansDropped}};
        }
    }
    if (p.json) {
        nlohmann::json doc = {{"schema", "rankscope.inspect/1"}, {"sources", sources}};
        std::fputs(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str(), out);
        std::fputc('\n', out);
    } else {
        for (const Source &s : session->sources()) {
            std::string line = s.path + "\n  format: " + (s.format.empty() ? "unrecognised" : s.format)
                + "   compression: " + compressionName(s.compression) + "   size: " + std::to_string(s.fileBytes)
                + " bytes\n  ranks:";
            for (RankId r : s.ranks)
                line += " " + std::to_string(r);
            if (s.ranks.empty())
                line += " none";
            line += std::string(" (from ") + rankOriginName(s.rankOrigin) + ")";
            if (s.worldSize > 0)
                line += " of world size " + std::to_string(s.worldSize);
            line += "\n  time: ";
            if (s.timeRange.isEmpty())
                line += "none";
            else if (s.hasClock)
                line += formatWallClock(s.timeRange.begin) + " for " + formatDuration(s.timeRange.duration());
            else
                line += "no wall clock; spans " + formatDuration(s.timeRange.duration());
            if (const SummaryFacts *f = s.summary.get())
                line += "\n  summary of: " + f->originPath + " (" + f->originFormat + ", " + std::to_string(f->originBytes)
                    + " bytes" + (Summarizer::originReachable(*f) ? ", reachable" : ", not on this machine") + ")";
            line += "\n  counts:";
            const nlohmann::json c = countsJson(s.counts);
            bool any = false;
            for (auto it = c.begin(); it != c.end(); ++it) {
                if (it.value().get<std::int64_t>() != 0) {
                    line += " " + it.key() + "=" + std::to_string(it.value().get<std::int64_t>());
                    any = true;
                }
            }
            if (!any)
                line += " nothing read";
            line += "\n  diagnostics: " + std::to_string(s.errorCount()) + " errors, "
                + std::to_string(s.warningCount()) + " warnings\n";
            std::fputs(line.c_str(), out);
        }
    }
    if (!anyUsable)
        return Usage;
    return anyErrors || p.documentErrors ? SourceErrors : Ok;
}

namespace {

nlohmann::json opt(const std::optional<std::int64_t> &v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json sourceJson(MemorySource s)
{
    const char *name = memorySourceName(s);
    return name ? nlohmann::json(name) : nlohmann::json(nullptr);
}

std::string fmtBytes(std::optional<std::int64_t> v)
{
    if (!v)
        return "-";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f GiB", double(*v) / double(1LL << 30));
    return buf;
}

} // namespace

int Cli::analyze(const QStringList &args, std::FILE *out, std::FILE *err)
{
    ParsedArgs p;
    SessionPtr session;
    if (const int status = load("analyze", args, err, p, session); status != Ok)
        return status;
    bool anyUsable = false, anyErrors = false;
    for (const Source &s : session->sources()) {
        anyUsable = anyUsable || (!s.format.empty() && !(s.hasErrors() && nothingRead(s)));
        anyErrors = anyErrors || s.hasErrors();
        for (const Diagnostic &d : s.diagnostics)
            if (d.isError())
                printErr(err, diagnosticLine(s, d));
    }
    if (!anyUsable) {
        printErr(err, "rankscope analyze: nothing usable in the given paths");
        return Usage;
    }
    Analyzer::Options aopt;
    aopt.clockOffsets = p.offsets;
    const AnalysisResult r = Analyzer::run(*session, aopt);

    if (p.json) {
        nlohmann::json ranks = nlohmann::json::array();
        for (const RankMetrics &m : r.metrics) {
            const RankAlignment *a = nullptr;
            for (const RankAlignment &x : r.alignment)
                if (x.rank == m.rank)
                    a = &x;
            nlohmann::json j = {{"rank", m.rank},
                                {"clock_offset_ns", a ? a->offsetNs : 0},
                                {"alignment", a ? alignmentMethodName(a->method) : "none"},
                                {"alignment_residual_ns", a && a->residualNs ? nlohmann::json(*a->residualNs) : nlohmann::json(nullptr)},
                                {"alignment_anchors", a ? a->anchors : 0},
                                {"alignment_confidence", a ? confidenceName(a->confidence) : "low"},
                                {"alignment_confidence_reason", a && !a->confidenceReason.empty() ? nlohmann::json(a->confidenceReason) : nlohmann::json(nullptr)},
                                {"peak_allocated_bytes", opt(m.peakAllocatedBytes)},
                                {"peak_reserved_bytes", opt(m.peakReservedBytes)},
                                {"peak_time_ns", opt(m.peakTimeNs)},
                                {"peak_source", sourceJson(m.peakSource)},
                                {"peak_reserved_source", sourceJson(m.peakReservedSource)},
                                {"current_allocated_bytes", opt(m.currentAllocatedBytes)},
                                {"current_reserved_bytes", opt(m.currentReservedBytes)},
                                {"gpu_used_peak_bytes", opt(m.gpuUsedPeakBytes)},
                                {"steps", opt(m.steps)},
                                {"step_time_median_ns", opt(m.stepTimeMedianNs)},
                                {"step_time_mad_ns", opt(m.stepTimeMadNs)},
                                {"micro_batches", opt(m.microBatches)},
                                {"input_elements", opt(m.inputElements)},
                                {"collectives", opt(m.collectives)},
                                {"last_collective_seq", opt(m.lastCollectiveSeq)},
                                {"collective_lateness_ns", opt(m.collectiveLatenessNs)},
                                {"oom", m.oom},
                                {"oom_count", m.oomCount},
                                {"oom_requested_bytes", opt(m.oomRequestedBytes)},
                                {"oom_free_bytes", opt(m.oomFreeBytes)},
                                {"fragmentation_bytes", opt(m.fragmentationBytes)},
                                {"fragmentation_source", sourceJson(m.fragmentationSource)},
                                {"non_releasable_bytes", opt(m.nonReleasableBytes)},
                                {"non_releasable_peak_bytes", opt(m.nonReleasablePeakBytes)},
                                {"cuda_malloc_retries", opt(m.allocRetries)},
                                {"non_pytorch_bytes", opt(m.nonPytorchBytes)},
                                {"capacity_bytes", opt(m.capacityBytes)}};
            // What each kind of evidence said, best first: the peaks above are the first of them.
            nlohmann::json readings = nlohmann::json::array();
            for (const MemoryReading &mr : m.memoryReadings)
                readings.push_back({{"source", sourceJson(mr.source)},
                                    {"allocated_bytes", opt(mr.allocatedBytes)},
                                    {"reserved_bytes", opt(mr.reservedBytes)},
                                    {"time_ns", opt(mr.allocatedAtNs)},
                                    {"idle_bytes", opt(mr.idleBytes)}});
            j["memory_evidence"] = std::move(readings);
            // A placeholder rank: the "host:pid" of the process whose log never stated its rank.
            const Rank *rk = session->rank(m.rank);
            j["unknown_process"] = rk && !rk->unknownProcess.empty() ? nlohmann::json(rk->unknownProcess) : nlohmann::json(nullptr);
            // Steps the rank was cut off inside (it crashed or its trace ended): not in the step time.
            nlohmann::json incomplete = nlohmann::json::array();
            if (rk)
                for (const Step &st : rk->steps)
                    if (st.incomplete)
                        incomplete.push_back(st.number);
            j["incomplete_steps"] = std::move(incomplete);
            ranks.push_back(std::move(j));
        }
        nlohmann::json spikes = nlohmann::json::array();
        for (const Spike &s : r.spikes)
            spikes.push_back({{"rank", s.rank},
                              {"time_ns", s.timeNs},
                              {"duration_ns", s.durationNs},
                              {"bytes", s.bytes},
                              {"step", s.step >= 0 ? nlohmann::json(s.step) : nlohmann::json(nullptr)},
                              {"attributed_to", s.attributedTo},
                              {"source", s.source}});
        nlohmann::json divergent = nlohmann::json::array();
        // Every divergence metric counts bytes, nanoseconds or items: integers, as the contract says
        // (a median of an even number of ranks rounds to the nearest one).
        for (const Divergence &d : r.divergent)
            divergent.push_back({{"rank", d.rank},
                                 {"metric", d.metric},
                                 {"value", std::llround(d.value)},
                                 {"median", std::llround(d.median)},
                                 {"score", d.score},
                                 {"reason", d.reason}});
        nlohmann::json findings = nlohmann::json::array();
        for (std::size_t i = 0; i < r.findings.size(); ++i) {
            const Finding &f = r.findings[i];
            nlohmann::json ev = nlohmann::json::array();
            for (const Evidence &e : f.evidence)
                ev.push_back(e.text);
            nlohmann::json j = {{"id", f.id},
                                {"severity", severityName(f.severity)},
                                {"ranks", f.ranks},
                                {"time_ns", f.timeNs ? nlohmann::json(*f.timeNs) : nlohmann::json(nullptr)},
                                {"title", f.title},
                                {"evidence", ev},
                                {"fix", f.fix}};
            // An addition to the contract: the cause (index into findings) a finding followed from.
            if (const FindingStory story = r.summary.roleOf(static_cast<int>(i)); story.role == StoryRole::Consequence)
                j["consequence_of"] = story.relatedTo;
            findings.push_back(std::move(j));
        }
        nlohmann::json placements = nlohmann::json::array();
        for (const Placement &pl : r.placements) {
            const bool isOom = pl.kind == Placement::Kind::Oom;
            const auto &src = session->sources();
            const SourceId sid = isOom ? session->ooms()[pl.index].source : session->memorySummaries()[pl.index].source;
            const std::int64_t line = isOom ? session->ooms()[pl.index].line : session->memorySummaries()[pl.index].line;
            placements.push_back({{"kind", isOom ? "oom" : "memory-summary"},
                                  {"rank", pl.rank},
                                  {"source", sid < src.size() ? src[sid].path : std::string()},
                                  {"line", line},
                                  {"time_ns", pl.timeNs},
                                  {"anchor", pl.anchor}});
        }
        // The story is read first: the top level keeps the contract's order (schema, summary, then
        // the details); the objects inside keep their sorted keys.
        nlohmann::ordered_json summary;
        summary["headline"] = r.summary.headline;
        summary["culprit_ranks"] = r.summary.culpritRanks;
        summary["chain"] = r.summary.chain;
        nlohmann::ordered_json doc;
        doc["schema"] = "rankscope.analysis/1";
        doc["summary"] = std::move(summary);
        doc["ranks"] = ranks;
        doc["spikes"] = spikes;
        doc["divergent_ranks"] = divergent;
        doc["findings"] = findings;
        doc["placements"] = placements;
        // What the views' time axis and memory scale leave out as implausible (PlausibleExtent).
        nlohmann::json leftOut = nlohmann::json::array();
        for (const ExtentOutlier &o : r.extent.leftOut)
            leftOut.push_back({{"source", o.source < session->sources().size() ? session->sources()[o.source].path : std::string()},
                               {"rank", o.rank != kNoRank ? nlohmann::json(o.rank) : nlohmann::json(nullptr)},
                               {"code", o.code},
                               {"message", o.message}});
        doc["left_out"] = leftOut;
        std::fputs(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str(), out);
        std::fputc('\n', out);
    } else {
        // The story first, as one paragraph; the details follow.
        std::string text = r.summary.headline + "\n\n";
        text += "Ranks\n";
        for (const RankMetrics &m : r.metrics) {
            const TimeNs off = r.offsetOf(m.rank);
            std::string method = "none";
            for (const RankAlignment &a : r.alignment)
                if (a.rank == m.rank)
                    method = std::string(alignmentMethodName(a.method))
                        + (a.confidence == RankAlignment::Confidence::Low ? ", low confidence: " + a.confidenceReason : std::string());
            const char *from = memorySourceName(m.peakSource);
            // A placeholder id stands for a process whose rank no line named: say so, with the process.
            const Rank *rk = session->rank(m.rank);
            const std::string unknown = rk && !rk->unknownProcess.empty()
                ? " (rank unknown: process " + rk->unknownProcess + ")" : std::string();
            text += "  rank " + std::to_string(m.rank) + unknown + ": offset " + formatDuration(off) + " (" + method + "), peak allocated "
                + fmtBytes(m.peakAllocatedBytes) + ", reserved " + fmtBytes(m.peakReservedBytes)
                + (from ? std::string(" (from ") + from + ")" : std::string()) + ", steps "
                + (m.steps ? std::to_string(*m.steps) : std::string("-")) + ", micro-batches "
                + (m.microBatches ? std::to_string(*m.microBatches) : std::string("-"))
                + (m.oomCount > 0 ? ", OOM ×" + std::to_string(m.oomCount) : std::string()) + "\n";
        }
        if (!r.spikes.empty()) {
            text += "Largest allocation spikes\n";
            for (std::size_t i = 0; i < r.spikes.size() && i < 8; ++i) {
                const Spike &s = r.spikes[i];
                text += "  rank " + std::to_string(s.rank) + (s.step >= 0 ? " step " + std::to_string(s.step) : std::string())
                    + ": +" + fmtBytes(s.bytes) + " at " + formatWallClock(s.timeNs) + " (" + s.attributedTo + ")\n";
            }
        }
        if (!r.divergent.empty()) {
            text += "Divergent ranks\n";
            for (const Divergence &d : r.divergent)
                text += "  " + d.reason + "\n";
        }
        text += r.findings.empty() ? "No findings.\n" : "Findings\n";
        // Numbered in reading order, as the report and the viewer number them; a consequence names
        // its cause and carries the cause's fix (fixing the cause fixes it).
        const std::vector<int> order = findingOrder(r);
        std::vector<int> number(r.findings.size());
        for (std::size_t k = 0; k < order.size(); ++k)
            number[static_cast<std::size_t>(order[k])] = static_cast<int>(k) + 1;
        for (const int i : order) {
            const Finding &f = r.findings[static_cast<std::size_t>(i)];
            const FindingStory story = r.summary.roleOf(i);
            text += "  #" + std::to_string(number[static_cast<std::size_t>(i)]) + " [" + severityName(f.severity) + "] " + f.id
                + ": " + f.title + "\n";
            const bool consequence = story.role == StoryRole::Consequence && story.relatedTo >= 0;
            if (consequence)
                text += "      → consequence of #" + std::to_string(number[static_cast<std::size_t>(story.relatedTo)]) + "\n";
            for (const Evidence &e : f.evidence)
                text += "      " + e.text + "\n";
            const int fixFrom = consequence && story.fixFrom >= 0 ? story.fixFrom : i;
            if (fixFrom != i)
                text += "      fix (of #" + std::to_string(number[static_cast<std::size_t>(fixFrom)])
                    + (fixFrom == story.relatedTo ? ", the cause" : ", behind the cause") + "): "
                    + r.findings[static_cast<std::size_t>(fixFrom)].fix + "\n";
            else
                text += "      fix: " + f.fix + "\n";
        }
        if (!r.extent.leftOut.empty()) {
            text += "Left out of the time axis or memory scale\n";
            for (const ExtentOutlier &o : r.extent.leftOut)
                text += "  " + (o.source < session->sources().size() ? session->sources()[o.source].path : std::string("?"))
                    + ": " + o.message + " [" + o.code + "]\n";
        }
        std::fputs(text.c_str(), out);
    }
    return anyErrors || p.documentErrors ? SourceErrors : Ok;
}

} // namespace rs
