#pragma once
// A finished SourceBuilder as named columns and back: what the import cache (SourceCache) stores.
// Bulk data — each track's spans, instants and counter samples, the string pool and the args
// arena — are raw little-endian arrays of the model's fixed-size records; everything with text or
// nesting (the source's description and diagnostics, steps, collectives, OOMs, memory summaries,
// log, allocator, GPU and flight-recorder evidence, the tracks' own fields) is one CBOR document
// (RFC 8949) written by nlohmann_json. Each column is zstd-compressed in blocks with zstd's frame
// checksum, so a damaged column is detected on reading and the entry is re-imported, never used.

#include "sourcebuilder.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace rs {

class SourceArchive
{
public:
    /// One stored column: its name, its uncompressed size, its zstd frames (one per block).
    struct Column {
        std::string name;                     ///< "meta", "strings.len", "t12.spans", ...
        std::uint64_t rawBytes = 0;           ///< bytes once decompressed
        std::vector<std::string> blocks;      ///< zstd frames, each at most kBlockBytes raw (args: whole entries)
        std::vector<std::uint64_t> blockRaw;  ///< bytes of each block once decompressed
    };
    /// The columns of texts a cache may leave out and load block by block later: the args' JSON
    /// and the log records' messages.
    static constexpr const char *kArgsData = "args.data";
    static constexpr const char *kLogsData = "logs.data";
    static const std::vector<std::string> &lazyColumns();

    /// Raw bytes per zstd block: large enough to compress well, small enough to stream.
    static constexpr std::size_t kBlockBytes = 8u << 20;
    /// Raw bytes per block of log messages: a rule that reads one record loads its block, so
    /// smaller blocks keep a reopened log's memory close to what was read.
    static constexpr std::size_t kLogBlockBytes = 1u << 20;
    /// Changes whenever the columns or the records' layout change; part of every cache key.
    static std::string layoutId();
    /// Earlier layouts still readable, newest first. rankscope-source/3: log messages inline in the
    /// meta document instead of a logs column; /2: also no flows column and no flow counts (its
    /// sources come back without flows). Summaries made by those releases need not be made again;
    /// cache entries of them are never looked up (the layout is part of the key).
    static std::vector<std::string> previousLayoutIds();
    /// Whether read() takes columns written with layout `id`.
    static bool readsLayout(const std::string &id);

    /// The columns of `source` (finished: sorted and nested, as importFile returns it).
    static std::vector<Column> write(const SourceBuilder &source);
    /// Where read() finds columns: in memory (a write()'s result) or in the cache's database,
    /// decompressed straight into the model's vectors.
    class ColumnSource
    {
    public:
        virtual ~ColumnSource() = default;
        virtual bool has(const std::string &name) const = 0;
        /// Bytes of the column once decompressed; throws when it is missing.
        virtual std::uint64_t rawBytes(const std::string &name) const = 0;
        /// Decompresses the column into `out` (rawBytes long); throws when it is missing or damaged.
        virtual void read(const std::string &name, char *out) const = 0;
    };
    /// A text column left out of the ColumnSource: its blocks come from `loader` when an entry is
    /// first viewed (block i of the column is the arena's chunk i), with sizes `blockRaw`.
    struct LazyColumn {
        std::shared_ptr<const TextArena::ChunkLoader> loader;
        std::vector<std::uint64_t> blockRaw;
    };
    /// Lazy text columns by name (kArgsData, kLogsData).
    using LazyColumns = std::map<std::string, LazyColumn, std::less<>>;

    /// The source back from `columns`, or nothing (with `error` set) when a column is missing,
    /// damaged or of another layout. A text column of lazyColumns() missing from `columns` makes a
    /// lazy arena over `lazy`'s entry of that name.
    static std::optional<SourceBuilder> read(const ColumnSource &columns, std::string *error = nullptr,
                                             const LazyColumns &lazy = {});
    static std::optional<SourceBuilder> read(const std::vector<Column> &columns, std::string *error = nullptr,
                                             const LazyColumns &lazy = {});
    /// Replaces `source`'s args and log messages, held in memory, by lazy arenas over the same
    /// entries whose chunks come from `loaderOf(column)` (the columns write() made of them).
    static void releaseTexts(SourceBuilder &source,
                             const std::function<std::shared_ptr<const TextArena::ChunkLoader>(const std::string &column)> &loaderOf);
    /// Decompresses one block (a zstd frame) of `raw` bytes into `out`; false when damaged.
    static bool decompressBlock(std::string_view frame, char *out, std::size_t raw);
};

} // namespace rs
