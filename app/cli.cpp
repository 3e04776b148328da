#include "cli.h"

#include "sessionloader.h"

#include <nlohmann/json.hpp>

#include <QDateTime>
#include <QFileInfo>

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
            {"trace_entries", c.traceEntries}};
}

// "path:line: message" or "path: message", as the contract says.
std::string diagnosticLine(const Source &s, const Diagnostic &d)
{
    std::string out = s.path;
    if (d.line >= 0)
        out += ":" + std::to_string(d.line);
    out += ": ";
    out += d.isError() ? "error: " : "warning: ";
    out += d.message;
    if (d.line < 0 && d.offset >= 0)
        out += " (at byte " + std::to_string(d.offset) + ")";
    return out;
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
    std::string error;
};

ParsedArgs parseCommon(const QStringList &args)
{
    ParsedArgs p;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        if (a == QLatin1String("--json")) {
            p.json = true;
        } else if (a == QLatin1String("--assign-rank") || a.startsWith(QLatin1String("--assign-rank="))) {
            QString v;
            if (a.contains(QLatin1Char('='))
                && a.startsWith(QLatin1String("--assign-rank="))) {
                v = a.mid(int(qstrlen("--assign-rank=")));
            } else if (i + 1 < args.size()) {
                v = args[++i];
            }
            if (!Cli::parseAssignRank(v, p.assign))
                p.error = "--assign-rank expects PATH=N with N a non-negative integer, got '" + v.toStdString() + "'";
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

} // namespace

QString Cli::usage()
{
    return QStringLiteral(
        "usage: rankscope [PATH...]                          open the viewer (files or folders)\n"
        "       rankscope inspect [--json] [--assign-rank PATH=N]... PATH...\n"
        "                                                    what each source is and what was read from it\n"
        "\n"
        "A folder means every recognised file below it. --assign-rank overrides a source's rank.\n"
        "Exit status: 0 success; 1 some sources had errors; 2 usage error or nothing usable.\n");
}

bool Cli::isSubcommand(const QStringList &args)
{
    if (args.isEmpty())
        return false;
    const QString &a = args.front();
    return a == QLatin1String("inspect") || a == QLatin1String("analyze") || a == QLatin1String("export")
        || a == QLatin1String("--help") || a == QLatin1String("-h") || a == QLatin1String("help")
        || a == QLatin1String("--version");
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
        std::fputs("rankscope " RANKSCOPE_VERSION "\n", out);
        return Ok;
    }
    if (cmd == QLatin1String("inspect"))
        return inspect(args.mid(1), out, err);
    printErr(err, "rankscope: '" + cmd.toStdString() + "' is not available in this version yet");
    std::fputs(usage().toUtf8().constData(), err);
    return Usage;
}

int Cli::inspect(const QStringList &args, std::FILE *out, std::FILE *err)
{
    ParsedArgs p = parseCommon(args);
    if (!p.error.empty()) {
        printErr(err, "rankscope inspect: " + p.error);
        std::fputs(usage().toUtf8().constData(), err);
        return Usage;
    }
    std::map<std::string, RankId> overrides(p.assign.begin(), p.assign.end());
    SessionLoader loader(p.paths, overrides);
    if (loader.files().empty()) {
        printErr(err, "rankscope inspect: no files found in the given folders");
        return Usage;
    }
    const SessionPtr session = loader.run();

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
                diags.push_back({{"severity", d.isError() ? "error" : "warning"},
                                 {"message", d.message},
                                 {"line", d.line >= 0 ? nlohmann::json(d.line) : nlohmann::json(nullptr)},
                                 {"offset", d.offset >= 0 ? nlohmann::json(d.offset) : nlohmann::json(nullptr)}});
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
        }
    }
    if (p.json) {
        nlohmann::json doc = {{"schema", "rankscope.inspect/1"}, {"sources", sources}};
        std::fputs(doc.dump(2).c_str(), out);
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
                + std::to_string(s.diagnostics.size() - s.errorCount()) + " warnings\n";
            std::fputs(line.c_str(), out);
        }
    }
    if (!anyUsable)
        return Usage;
    return anyErrors ? SourceErrors : Ok;
}

} // namespace rs
