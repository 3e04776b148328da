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
    /// The column of the args' text, which a cache may leave out and load block by block later.
    static constexpr const char *kArgsData = "args.data";

    /// Raw bytes per zstd block: large enough to compress well, small enough to stream.
    static constexpr std::size_t kBlockBytes = 8u << 20;
    /// Changes whenever the columns or the records' layout change; part of every cache key.
    static std::string layoutId();
    /// The layout before this one (rankscope-source/2: the same records, no flows column and no
    /// flow counts), still readable: its sources come back without flows. Summaries made by the
    /// release before flows need not be made again; a cache entry of it is never looked up (the
    /// layout is part of the key).
    static std::string previousLayoutId();
    /// Whether read() takes columns written with layout `id`.
    static bool readsLayout(const std::string &id) { return id == layoutId() || id == previousLayoutId(); }

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
    static std::optional<SourceBuilder> read(const ColumnSource &columns, std::string *error = nullptr,
                                             std::shared_ptr<const ArgsArena::ChunkLoader> argsBlocks = nullptr,
                                             const std::vector<std::uint64_t> &argsBlockRaw = {});

    /// The source back from `columns`, or nothing (with `error` set) when a column is missing,
    /// damaged or of another layout. Without an args.data column the args arena is lazy: its
    /// blocks come from `argsBlocks` when an entry is first viewed (block i of the column is the
    /// arena's chunk i), with sizes from `argsBlockRaw`.
    static std::optional<SourceBuilder> read(const std::vector<Column> &columns, std::string *error = nullptr,
                                             std::shared_ptr<const ArgsArena::ChunkLoader> argsBlocks = nullptr,
                                             const std::vector<std::uint64_t> &argsBlockRaw = {});
    /// Replaces `source`'s args arena, held in memory, by a lazy one over the same entries whose
    /// chunks come from `argsBlocks` (the args.data column write() made of it).
    static void releaseArgs(SourceBuilder &source, std::shared_ptr<const ArgsArena::ChunkLoader> argsBlocks);
    /// Decompresses one block (a zstd frame) of `raw` bytes into `out`; false when damaged.
    static bool decompressBlock(std::string_view frame, char *out, std::size_t raw);
};

} // namespace rs
