#include "sessionloader.h"

#include "cache/sourcecache.h"
#include "workerthreads.h"
#include "importerregistry.h"
#include "sessionbuilder.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <thread>

namespace rs {

std::int64_t SessionLoader::Progress::done() const
{
    std::int64_t sum = 0;
    for (const auto &b : bytesDone)
        sum += b.load(std::memory_order_relaxed);
    return sum;
}

SessionLoader::SessionLoader(std::vector<std::string> paths, std::map<std::string, RankId> rankOverrides,
                             unsigned threads)
    : SessionLoader(std::move(paths), Options{std::move(rankOverrides), {}, {}, threads})
{
}

SessionLoader::SessionLoader(std::vector<std::string> paths, const Options &options)
    : m_timeZone(options.timeZone), m_threads(options.threads), m_maxDecompressed(options.maxDecompressedBytes)
    , m_cache(options.cache), m_cacheDir(options.cacheDir), m_cacheMaxBytes(options.cacheMaxBytes)
{
    m_files = ImporterRegistry::expandPaths(paths, &m_fromFolder);
    const auto &rankOverrides = options.rankOverrides;
    // The user names a file as they like (relative, through a link): match overrides on the
    // canonical path so "--assign-rank ./a.json=3" still reaches "a.json".
    namespace fs = std::filesystem;
    auto canonical = [](const std::string &p) {
        std::error_code ec;
        auto c = fs::weakly_canonical(p, ec);
        return ec ? p : c.string();
    };
    // Each file is made canonical once: matching every override against every file by path
    // took seconds for a thousand ranks with a rank choice each (a million filesystem calls).
    std::multimap<std::string, const std::string *> byCanonical;
    if (!rankOverrides.empty() || !options.rankMaps.empty())
        for (const auto &f : m_files)
            byCanonical.emplace(canonical(f), &f);
    auto matching = [&](const std::string &path, auto &&apply) {
        const auto [lo, hi] = byCanonical.equal_range(canonical(path));
        for (auto it = lo; it != hi; ++it)
            apply(*it->second);
    };
    for (const auto &[path, rank] : rankOverrides)
        matching(path, [&, r = rank](const std::string &f) { m_overrides[f] = r; });
    for (const auto &[path, map] : options.rankMaps)
        matching(path, [&, m = &map](const std::string &f) { m_rankMaps[f] = *m; });
}

SessionPtr SessionLoader::run(Progress *progress) const
{
    const std::size_t n = m_files.size();
    if (progress) {
        std::int64_t total = 0;
        for (const auto &f : m_files) {
            std::error_code ec;
            const auto size = std::filesystem::file_size(f, ec);
            total += ec ? 0 : static_cast<std::int64_t>(size);
        }
        progress->bytesTotal = total;
    }
    std::vector<std::optional<SourceBuilder>> results(n);
    m_cacheUse.hits = m_cacheUse.stored = m_cacheUse.rejected = 0;
    std::optional<SourceCache> cache;
    if (m_cache)
        cache.emplace(m_cacheDir.empty() ? SourceCache::defaultDir() : m_cacheDir,
                      m_cacheMaxBytes > 0 ? m_cacheMaxBytes : SourceCache::kDefaultMaxBytes);
    // What changes how a file is read is part of its cache key.
    const std::string settings = "tz=" + m_timeZone + "|max=" + std::to_string(m_maxDecompressed);
    std::atomic<std::size_t> next{0};
    static const std::atomic<bool> neverCancel{false};
    auto worker = [&] {
        for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
            ImportContext::ProgressFn fn;
            if (progress)
                fn = [progress, i](std::int64_t done, std::int64_t) { progress->bytesDone[i] = done; };
            // Per-file progress is throttled by the context; the owner samples the atomics.
            ImportContext ctx(progress ? &progress->cancel : &neverCancel, fn, std::chrono::milliseconds(20));
            ctx.timeZone = m_timeZone;
            if (m_maxDecompressed > 0)
                ctx.maxDecompressedBytes = m_maxDecompressed;
            const std::string key = cache ? SourceCache::keyOf(m_files[i], settings) : std::string();
            if (cache) {
                std::string why;
                if (auto hit = cache->load(key, m_files[i], &why)) {
                    results[i].emplace(std::move(*hit));
                    ++m_cacheUse.hits;
                    if (progress) {
                        progress->bytesDone[i] = results[i]->source().fileBytes;
                        ++progress->filesDone;
                    }
                    continue;
                }
                if (!why.empty())
                    ++m_cacheUse.rejected;
            }
            results[i].emplace(ImporterRegistry::instance().importFile(m_files[i], ctx));
            // Only a whole, recognised import is kept: not a cancelled one, not a file that could
            // not be read (that may change) or that no importer knows.
            const bool cancelled = progress && progress->cancel.load();
            // A summary is compact already, and the cache does not keep its facts.
            if (cache && !cancelled && !results[i]->source().format.empty() && results[i]->source().format != "summary"
                && !ImporterRegistry::isUnrecognised(*results[i])
                && cache->store(key, m_files[i], *results[i]))
                ++m_cacheUse.stored;
            if (progress)
                ++progress->filesDone;
        }
    };
    runWorkerThreads(m_threads, n, worker);

    SessionBuilder builder;
    for (const auto &[path, rank] : m_overrides)
        builder.assignRank(path, rank);
    for (const auto &[path, map] : m_rankMaps)
        builder.mapRanks(path, map);
    for (std::size_t i = 0; i < n; ++i) {
        if (!results[i])
            continue;
        // "A folder means every recognised file below it": the rest of a folder is not an input.
        if (m_fromFolder[i] && ImporterRegistry::isUnrecognised(*results[i]))
            builder.addSkipped(m_files[i]);
        else
            builder.addSource(std::move(*results[i]));
    }
    return builder.freeze();
}

} // namespace rs
