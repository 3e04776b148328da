// rankscope-bench: how fast and how lean the trace import is, next to the I/O ceiling (reading the
// file raw) and a well-known JSON parser (nlohmann::json SAX) on the same file in the same run.
// Every measurement runs in its own child process (see ChildProcess) so peak memory is per run.

#include "benchmarkscenario.h"
#include "benchprobes.h"
#ifdef RANKSCOPE_BENCH_EXPORT
#include "allocatorprobes.h"
#include "cacheprobes.h"
#include "demoincident.h"
#include "exportprobes.h"
#include "frameprobes.h"
#include "joblogscenario.h"
#include "summaryprobes.h"

#include <nlohmann/json.hpp>

#include <fstream>
#endif
#include "benchreport.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rs::bench::BenchProbes;

struct Options {
    double sizeMb = 300;
    bool gzip = false;
    std::string out;        // keep the generated trace here
    std::string trace;      // measure this file instead of generating one
    int runs = 3;
    bool json = false;
    bool frames = false;    // time timeline frames instead of the import
    bool sizeGiven = false;
    int ranksA = 8;         // --frames scenario a: ranks of the big trace
    int ranksB = 1024;      // --frames scenario b: ranks of the small trace
    double smallMb = 0.3;   // --frames scenario b: MB of JSON per rank
    bool cache = false;     // the import cache: import, first import with the cache, reopen
    int ranks = 8;          // --cache: ranks (copies of the generated trace)
    bool skipBaseline = false; // --cache: no import without the cache (64 ranks of 1 GB do not fit in RAM)
    bool jobLog = false;    // --cache --job-log: one job log of --ranks ranks instead of traces, analysed too
    bool ranksGiven = false;
    bool summaries = false; // --summaries: summarise --ranks (1024) rank files, open them; compare a job's findings
    bool allocator = false; // --allocator: the Active memory view with the detail slider's default and with every band
    long long allocations = 200000; // --allocator: allocations in the synthetic history
    int equalRanks = 64;    // --summaries: ranks of the incident whose findings are compared
};

void usage(std::FILE *to)
{
    std::fputs(
        "usage: rankscope-bench [--size-mb N] [--gzip] [--out DIR] [--trace FILE] [--runs N] [--json]\n"
        "  Generates a synthetic PyTorch profiler (Kineto) trace of about N MB of JSON (default 300)\n"
        "  and measures, each run in a separate process, best of --runs (default 3):\n"
        "    raw read      read() in 1 MiB chunks (the I/O ceiling; with --gzip also inflating)\n"
        "    nlohmann SAX  nlohmann::json::sax_parse with a counting handler\n"
        "    import        RankScope's importer on one thread (ImporterRegistry::importFile)\n"
        "  --gzip        generate .json.gz instead of plain JSON\n"
        "  --out DIR     write the trace into DIR and keep it (default: a temporary directory)\n"
        "  --trace FILE  measure an existing trace instead of generating one\n"
        "  --json        print the results as JSON (schema rankscope.bench/1)\n"
        "usage: rankscope-bench --frames [--size-mb N] [--ranks-a N] [--ranks-b N] [--small-mb N] [--json]\n"
        "  Times timeline frames offscreen at 1920x1080 against a floor in the same run (plain fillRect\n"
        "  of as many rectangles as the frame drew): (a) --ranks-a ranks (8) of an N MB trace (default\n"
        "  1000) at the full range and over 20 zoom/pan steps; (b) --ranks-b ranks (1024) of a\n"
        "  --small-mb MB trace (0.3) scrolled from top to bottom; (c) the Ranks Overview of (b) over 20\n"
        "  zoom/pan steps. Reports p50/p95/max, open time, peak RSS.\n"
        "usage: rankscope-bench --summaries [--ranks N] [--size-mb N] [--equal-ranks N] [--json]\n"
        "  Summaries at cluster scale: --ranks (1024) copies of an N MB trace (default 5) summarised\n"
        "  two at a time (time per rank, summary size), then opened and analysed from the traces (the\n"
        "  baseline) and from the summaries (time, peak RSS, their ratios); and the demo incident\n"
        "  scaled to --equal-ranks (64) ranks analysed from its files and from their summaries, whose\n"
        "  findings, story, spikes and per-rank metrics must be equal.\n"
        "usage: rankscope-bench --allocator [--allocations N] [--json]\n"
        "  The allocator's Active memory view, offscreen at 1600x500, on a synthetic history of N\n"
        "  allocations (200,000): layout and replot time with the detail slider's default (the 2,000\n"
        "  largest as bands, the rest summed) against every allocation a band, in the same process.\n"
        "usage: rankscope-bench --cache [--ranks N] [--size-mb N] [--json]\n"
        "  The import cache: --ranks (8) copies of an N MB trace (default 1000) opened as the viewer\n"
        "  does (two threads), each in a fresh process: without the cache (the baseline), the first\n"
        "  time with an empty cache, and again (read back). Reports time, peak RSS and its ratio to\n"
        "  the JSON, and the reopen's speed-up over the baseline measured in the same run. --gzip\n"
        "  writes .json.gz copies (N MB of JSON each); --skip-baseline leaves out the import without\n"
        "  the cache (a set larger than the machine's memory). --job-log measures one N MB job log\n"
        "  of --ranks ranks (a logs-only incident: a line per rank and step, an OOM and torchrun's\n"
        "  summary at the end) instead, opened and analysed: its messages stay in the cache after a\n"
        "  reopen until a rule or the user reads them.\n",
        to);
}

bool parse(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--size-mb" && hasValue) {
            o.sizeMb = std::atof(argv[++i]);
            o.sizeGiven = true;
            if (o.sizeMb <= 0)
                return false;
        } else if (a == "--frames") {
            o.frames = true;
        } else if (a == "--cache") {
            o.cache = true;
        } else if (a == "--summaries") {
            o.summaries = true;
        } else if (a == "--allocator") {
            o.allocator = true;
        } else if (a == "--allocations" && hasValue) {
            o.allocations = std::atoll(argv[++i]);
            if (o.allocations < 1)
                return false;
        } else if (a == "--equal-ranks" && hasValue) {
            o.equalRanks = std::atoi(argv[++i]);
            if (o.equalRanks < 3)
                return false;
        } else if (a == "--job-log") {
            o.jobLog = true;
        } else if (a == "--skip-baseline") {
            o.skipBaseline = true;
        } else if (a == "--ranks" && hasValue) {
            o.ranks = std::atoi(argv[++i]);
            o.ranksGiven = true;
            if (o.ranks < 1)
                return false;
        } else if (a == "--ranks-a" && hasValue) {
            o.ranksA = std::atoi(argv[++i]);
            if (o.ranksA < 1)
                return false;
        } else if (a == "--ranks-b" && hasValue) {
            o.ranksB = std::atoi(argv[++i]);
            if (o.ranksB < 1)
                return false;
        } else if (a == "--small-mb" && hasValue) {
            o.smallMb = std::atof(argv[++i]);
            if (o.smallMb <= 0)
                return false;
        } else if (a == "--gzip") {
            o.gzip = true;
        } else if (a == "--out" && hasValue) {
            o.out = argv[++i];
        } else if (a == "--trace" && hasValue) {
            o.trace = argv[++i];
        } else if (a == "--runs" && hasValue) {
            o.runs = std::atoi(argv[++i]);
            if (o.runs < 1)
                return false;
        } else if (a == "--json") {
            o.json = true;
        } else {
            return false;
        }
    }
    return true;
}

/// Child mode: `--child PROBE PATH --result-fd N`.
int runChild(int argc, char **argv)
{
    if (argc != 6 || std::strcmp(argv[4], "--result-fd") != 0)
        return 2;
    const int fd = std::atoi(argv[5]);
    try {
        rs::bench::ChildProcess::report(fd, BenchProbes::run(argv[2], argv[3]));
    } catch (const std::exception &e) {
        rs::bench::ChildProcess::reportError(fd, e.what());
        return 1;
    }
    return 0;
}

std::uint64_t gzipContentSize(const std::string &path)
{
    return static_cast<std::uint64_t>(BenchProbes::gunzip(path).values.at(0));
}

bool isGzip(const std::string &path)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    unsigned char magic[2] = {0, 0};
    const bool gz = std::fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    std::fclose(f);
    return gz;
}

rs::bench::BenchRow measure(const std::string &id, const std::string &label, std::string_view probe,
                            const std::string &path, int runs, bool quiet)
{
    rs::bench::BenchRow row{id, label, {}};
    for (int r = 0; r < runs; ++r) {
        if (!quiet)
            std::fprintf(stderr, "  %s, run %d/%d...\n", label.c_str(), r + 1, runs);
        row.runs.push_back(rs::bench::ChildProcess::run({"--child", std::string(probe), path}));
        if (!row.runs.back().ok) {
            std::fprintf(stderr, "  %s failed: %s\n", label.c_str(), row.runs.back().error.c_str());
            break; // the same input will fail the same way
        }
    }
    return row;
}

#ifdef RANKSCOPE_BENCH_EXPORT
// One generated trace, hard-linked as rank-0 … rank-(ranks-1) in `dir` (the loader assigns each
// file the rank its name says), so N ranks cost the disk one trace.
void writeRanks(const fs::path &dir, double mb, int ranks, bool quiet)
{
    fs::create_directories(dir);
    if (!quiet)
        std::fprintf(stderr, "generating a %.1f MB trace for %d ranks in %s...\n", mb, ranks, dir.c_str());
    const auto r = rs::tracegen::BenchmarkScenario::write(dir, static_cast<std::uint64_t>(mb * 1e6), false);
    for (int i = 1; i < ranks; ++i)
        fs::create_hard_link(r.file, dir / ("rank-" + std::to_string(i) + ".pt.trace.json"));
}

int runAllocator(const Options &o)
{
    if (!o.json)
        std::fprintf(stderr, "  Active memory of %lld allocations...\n", o.allocations);
    const auto r = rs::bench::ChildProcess::run(
        {"--child", std::string(rs::bench::AllocatorProbes::kActiveMemory), std::to_string(o.allocations)});
    if (!r.ok) {
        std::fprintf(stderr, "rankscope-bench: the Active memory probe failed: %s\n", r.error.c_str());
        return 1;
    }
    // allocations, default: bands, layout µs, replot µs; every allocation: bands, layout µs, replot µs
    const auto &v = r.outcome.values;
    const auto ratio = [](std::int64_t all, std::int64_t some) { return some > 0 ? static_cast<double>(all) / static_cast<double>(some) : 0.0; };
    if (o.json) {
        std::printf("{\"schema\":\"rankscope.bench/1\",\"allocator\":{\"allocations\":%lld,"
                    "\"default\":{\"bands\":%lld,\"layout_ms\":%.2f,\"replot_ms\":%.2f},"
                    "\"every_allocation\":{\"bands\":%lld,\"layout_ms\":%.2f,\"replot_ms\":%.2f},"
                    "\"layout_ratio\":%.2f,\"replot_ratio\":%.2f,\"peak_rss_bytes\":%lld}}\n",
                    static_cast<long long>(v[0]), static_cast<long long>(v[1]), v[2] / 1e3, v[3] / 1e3, static_cast<long long>(v[4]),
                    v[5] / 1e3, v[6] / 1e3, ratio(v[5], v[2]), ratio(v[6], v[3]), static_cast<long long>(r.maxRssBytes));
        return 0;
    }
    std::printf("Active memory, %lld allocations, 1600x500 offscreen     bands   layout ms   replot ms (median of 9)\n",
                static_cast<long long>(v[0]));
    std::printf("  detail slider default (2,000 largest)              %7lld %11.2f %11.2f\n", static_cast<long long>(v[1]), v[2] / 1e3, v[3] / 1e3);
    std::printf("  every allocation a band (baseline)                 %7lld %11.2f %11.2f\n", static_cast<long long>(v[4]), v[5] / 1e3, v[6] / 1e3);
    std::printf("  baseline / default                                         %11.1fx %10.1fx\n", ratio(v[5], v[2]), ratio(v[6], v[3]));
    std::printf("  peak RSS %.0f MB\n", static_cast<double>(r.maxRssBytes) / 1e6);
    return 0;
}

int runFrames(const Options &o)
{
    std::string pattern = (fs::temp_directory_path() / "rankscope-frames-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        std::fprintf(stderr, "rankscope-bench: cannot create a temporary directory\n");
        return 1;
    }
    const fs::path root = pattern;
    struct Scenario {
        std::string id, label;
        std::string_view probe;
        fs::path dir;
    };
    char a[160], b[160], c[160];
    std::snprintf(a, sizeof a, "a: %d ranks x %.0f MB trace, full range + 20 zoom/pan steps", o.ranksA, o.sizeGiven ? o.sizeMb : 1000.0);
    std::snprintf(b, sizeof b, "b: %d ranks x %.1f MB trace, scrolled top to bottom", o.ranksB, o.smallMb);
    std::snprintf(c, sizeof c, "c: ranks overview of b, 20 zoom/pan steps");
    const std::vector<Scenario> scenarios{{"a", a, rs::bench::FrameProbes::kZoomPan, root / "a"},
                                          {"b", b, rs::bench::FrameProbes::kScroll, root / "b"},
                                          {"c", c, rs::bench::FrameProbes::kOverview, root / "b"}};
    int status = 0;
    std::string json = "{\"schema\":\"rankscope.bench/1\",\"frames\":[";
    std::string table = "scenario                                                     frames    p50 ms    p95 ms    max ms  floor p50   open s   peak RSS\n";
    for (std::size_t i = 0; i < scenarios.size(); ++i) {
        const Scenario &sc = scenarios[i];
        try {
            if (!fs::exists(sc.dir)) // c reuses b's ranks
                writeRanks(sc.dir, sc.id == "a" ? (o.sizeGiven ? o.sizeMb : 1000.0) : o.smallMb, sc.id == "a" ? o.ranksA : o.ranksB, o.json);
        } catch (const std::exception &e) {
            std::fprintf(stderr, "rankscope-bench: %s\n", e.what());
            status = 1;
            continue;
        }
        if (!o.json)
            std::fprintf(stderr, "  %s...\n", sc.label.c_str());
        const auto r = rs::bench::ChildProcess::run({"--child", std::string(sc.probe), sc.dir.string()});
        std::error_code ec;
        if (sc.id != "b") // b's ranks are c's too
            fs::remove_all(sc.dir, ec);
        if (!r.ok) {
            std::fprintf(stderr, "  %s failed: %s\n", sc.label.c_str(), r.error.c_str());
            status = 1;
            continue;
        }
        const auto &v = r.outcome.values; // frames, p50, p95, max, floor p50, open (µs), ranks, shapes
        char row[1024];
        std::snprintf(row, sizeof row,
                      "%s{\"scenario\":\"%s\",\"label\":\"%s\",\"ranks\":%lld,\"frames\":%lld,\"p50_ms\":%.2f,\"p95_ms\":%.2f,"
                      "\"max_ms\":%.2f,\"floor_p50_ms\":%.2f,\"p95_over_floor\":%.2f,\"shapes_per_frame\":%lld,\"open_ms\":%.1f,"
                      "\"peak_rss_bytes\":%lld,\"loaded_rss_bytes\":%lld}",
                      i ? "," : "", sc.id.c_str(), sc.label.c_str(), static_cast<long long>(v[6]), static_cast<long long>(v[0]),
                      v[1] / 1e3, v[2] / 1e3, v[3] / 1e3, v[4] / 1e3, v[4] > 0 ? static_cast<double>(v[2]) / static_cast<double>(v[4]) : 0.0,
                      static_cast<long long>(v[7]), v[5] / 1e3, static_cast<long long>(r.maxRssBytes),
                      static_cast<long long>(v.size() > 8 ? v[8] : 0));
        json += row;
        std::snprintf(row, sizeof row, "%-60s %6lld %9.2f %9.2f %9.2f %10.2f %8.2f %7.0f MB\n", sc.label.c_str(),
                      static_cast<long long>(v[0]), v[1] / 1e3, v[2] / 1e3, v[3] / 1e3, v[4] / 1e3, v[5] / 1e6,
                      static_cast<double>(r.maxRssBytes) / 1e6);
        table += row;
    }
    json += "]}\n";
    std::error_code ec;
    fs::remove_all(root, ec);
    std::fputs(o.json ? json.c_str() : table.c_str(), stdout);
    return status;
}

int runCache(const Options &o)
{
    std::string pattern = (fs::temp_directory_path() / "rankscope-cache-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        std::fprintf(stderr, "rankscope-bench: cannot create a temporary directory\n");
        return 1;
    }
    const fs::path root = pattern;
    const double mb = o.sizeGiven ? o.sizeMb : 1000.0;
    std::uint64_t jsonBytes = 0;
    try {
        if (o.jobLog) {
            if (!o.json)
                std::fprintf(stderr, "generating a %.0f MB job log of %d ranks in %s...\n", mb, o.ranks, root.c_str());
            jsonBytes = rs::tracegen::JobLogScenario::write(root / "ranks", static_cast<std::uint64_t>(mb * 1e6), o.ranks).bytes;
        } else {
            if (!o.json)
                std::fprintf(stderr, "generating a %.0f MB trace and %d copies in %s...\n", mb, o.ranks, root.c_str());
            const auto r = rs::tracegen::BenchmarkScenario::write(root / "src", static_cast<std::uint64_t>(mb * 1e6), o.gzip);
            fs::create_directories(root / "ranks");
            const std::uint64_t json = o.gzip ? gzipContentSize(r.file.string()) : fs::file_size(r.file);
            // Copies, not links: each rank is a file of its own to the cache (its own mtime), as on disk.
            for (int i = 0; i < o.ranks; ++i) {
                const fs::path to = root / "ranks" / ("rank-" + std::to_string(i) + (o.gzip ? ".pt.trace.json.gz" : ".pt.trace.json"));
                fs::copy_file(r.file, to);
                fs::last_write_time(to, fs::last_write_time(r.file) + std::chrono::seconds(i + 1));
                jsonBytes += json;
            }
            fs::remove_all(root / "src");
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rankscope-bench: %s\n", e.what());
        std::error_code ec;
        fs::remove_all(root, ec);
        return 1;
    }
    ::setenv("XDG_CACHE_HOME", (root / "cache").c_str(), 1);
    ::unsetenv("RANKSCOPE_NO_CACHE");
    struct Stage {
        const char *id, *label;
        std::string_view probe;
    };
    const Stage stages[] = {{"import", "import without the cache (baseline)", rs::bench::CacheProbes::kOff},
                            {"first", "first import, filling the cache", rs::bench::CacheProbes::kOn},
                            {"reopen", "reopen, read back from the cache", rs::bench::CacheProbes::kOn}};
    double seconds[3] = {0, 0, 0};
    std::int64_t rss[3] = {0, 0, 0};
    std::string rows;
    std::string table = o.jobLog
        ? "stage                                       seconds   peak RSS   RSS/log   hits  stored  messages held  analysis s  after analysis  findings\n"
        : "stage                                       seconds   peak RSS   RSS/JSON  cache hits  stored\n";
    int status = 0;
    for (int i = o.skipBaseline ? 1 : 0; i < 3; ++i) {
        if (!o.json)
            std::fprintf(stderr, "  %s...\n", stages[i].label);
        const auto r = rs::bench::ChildProcess::run({"--child", std::string(stages[i].probe), (root / "ranks").string()});
        if (!r.ok) {
            std::fprintf(stderr, "  %s failed: %s\n", stages[i].label, r.error.c_str());
            status = 1;
            break;
        }
        seconds[i] = r.outcome.seconds;
        rss[i] = r.maxRssBytes;
        const auto &v = r.outcome.values; // files, hits, stored, spans
        char row[1024];
        std::snprintf(row, sizeof row,
                      "%s{\"stage\":\"%s\",\"label\":\"%s\",\"seconds\":%.3f,\"peak_rss_bytes\":%lld,\"rss_over_json\":%.3f,"
                      "\"files\":%lld,\"cache_hits\":%lld,\"stored\":%lld,\"spans\":%lld,\"string_pool_bytes\":%lld,"
                      "\"log_text_bytes\":%lld,\"stack_bytes\":%lld,\"analysis_seconds\":%.3f,"
                      "\"log_text_bytes_after_analysis\":%lld,\"findings\":%lld}",
                      rows.empty() ? "" : ",", stages[i].id, stages[i].label, seconds[i], static_cast<long long>(rss[i]),
                      static_cast<double>(rss[i]) / static_cast<double>(jsonBytes), static_cast<long long>(v[0]),
                      static_cast<long long>(v[1]), static_cast<long long>(v[2]), static_cast<long long>(v[3]),
                      static_cast<long long>(v[4]), static_cast<long long>(v[5]), static_cast<long long>(v[6]),
                      v.size() > 9 ? static_cast<double>(v[7]) / 1e6 : 0.0, static_cast<long long>(v.size() > 9 ? v[8] : 0),
                      static_cast<long long>(v.size() > 9 ? v[9] : 0));
        rows += row;
        if (o.jobLog && v.size() > 9)
            std::snprintf(row, sizeof row, "%-40s %10.2f %8.0f MB %9.3f %6lld %7lld %11.1f MB %11.2f %12.1f MB %9lld\n", stages[i].label,
                          seconds[i], static_cast<double>(rss[i]) / 1e6, static_cast<double>(rss[i]) / static_cast<double>(jsonBytes),
                          static_cast<long long>(v[1]), static_cast<long long>(v[2]), static_cast<double>(v[5]) / 1e6,
                          static_cast<double>(v[7]) / 1e6, static_cast<double>(v[8]) / 1e6, static_cast<long long>(v[9]));
        else
            std::snprintf(row, sizeof row, "%-40s %10.2f %8.0f MB %10.3f %11lld %7lld\n", stages[i].label, seconds[i],
                          static_cast<double>(rss[i]) / 1e6, static_cast<double>(rss[i]) / static_cast<double>(jsonBytes),
                          static_cast<long long>(v[1]), static_cast<long long>(v[2]));
        table += row;
    }
    std::error_code ec;
    fs::remove_all(root, ec);
    const double speedup = seconds[2] > 0 ? seconds[0] / seconds[2] : 0;
    const double fillCost = seconds[0] > 0 ? seconds[1] / seconds[0] : 0;
    if (o.json) {
        std::printf("{\"schema\":\"rankscope.bench/1\",\"cache\":{\"ranks\":%d,\"json_bytes\":%llu,\"stages\":[%s],"
                    "\"reopen_speedup\":%.2f,\"first_import_over_import\":%.2f}}\n",
                    o.ranks, static_cast<unsigned long long>(jsonBytes), rows.c_str(), speedup, fillCost);
    } else {
        std::fputs(table.c_str(), stdout);
        if (o.skipBaseline)
            std::printf("%d ranks, %.2f GB of JSON (no baseline: --skip-baseline)\n", o.ranks, static_cast<double>(jsonBytes) / 1e9);
        else
            std::printf(o.jobLog ? "a job log of %d ranks, %.2f GB: reopen %.1fx faster than the import; the first import with the cache takes %.2fx the import\n"
                                 : "%d ranks, %.2f GB of JSON: reopen %.1fx faster than the import; the first import with the cache takes %.2fx the import\n",
                    o.ranks, static_cast<double>(jsonBytes) / 1e9, speedup, fillCost);
    }
    return status;
}

// One child run of `probe` on `path`; throws with the child's error.
rs::bench::ChildResult child(std::string_view probe, const std::string &path, bool quiet, const char *what)
{
    if (!quiet)
        std::fprintf(stderr, "  %s...\n", what);
    auto r = rs::bench::ChildProcess::run({"--child", std::string(probe), path});
    if (!r.ok)
        throw std::runtime_error(std::string(what) + " failed: " + r.error);
    return r;
}

int runSummaries(const Options &o)
{
    std::string pattern = (fs::temp_directory_path() / "rankscope-summaries-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
        std::fprintf(stderr, "rankscope-bench: cannot create a temporary directory\n");
        return 1;
    }
    const fs::path root = pattern;
    const int ranks = o.ranksGiven ? o.ranks : 1024;
    const double mb = o.sizeGiven ? o.sizeMb : 5.0;
    const bool quiet = o.json;
    ::setenv("RANKSCOPE_NO_CACHE", "1", 1);
    int status = 0;
    try {
        // (1) Scale: one generated trace, hard-linked as rank-0 … rank-(N-1).
        const fs::path a = root / "scale";
        if (!quiet)
            std::fprintf(stderr, "generating a %.1f MB trace for %d ranks in %s...\n", mb, ranks, a.c_str());
        const auto trace = rs::tracegen::BenchmarkScenario::write(a / "src", static_cast<std::uint64_t>(mb * 1e6), false);
        fs::create_directories(a / "traces");
        for (int i = 0; i < ranks; ++i)
            fs::create_hard_link(trace.file, a / "traces" / ("rank-" + std::to_string(i) + ".pt.trace.json"));
        fs::remove(trace.file);
        const auto sum = child(rs::bench::SummaryProbes::kSummarize, a.string(), quiet, "summarising every rank");
        const auto openTraces = child(rs::bench::SummaryProbes::kOpen, (a / "traces").string(), quiet, "opening and analysing the traces");
        const auto openSums = child(rs::bench::SummaryProbes::kOpen, (a / "summaries").string(), quiet, "opening and analysing the summaries");
        const auto &sv = sum.outcome.values; // files, summary bytes, input bytes, slowest µs
        const double jsonBytes = static_cast<double>(trace.jsonBytes) * ranks;

        // (2) Equality: the demo incident at --equal-ranks ranks, from its files and its summaries.
        const fs::path b = root / "incident";
        if (!quiet)
            std::fprintf(stderr, "writing the demo incident with %d ranks...\n", o.equalRanks);
        rs::tracegen::DemoIncident::write(b / "traces", true, o.equalRanks);
        std::ofstream(b / "ranks-from-content").put('\n');
        child(rs::bench::SummaryProbes::kSummarize, b.string(), quiet, "summarising the incident");
        child(rs::bench::SummaryProbes::kAnalyzeJson, (b / "traces").string(), quiet, "analysing the incident's files");
        child(rs::bench::SummaryProbes::kAnalyzeJson, (b / "summaries").string(), quiet, "analysing its summaries");
        const auto load = [](const fs::path &p) { return nlohmann::json::parse(std::ifstream(p), nullptr, false); };
        const nlohmann::json fromFiles = load(b / "traces.analysis.json"), fromSummaries = load(b / "summaries.analysis.json");
        std::vector<std::string> differ;
        for (const char *key : {"summary", "findings", "spikes", "divergent_ranks", "ranks"})
            if (fromFiles.is_discarded() || fromSummaries.is_discarded() || fromFiles[key] != fromSummaries[key])
                differ.emplace_back(key);
        const std::size_t findings = fromFiles.is_discarded() ? 0 : fromFiles["findings"].size();
        const std::string headline = fromFiles.is_discarded() ? std::string() : fromFiles["summary"]["headline"].get<std::string>();
        if (!differ.empty())
            status = 1;

        const double perRank = sum.outcome.seconds * 2.0 / ranks; // two at a time
        const auto &ot = openTraces.outcome.values, &os = openSums.outcome.values; // ranks, findings, open µs, analysis µs
        if (o.json) {
            nlohmann::json doc = {
                {"schema", "rankscope.bench/1"},
                {"summaries",
                 {{"ranks", ranks},
                  {"trace_json_bytes", jsonBytes},
                  {"summarize",
                   {{"seconds", sum.outcome.seconds},
                    {"seconds_per_rank", perRank},
                    {"slowest_rank_seconds", sv[3] / 1e6},
                    {"summary_bytes", sv[1]},
                    {"summary_bytes_per_rank", sv[1] / ranks},
                    {"peak_rss_bytes", sum.maxRssBytes}}},
                  {"open_traces",
                   {{"ranks", ot[0]}, {"seconds", openTraces.outcome.seconds}, {"open_seconds", ot[2] / 1e6}, {"analysis_seconds", ot[3] / 1e6},
                    {"peak_rss_bytes", openTraces.maxRssBytes}, {"findings", ot[1]}}},
                  {"open_summaries",
                   {{"ranks", os[0]}, {"seconds", openSums.outcome.seconds}, {"open_seconds", os[2] / 1e6}, {"analysis_seconds", os[3] / 1e6},
                    {"peak_rss_bytes", openSums.maxRssBytes}, {"findings", os[1]}}},
                  {"open_speedup", openTraces.outcome.seconds / std::max(1e-9, openSums.outcome.seconds)},
                  {"rss_ratio", double(openSums.maxRssBytes) / double(std::max<std::int64_t>(1, openTraces.maxRssBytes))},
                  {"equality", {{"ranks", o.equalRanks}, {"findings", findings}, {"equal", differ.empty()}, {"differ", differ}, {"headline", headline}}}}}};
            std::printf("%s\n", doc.dump(1).c_str());
        } else {
            std::printf("%d ranks x %.1f MB of trace JSON (%.2f GB)\n", ranks, mb, jsonBytes / 1e9);
            std::printf("  summarise, two at a time   %8.1f s   %.3f s per rank (slowest %.3f s)   %.1f KB per summary (%.2f%% of the JSON)\n",
                        sum.outcome.seconds, perRank, sv[3] / 1e6, double(sv[1]) / ranks / 1e3, 100.0 * double(sv[1]) / jsonBytes);
            std::printf("  open + analyse the traces  %8.2f s   (open %.2f s, analysis %.2f s)   peak RSS %6.0f MB   (baseline)\n",
                        openTraces.outcome.seconds, ot[2] / 1e6, ot[3] / 1e6, openTraces.maxRssBytes / 1e6);
            std::printf("  open + analyse summaries   %8.2f s   (open %.2f s, analysis %.2f s)   peak RSS %6.0f MB   %.1fx faster, %.3fx the memory\n",
                        openSums.outcome.seconds, os[2] / 1e6, os[3] / 1e6, openSums.maxRssBytes / 1e6,
                        openTraces.outcome.seconds / std::max(1e-9, openSums.outcome.seconds),
                        double(openSums.maxRssBytes) / double(std::max<std::int64_t>(1, openTraces.maxRssBytes)));
            std::printf("the demo incident at %d ranks: %zu findings; from summaries %s\n  \"%s\"\n", o.equalRanks, findings,
                        differ.empty() ? "EQUAL (summary, findings, spikes, divergent ranks, per-rank metrics)" : "DIFFERENT",
                        headline.c_str());
            for (const std::string &k : differ)
                std::printf("  differs: %s\n", k.c_str());
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rankscope-bench: %s\n", e.what());
        status = 1;
    }
    std::error_code ec;
    fs::remove_all(root, ec);
    return status;
}
#endif

} // namespace

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "--child") == 0)
        return runChild(argc, argv);
    if (argc == 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    Options o;
    if (!parse(argc, argv, o)) {
        usage(stderr);
        return 2;
    }
    if (o.summaries) {
#ifdef RANKSCOPE_BENCH_EXPORT
        return runSummaries(o);
#else
        std::fputs("rankscope-bench: --summaries needs the application library (built without the viewer)\n", stderr);
        return 2;
#endif
    }
    if (o.allocator) {
#ifdef RANKSCOPE_BENCH_EXPORT
        return runAllocator(o);
#else
        std::fputs("rankscope-bench: --allocator needs the viewer (built without it)\n", stderr);
        return 2;
#endif
    }
    if (o.cache) {
#ifdef RANKSCOPE_BENCH_EXPORT
        return runCache(o);
#else
        std::fputs("rankscope-bench: --cache needs the application library (built without the viewer)\n", stderr);
        return 2;
#endif
    }
    if (o.frames) {
#ifdef RANKSCOPE_BENCH_EXPORT
        return runFrames(o);
#else
        std::fputs("rankscope-bench: --frames needs the viewer (built without it)\n", stderr);
        return 2;
#endif
    }

    rs::bench::BenchFile file;
    fs::path tempDir;
    try {
        if (!o.trace.empty()) {
            file.path = o.trace;
            file.gzip = isGzip(o.trace);
            file.fileBytes = fs::file_size(o.trace);
            file.jsonBytes = file.gzip ? gzipContentSize(o.trace) : file.fileBytes;
        } else {
            fs::path dir = o.out;
            if (dir.empty()) {
                std::string pattern = (fs::temp_directory_path() / "rankscope-bench-XXXXXX").string();
                if (!::mkdtemp(pattern.data()))
                    throw std::runtime_error("cannot create a temporary directory");
                dir = tempDir = pattern;
            }
            if (!o.json)
                std::fprintf(stderr, "generating a %.0f MB trace in %s...\n", o.sizeMb, dir.c_str());
            const auto target = static_cast<std::uint64_t>(o.sizeMb * 1e6);
            const auto r = rs::tracegen::BenchmarkScenario::write(dir, target, o.gzip);
            file.path = r.file.string();
            file.gzip = o.gzip;
            file.fileBytes = r.fileBytes;
            file.jsonBytes = r.jsonBytes;
            file.events = r.events;
            file.generated = true;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rankscope-bench: %s\n", e.what());
        return 1;
    }

    const bool quiet = o.json;
    const auto floor = rs::bench::ChildProcess::run({"--child", std::string(BenchProbes::kIdle), file.path});
    rs::bench::BenchReport report(file, o.runs, floor.maxRssBytes);
    report.add(measure("raw_read", "raw read, 1 MiB chunks", BenchProbes::kRawRead, file.path, o.runs, quiet));
    if (file.gzip)
        report.add(measure("gunzip", "read + gunzip (zlib), 1 MiB chunks", BenchProbes::kGunzip, file.path, o.runs, quiet));
    report.add(measure("nlohmann_sax", "nlohmann::json SAX", BenchProbes::kNlohmannSax, file.path, o.runs, quiet));
    report.add(measure("import", "RankScope import, 1 thread", BenchProbes::kImport, file.path, o.runs, quiet));
#ifdef RANKSCOPE_BENCH_EXPORT
    report.add(measure("export_figure", "figure PNG of the session", rs::bench::ExportProbes::kFigure, file.path, o.runs, quiet));
    report.add(measure("export_merged_trace", "merged Chrome trace write", rs::bench::ExportProbes::kMergedTrace,
                       file.path, o.runs, quiet));
#endif

    std::fputs(o.json ? report.json().c_str() : report.table().c_str(), stdout);
    if (!tempDir.empty()) {
        std::error_code ec;
        fs::remove_all(tempDir, ec);
    }
    bool allOk = true;
    for (const auto &row : report.rows())
        allOk = allOk && row.ok();
    return allOk ? 0 : 1;
}
