#include "summaryprobes.h"

#include "analyzer.h"
#include "cli.h"
#include "sessionloader.h"
#include "summarizer.h"
#include "workerthreads.h"

#include <QStringList>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <stdexcept>

namespace rs::bench {

namespace fs = std::filesystem;

namespace {

double since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

ProbeOutcome SummaryProbes::summarize(const std::string &dir)
{
    std::vector<std::string> files;
    for (const auto &e : fs::directory_iterator(fs::path(dir) / "traces"))
        files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    const fs::path out = fs::path(dir) / "summaries";
    fs::create_directories(out);
    std::vector<Summarizer::Result> results(files.size());
    std::atomic<std::size_t> next{0};
    const auto t0 = std::chrono::steady_clock::now();
    auto worker = [&] {
        for (std::size_t i = next.fetch_add(1); i < files.size(); i = next.fetch_add(1)) {
            Summarizer::Options o;
            o.timeZone = "UTC";
            // Hard links of one generated trace: the file name says the rank, as --assign-rank would.
            const std::string name = fs::path(files[i]).filename().string();
            if (name.rfind("rank-", 0) == 0 && !fs::exists(fs::path(dir) / "ranks-from-content"))
                o.rank = std::atoi(name.c_str() + 5);
            results[i] = Summarizer::run(files[i], (out / Summarizer::outputName(files[i])).string(), o);
        }
    };
    runWorkerThreads(2, files.size(), worker);
    ProbeOutcome r;
    r.seconds = since(t0);
    std::int64_t summaryBytes = 0, inputBytes = 0;
    double slowest = 0;
    for (const Summarizer::Result &s : results) {
        if (!s.failure.empty())
            throw std::runtime_error(s.input + ": " + s.failure);
        summaryBytes += s.outputBytes;
        inputBytes += s.inputBytes;
        slowest = std::max(slowest, s.seconds);
    }
    r.values = {static_cast<std::int64_t>(files.size()), summaryBytes, inputBytes, static_cast<std::int64_t>(slowest * 1e6)};
    return r;
}

ProbeOutcome SummaryProbes::openAndAnalyse(const std::string &dir)
{
    SessionLoader::Options o;
    o.threads = 2;
    o.timeZone = "UTC";
    // Hard links of one trace all say rank 0 inside: their names give the ranks, as for summarize.
    if (!fs::exists(fs::path(dir).parent_path() / "ranks-from-content"))
        for (const auto &e : fs::directory_iterator(dir)) {
            const std::string name = e.path().filename().string();
            if (name.rfind("rank-", 0) == 0)
                o.rankOverrides[e.path().string()] = std::atoi(name.c_str() + 5);
        }
    const auto t0 = std::chrono::steady_clock::now();
    SessionLoader loader({dir}, o);
    const SessionPtr s = loader.run();
    const double open = since(t0);
    const auto t1 = std::chrono::steady_clock::now();
    const AnalysisResult a = Analyzer::run(*s);
    const double analysis = since(t1);
    ProbeOutcome r;
    r.seconds = since(t0);
    if (!o.rankOverrides.empty() && s->ranks().size() != o.rankOverrides.size())
        throw std::runtime_error(dir + ": " + std::to_string(s->ranks().size()) + " ranks for " + std::to_string(o.rankOverrides.size()) + " rank files");
    r.values = {static_cast<std::int64_t>(s->ranks().size()), static_cast<std::int64_t>(a.findings.size()),
                static_cast<std::int64_t>(open * 1e6), static_cast<std::int64_t>(analysis * 1e6)};
    return r;
}

ProbeOutcome SummaryProbes::analyzeJson(const std::string &dir)
{
    const std::string path = dir + ".analysis.json";
    std::FILE *out = std::fopen(path.c_str(), "w");
    std::FILE *err = std::fopen("/dev/null", "w");
    if (!out || !err)
        throw std::runtime_error("cannot write " + path);
    const auto t0 = std::chrono::steady_clock::now();
    const int status = Cli::run({QStringLiteral("analyze"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC"),
                                 QString::fromStdString(dir)},
                                out, err);
    std::fclose(out);
    std::fclose(err);
    ProbeOutcome r;
    r.seconds = since(t0);
    r.values = {status};
    return r;
}

} // namespace rs::bench
