#include "cacheprobes.h"

#include "analyzer.h"
#include "sessionloader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

namespace rs::bench {

ProbeOutcome CacheProbes::load(const std::string &dir, bool cache)
{
    std::vector<std::string> files;
    SessionLoader::Options o;
    // Rank files (their ranks from their names), else the folder's job log.
    std::vector<std::string> logs;
    for (const auto &e : std::filesystem::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("rank-", 0) != 0) {
            logs.push_back(e.path().string());
            continue;
        }
        files.push_back(e.path().string());
        o.rankOverrides[files.back()] = std::atoi(name.c_str() + 5);
    }
    const bool jobLog = files.empty();
    if (jobLog)
        files = logs;
    std::sort(files.begin(), files.end());
    o.threads = 2;
    o.cache = cache;
    const auto t0 = std::chrono::steady_clock::now();
    SessionLoader loader(files, o);
    const SessionPtr s = loader.run();
    ProbeOutcome out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s || (!jobLog && s->ranks().size() != files.size()) || (jobLog && s->logs().records.empty()))
        throw std::runtime_error(dir + ": not every rank was loaded");
    std::int64_t spans = 0;
    for (const Track &t : s->tracks())
        spans += static_cast<std::int64_t>(t.spans.size());
    // What stays resident besides the columns: names (the string pool), log text, stacks.
    std::int64_t logText = 0, stackBytes = 0;
    for (const TextArena &a : s->logs().texts) // what is loaded: a lazy arena's loaded blocks only
        logText += static_cast<std::int64_t>(a.memoryBytes());
    auto frames = [&stackBytes](const std::vector<std::vector<StackFrame>> &stacks) {
        for (const auto &stack : stacks)
            for (const StackFrame &f : stack)
                stackBytes += static_cast<std::int64_t>(sizeof f + f.filename.capacity() + f.name.capacity());
    };
    frames(s->allocator().stacks);
    frames(s->flightRecorder().stacks);
    out.values = {static_cast<std::int64_t>(files.size()), loader.cacheUse().hits.load(), loader.cacheUse().stored.load(), spans,
                  static_cast<std::int64_t>(s->strings().memoryBytes()), logText, stackBytes};
    if (jobLog) {
        // A log is opened to be analysed: the rules read the messages their records' kinds select.
        const auto a0 = std::chrono::steady_clock::now();
        const AnalysisResult result = Analyzer::run(*s);
        out.values.push_back(std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - a0).count());
        std::int64_t held = 0;
        for (const TextArena &a : s->logs().texts)
            held += static_cast<std::int64_t>(a.memoryBytes());
        out.values.push_back(held);
        out.values.push_back(static_cast<std::int64_t>(result.findings.size()));
    }
    return out;
}

} // namespace rs::bench
