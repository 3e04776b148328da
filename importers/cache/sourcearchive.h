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
#include <optional>
#include <string>
#include <vector>

namespace rs {

class SourceArchive
{
public:
    /// One stored column: its name, its uncompressed size, its zstd frames (one per block).
    struct Column {
        std::string name;                   ///< "meta", "strings.len", "t12.spans", ...
        std::uint64_t rawBytes = 0;         ///< bytes once decompressed
        std::vector<std::string> blocks;    ///< zstd frames, each at most kBlockBytes raw
    };

    /// Raw bytes per zstd block: large enough to compress well, small enough to stream.
    static constexpr std::size_t kBlockBytes = 8u << 20;
    /// Changes whenever the columns or the records' layout change; part of every cache key.
    static std::string layoutId();

    /// The columns of `source` (finished: sorted and nested, as importFile returns it).
    static std::vector<Column> write(const SourceBuilder &source);
    /// The source back from `columns`, or nothing (with `error` set) when a column is missing,
    /// damaged or of another layout.
    static std::optional<SourceBuilder> read(const std::vector<Column> &columns, std::string *error = nullptr);
};

} // namespace rs
