// rankscope-demogen: writes the demo incident (resources/demo) from the deterministic scenario in
// rankscope_tracegen, and prints what it wrote so the README numbers can be checked.

#include "demoincident.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>

namespace {

void usage(std::FILE *to)
{
    std::fputs("usage: rankscope-demogen --out DIR [--plain]\n"
               "  Writes the demo incident: rank-{0..3}.pt.trace.json.gz, torchrun.log and nvidia-smi.csv\n"
               "  of a 4-rank DDP job where rank 2 gets an extra, longer micro-batch in its last step and\n"
               "  runs out of memory while the others wait in their allreduce.\n"
               "  --plain  write uncompressed .json traces instead of gzip\n",
               to);
}

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

// "HH:MM:SS.mmm" UTC of a wall-clock time in ns since the epoch.
std::string utc(std::int64_t ns)
{
    const std::int64_t ms = ns / 1000000;
    const std::int64_t s = ms / 1000;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%03lld", static_cast<long long>(s / 3600 % 24),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60), static_cast<long long>(ms % 1000));
    return buf;
}

} // namespace

int main(int argc, char **argv)
{
    std::filesystem::path out;
    bool gzip = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!std::strcmp(argv[i], "--plain")) {
            gzip = false;
        } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            std::fprintf(stderr, "rankscope-demogen: unknown argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (out.empty()) {
        usage(stderr);
        return 2;
    }
    try {
        const auto result = rs::tracegen::DemoIncident::write(out, gzip);
        for (const auto &rank : result.record.ranks) {
            // The longest allreduce kernel: how long this rank sat waiting for the slowest peer.
            std::int64_t longest = 0;
            for (const auto &c : rank.collectives)
                longest = std::max<std::int64_t>(longest, c.end - c.start);
            std::printf("rank %d: %zu steps, %lld events (%lld memory), peak allocated %.2f GiB, peak reserved "
                        "%.2f GiB, %lld allocator retries, longest allreduce %.1f ms\n",
                        rank.setup.rank, rank.stepStarts.size(), static_cast<long long>(rank.events),
                        static_cast<long long>(rank.memoryEvents), gib(rank.peakAllocated), gib(rank.peakReserved),
                        static_cast<long long>(rank.allocRetries),
                        static_cast<double>(longest) / 1e6);
            if (const auto &oom = rank.oom) {
                std::printf("  out of memory at %s in step %lld, micro-batch %d/%d (%d x %d tokens), in %s: "
                            "%lld bytes requested, %.2f GiB allocated, %.2f GiB reserved\n",
                            utc(oom->time).c_str(), static_cast<long long>(oom->step), oom->microBatch,
                            oom->microBatches, oom->shape.batch, oom->shape.seqLen,
                            oom->ops.empty() ? "?" : oom->ops.back().c_str(),
                            static_cast<long long>(oom->requested), gib(oom->allocated), gib(oom->reserved));
                if (!oom->python.empty()) {
                    const auto &f = oom->python.back();
                    std::printf("  at %.*s:%d: %.*s\n", int(f.file.size()), f.file.data(), f.line,
                                int(f.code.size()), f.code.data());
                }
            }
            if (const auto &t = rank.timeout)
                std::printf("  collective %lld (%lld elements) enqueued at %s timed out at %s\n",
                            static_cast<long long>(t->seq), static_cast<long long>(t->nelems),
                            utc(t->workStart).c_str(), utc(t->detected).c_str());
            std::printf("  trace ends at %s\n", utc(rank.windowEnd).c_str());
        }
        std::uintmax_t total = 0;
        for (const auto &f : result.files) {
            total += std::filesystem::file_size(f);
            std::printf("%s: %llu bytes\n", f.string().c_str(),
                        static_cast<unsigned long long>(std::filesystem::file_size(f)));
        }
        std::printf("%lld whole rows in nvidia-smi.csv; %llu bytes in all\n", static_cast<long long>(result.smiRows),
                    static_cast<unsigned long long>(total));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rankscope-demogen: %s\n", e.what());
        return 1;
    }
    return 0;
}
