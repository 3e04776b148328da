#include "summarizecommand.h"

#include "cli.h"
#include "importerregistry.h"
#include "summarizer.h"
#include "summary/summaryfile.h"
#include "workerthreads.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>

namespace rs {

namespace fs = std::filesystem;

int SummarizeCommand::run(const QStringList &args, std::FILE *out, std::FILE *err)
{
    Summarizer::Options options;
    std::map<std::string, int> assign;
    std::vector<std::string> paths;
    bool json = false;
    unsigned threads = 0;
    std::string error;
    for (int i = 0; i < args.size() && error.empty(); ++i) {
        const QString &a = args[i];
        auto value = [&](const char *name) -> std::optional<QString> {
            const QString n = QLatin1String(name);
            if (a == n) {
                if (i + 1 >= args.size()) {
                    error = std::string(name) + " expects a value";
                    return std::nullopt;
                }
                return args[++i];
            }
            if (a.startsWith(n + QLatin1Char('=')))
                return a.mid(n.size() + 1);
            return std::nullopt;
        };
        if (a == QLatin1String("--json")) {
            json = true;
        } else if (auto od = value("--output")) {
            options.outputDir = od->toStdString();
        } else if (auto th = value("--threads")) {
            bool ok = false;
            threads = th->toUInt(&ok);
            if (!ok || threads == 0)
                error = "--threads expects a positive number, got '" + th->toStdString() + "'";
        } else if (auto cs = value("--counter-samples")) {
            bool ok = false;
            options.counterSamples = cs->toUInt(&ok);
            if (!ok || options.counterSamples < 16)
                error = "--counter-samples expects a number of at least 16, got '" + cs->toStdString() + "'";
        } else if (auto ar = value("--assign-rank")) {
            if (!Cli::parseAssignRank(*ar, assign))
                error = "--assign-rank expects PATH=N with N a non-negative integer, got '" + ar->toStdString() + "'";
        } else if (auto tz = value("--time-zone")) {
            options.timeZone = tz->toStdString();
        } else if (auto md = value("--max-decompressed")) {
            if (const auto bytes = Cli::parseSize(*md))
                options.maxDecompressedBytes = *bytes;
            else
                error = "--max-decompressed expects a size such as 64G (at least 1M), got '" + md->toStdString() + "'";
        } else if (a == QLatin1String("--no-cache")) {
            // Accepted for symmetry with the other subcommands: summarize never uses the cache.
        } else if (a.startsWith(QLatin1String("--"))) {
            error = "unknown option '" + a.toStdString() + "'";
        } else {
            paths.push_back(a.toStdString());
        }
    }
    if (error.empty() && paths.empty())
        error = "no input paths given";
    if (!error.empty()) {
        std::fprintf(err, "rankscope summarize: %s\n", error.c_str());
        std::fputs(Cli::usage().toUtf8().constData(), err);
        return Cli::Usage;
    }
    if (!options.outputDir.empty()) {
        std::error_code ec;
        fs::create_directories(options.outputDir, ec);
        if (!fs::is_directory(options.outputDir, ec)) {
            std::fprintf(err, "%s: cannot create the output folder\n", options.outputDir.c_str());
            return Cli::Usage;
        }
    }

    // A folder's files keep their place below it in DIR, so the summaries are read in the order
    // the files were (which decides the ranks of files that name none); two inputs of one name
    // given apart (rank-0.json in two folders) must not overwrite each other.
    std::vector<std::string> files, outputs;
    std::vector<bool> fromFolder;
    std::set<std::string> taken;
    for (const std::string &given : paths) {
        std::vector<bool> inFolder;
        for (const std::string &f : ImporterRegistry::expandPaths({given}, &inFolder))
            files.push_back(f);
        fromFolder.insert(fromFolder.end(), inFolder.begin(), inFolder.end());
        for (std::size_t k = files.size() - inFolder.size(); k < files.size(); ++k) {
            const fs::path file(files[k]);
            fs::path rel = fromFolder[k] ? file.lexically_relative(given) : file.filename();
            if (rel.empty() || rel.native().starts_with(".."))
                rel = file.filename();
            const fs::path dir = options.outputDir.empty() ? file.parent_path() : fs::path(options.outputDir) / rel.parent_path();
            const std::string name = Summarizer::outputName(files[k]);
            std::string candidate = (dir / name).string();
            const std::string stem = name.substr(0, name.size() - std::strlen(SummaryFile::kExtension));
            for (int n = 2; !taken.insert(candidate).second; ++n)
                candidate = (dir / (stem + "-" + std::to_string(n) + SummaryFile::kExtension)).string();
            outputs.push_back(candidate);
        }
    }

    std::vector<Summarizer::Result> results(files.size());
    std::atomic<std::size_t> next{0};
    auto worker = [&] {
        for (std::size_t i = next.fetch_add(1); i < files.size(); i = next.fetch_add(1)) {
            std::error_code ec;
            fs::create_directories(fs::path(outputs[i]).parent_path(), ec);
            Summarizer::Options o = options;
            if (const auto it = assign.find(files[i]); it != assign.end())
                o.rank = it->second;
            results[i] = Summarizer::run(files[i], outputs[i], o);
        }
    };
    runWorkerThreads(threads, files.size(), worker);

    int written = 0;
    bool problems = false;
    nlohmann::json list = nlohmann::json::array();
    for (std::size_t i = 0; i < files.size(); ++i) {
        const Summarizer::Result &r = results[i];
        // In an opened folder, what is not a trace or a log (a README, a summary) is not an input.
        const bool skipped = fromFolder[i] && (r.format.empty() || r.format == "summary");
        if (skipped)
            continue;
        for (const std::string &e : r.errors)
            std::fprintf(err, "%s\n", e.c_str());
        if (!r.failure.empty()) {
            if (r.errors.empty() || r.failure != r.errors.front())
                std::fprintf(err, "%s: not summarised: %s\n", r.input.c_str(), r.failure.c_str());
            problems = true;
        } else {
            ++written;
            problems = problems || !r.errors.empty();
        }
        list.push_back({{"input", r.input},
                        {"output", r.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.output)},
                        {"format", r.format.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.format)},
                        {"ranks", r.ranks},
                        {"input_bytes", r.inputBytes},
                        {"output_bytes", r.outputBytes},
                        {"seconds", r.seconds},
                        {"error", r.failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.failure)}});
        if (!json && r.failure.empty()) {
            std::string ranks;
            for (RankId k : r.ranks)
                ranks += (ranks.empty() ? "" : ",") + std::to_string(k);
            std::fprintf(out, "%s -> %s (rank %s, %.1f MB -> %.2f MB, %.2f s)\n", r.input.c_str(), r.output.c_str(),
                         ranks.empty() ? "?" : ranks.c_str(), double(r.inputBytes) / 1e6, double(r.outputBytes) / 1e6, r.seconds);
        }
    }
    if (json) {
        const nlohmann::json doc = {{"schema", "rankscope.summarize/1"}, {"summaries", list}};
        std::fprintf(out, "%s\n", doc.dump(2).c_str());
    }
    if (written == 0) {
        std::fprintf(err, "rankscope summarize: no summary written\n");
        return Cli::Usage;
    }
    return problems ? Cli::SourceErrors : Cli::Ok;
}

} // namespace rs
