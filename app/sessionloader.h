#pragma once
// Reads a set of paths into a frozen session on a pool of worker threads, one file per task.
// Shared by the command line (blocking) and ImportController (in the background).

#include "session.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace rs {

class SessionLoader
{
public:
    /// Progress of one load, readable from any thread while the load runs.
    struct Progress {
        explicit Progress(std::size_t files) : bytesDone(files) {}
        std::vector<std::atomic<std::int64_t>> bytesDone; ///< per file, bytes of the file consumed
        std::atomic<std::int64_t> bytesTotal{0};          ///< sum of file sizes, set before reading
        std::atomic<int> filesDone{0};                    ///< files completely read
        std::atomic<bool> cancel{false};                  ///< set by the owner to stop early
        std::int64_t done() const;
    };

    /// What the user decided about the inputs.
    struct Options {
        std::map<std::string, RankId> rankOverrides;                 ///< path → rank (--assign-rank)
        std::map<std::string, std::map<RankId, RankId>> rankMaps;    ///< path → (GPU index/rank → rank)
        std::string timeZone;                                        ///< zone of zone-less stamps, "" = local
        unsigned threads = 0;                                        ///< 0 = one per core
        std::int64_t maxDecompressedBytes = 0;                       ///< per-file ceiling, 0 = ImportContext's default
        /// Read files imported before from the import cache, and keep what is imported in it.
        bool cache = false;
        std::string cacheDir;                                        ///< "" = SourceCache::defaultDir()
        std::int64_t cacheMaxBytes = 0;                              ///< 0 = SourceCache::kDefaultMaxBytes
    };

    /// What the last run() did with the import cache.
    struct CacheUse {
        std::atomic<int> hits{0};   ///< files read back from the cache
        std::atomic<int> stored{0}; ///< files imported and kept
        std::atomic<int> rejected{0}; ///< cached copies found damaged or unreadable (imported again)
    };
    const CacheUse &cacheUse() const { return m_cacheUse; }

    /// Folders are expanded to the files below them.
    SessionLoader(std::vector<std::string> paths, std::map<std::string, RankId> rankOverrides = {},
                  unsigned threads = 0);
    SessionLoader(std::vector<std::string> paths, const Options &options);

    const std::vector<std::string> &files() const { return m_files; }
    /// Runs the whole load on the calling thread plus worker threads; returns the frozen session
    /// (partial when cancelled). `progress` may be null; if given it must be sized for files().
    SessionPtr run(Progress *progress = nullptr) const;

private:
    std::vector<std::string> m_files;
    std::vector<bool> m_fromFolder; // per file: found in an opened folder (unrecognised ones are skipped)
    std::map<std::string, RankId> m_overrides;
    std::map<std::string, std::map<RankId, RankId>> m_rankMaps;
    std::string m_timeZone;
    unsigned m_threads;
    std::int64_t m_maxDecompressed = 0;
    bool m_cache = false;
    std::string m_cacheDir;
    std::int64_t m_cacheMaxBytes = 0;
    mutable CacheUse m_cacheUse;
};

} // namespace rs
