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
               "  Writes the demo incident: rank-{0..3}.pt.trace.json.gz (4 ranks of a DDP job where\n"
               "  rank 2 gets an extra, longer micro-batch in its last step).\n"
               "  --plain  write uncompressed .json files instead of gzip\n",
               to);
}

double gib(std::int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0); }

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
        }
        for (const auto &f : result.files)
            std::printf("%s: %llu bytes\n", f.string().c_str(),
                        static_cast<unsigned long long>(std::filesystem::file_size(f)));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "rankscope-demogen: %s\n", e.what());
        return 1;
    }
    return 0;
}
