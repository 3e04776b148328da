// rankscope-bench: how fast and how lean the trace import is, next to the I/O ceiling (reading the
// file raw) and a well-known JSON parser (nlohmann::json SAX) on the same file in the same run.
// Every measurement runs in its own child process (see ChildProcess) so peak memory is per run.

#include "benchmarkscenario.h"
#include "benchprobes.h"
#ifdef RANKSCOPE_BENCH_EXPORT
#include "cacheprobes.h"
#include "exportprobes.h"
#include "frameprobes.h"
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
        "usage: rankscope-bench --cache [--ranks N] [--size-mb N] [--json]\n"
        "  The import cache: --ranks (8) copies of an N MB trace (default 1000) opened as the viewer\n"
        "  does (two threads), each in a fresh process: without the cache (the baseline), the first\n"
        "  time with an empty cache, and again (read back). Reports time, peak RSS and its ratio to\n"
        "  the JSON, and the reopen's speed-up over the baseline measured in the same run. --gzip\n"
        "  writes .json.gz copies (N MB of JSON each); --skip-baseline leaves out the import without\n"
        "  the cache (a set larger than the machine's memory).\n",
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
        } else if (a == "--skip-baseline") {
            o.skipBaseline = true;
        } else if (a == "--ranks" && hasValue) {
            o.ranks = std::atoi(argv[++i]);
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
        char row[512];
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
    std::string table = "stage                                       seconds   peak RSS   RSS/JSON  cache hits  stored\n";
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
        char row[512];
        std::snprintf(row, sizeof row,
                      "%s{\"stage\":\"%s\",\"label\":\"%s\",\"seconds\":%.3f,\"peak_rss_bytes\":%lld,\"rss_over_json\":%.3f,"
                      "\"files\":%lld,\"cache_hits\":%lld,\"stored\":%lld,\"spans\":%lld}",
                      rows.empty() ? "" : ",", stages[i].id, stages[i].label, seconds[i], static_cast<long long>(rss[i]),
                      static_cast<double>(rss[i]) / static_cast<double>(jsonBytes), static_cast<long long>(v[0]),
                      static_cast<long long>(v[1]), static_cast<long long>(v[2]), static_cast<long long>(v[3]));
        rows += row;
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
            std::printf("%d ranks, %.2f GB of JSON: reopen %.1fx faster than the import; the first import with the cache takes %.2fx the import\n",
                    o.ranks, static_cast<double>(jsonBytes) / 1e9, speedup, fillCost);
    }
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
