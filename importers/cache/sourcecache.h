#pragma once
// The import cache: each source's finished model (SourceArchive's columns) kept in one SQLite
// database in the user's cache folder ($XDG_CACHE_HOME/rankscope, else ~/.cache/rankscope), so a
// file opened again is read back instead of parsed. An entry's key is the file's size, mtime and a
// sampled content hash, the import settings that change what is read (time zone, decompression
// ceiling), the model's layout and the identity of the program that imported it. Entries are
// evicted least recently used beyond a size limit. Anything unreadable — a damaged column, another
// layout, a broken database — is a miss: the file is imported again and the entry rewritten.
// Safe to use from several threads and processes at once (one connection per call, WAL journal).

#include "sourcebuilder.h"

#include <cstdint>
#include <optional>
#include <string>

namespace rs {

class SourceCache
{
public:
    static constexpr std::int64_t kDefaultMaxBytes = 20LL << 30; ///< 20 GiB

    /// A cache in `dir` (created when needed) holding at most `maxBytes` of compressed columns.
    explicit SourceCache(std::string dir = defaultDir(), std::int64_t maxBytes = kDefaultMaxBytes);

    /// $XDG_CACHE_HOME/rankscope, else $HOME/.cache/rankscope.
    static std::string defaultDir();
    /// The key of `path` read with `settings`; empty when the file cannot be keyed (unreadable,
    /// not a regular file).
    static std::string keyOf(const std::string &path, const std::string &settings);

    /// The source kept under `key` (keyOf(path, settings)), its path set to `path`; nothing on a
    /// miss or an empty key. `why` (may be null) says why an entry that exists was not used.
    std::optional<SourceBuilder> load(const std::string &key, const std::string &path, std::string *why = nullptr) const;
    /// Keeps `source` (imported from `path`) under `key`, the key load() missed, so the file is
    /// sampled once per import and an entry never mixes two versions of it. Then evicts the least recently used
    /// entries beyond the limit. False (with `why`) when it could not be written. Once kept, the
    /// source's args leave memory: they are read back from the cache when viewed, as after load().
    bool store(const std::string &key, const std::string &path, SourceBuilder &source, std::string *why = nullptr) const;

    struct Stats {
        std::int64_t entries = 0;
        std::int64_t bytes = 0; ///< compressed bytes of the columns
    };
    Stats stats() const;
    /// Evicts least recently used entries until the cache is within its limit (after the limit was
    /// lowered). False with `why` when the database could not be changed.
    bool trim(std::string *why = nullptr) const;
    /// Removes every entry (the database file too). False with `why` when it could not.
    bool clear(std::string *why = nullptr) const;

    const std::string &dir() const { return m_dir; }
    std::int64_t maxBytes() const { return m_maxBytes; }
    std::string databasePath() const;

private:
    std::string m_dir;
    std::int64_t m_maxBytes;
};

} // namespace rs
