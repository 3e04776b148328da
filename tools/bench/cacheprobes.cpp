#include "cacheprobes.h"

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
    for (const auto &e : std::filesystem::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name.rfind("rank-", 0) != 0)
            continue;
        files.push_back(e.path().string());
        o.rankOverrides[files.back()] = std::atoi(name.c_str() + 5);
    }
    std::sort(files.begin(), files.end());
    o.threads = 2;
    o.cache = cache;
    const auto t0 = std::chrono::steady_clock::now();
    SessionLoader loader(files, o);
    const SessionPtr s = loader.run();
    ProbeOutcome out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s || s->ranks().size() != files.size())
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
    return out;
}

} // namespace rs::bench
