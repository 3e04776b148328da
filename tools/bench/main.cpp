// rankscope-bench: how fast and how lean the trace import is, next to the I/O ceiling (reading the
// file raw) and a well-known JSON parser (nlohmann::json SAX) on the same file in the same run.
// Every measurement runs in its own child process (see ChildProcess) so peak memory is per run.

#include "benchmarkscenario.h"
#include "benchprobes.h"
#ifdef RANKSCOPE_BENCH_EXPORT
#include "exportprobes.h"
#endif
#include "benchreport.h"

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
        "  --json        print the results as JSON (schema rankscope.bench/1)\n",
        to);
}

bool parse(int argc, char **argv, Options &o)
{
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool hasValue = i + 1 < argc;
        if (a == "--size-mb" && hasValue) {
            o.sizeMb = std::atof(argv[++i]);
            if (o.sizeMb <= 0)
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
