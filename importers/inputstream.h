#pragma once
// A byte stream over a file that undoes gzip or zstd transparently (recognised by magic bytes, not
// by extension), with a peek buffer for sniffing and counters for progress.

#include "source.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rs {

class InputStream
{
public:
    virtual ~InputStream() = default;

    /// Opens `path`; on failure returns nullptr and sets `error` to a sentence naming the cause.
    /// Only regular files open: a FIFO, device, socket or directory is refused without blocking
    /// ("not a regular file (FIFO)").
    static std::unique_ptr<InputStream> open(const std::string &path, std::string *error);
    /// "" when `path` is a regular file (symlinks followed), else why not: "not a regular file
    /// (FIFO)", "cannot open: ...". Looks without opening, so it never blocks.
    static std::string notRegular(const std::string &path);
    /// A stream over bytes in memory (tests, fuzzers). The bytes may be compressed.
    static std::unique_ptr<InputStream> fromMemory(std::string bytes, std::string *error);

    /// Reads up to `n` decompressed bytes; returns 0 at the end. On a decompression error returns 0
    /// and sets error().
    std::size_t read(char *dst, std::size_t n);
    /// The first `n` decompressed bytes (fewer at end of stream) without consuming them.
    std::string_view peek(std::size_t n);

    Compression compression() const { return m_compression; }
    /// Bytes of the underlying file consumed so far (compressed bytes), for progress.
    std::int64_t compressedBytesRead() const { return m_compressedRead; }
    /// Size of the underlying file.
    std::int64_t compressedSize() const { return m_compressedSize; }
    /// Decompressed bytes handed out by read() so far (offsets in diagnostics use this).
    std::int64_t position() const { return m_position; }
    /// Non-empty after a read error (corrupt or truncated compressed data, or more decompressed
    /// bytes than the limit).
    const std::string &error() const { return m_error; }
    /// Non-empty when the file's size changed while it was read (a log still being written).
    const std::string &changed() const { return m_changed; }
    /// The most decompressed bytes read() hands out (0: no limit); the stream ends there with an
    /// error() naming the decompressed offset. Set before reading.
    void setLimit(std::int64_t bytes) { m_limit = bytes; }
    std::int64_t limit() const { return m_limit; }
    /// True once the stream stopped at the limit with data left.
    bool limitReached() const { return m_limitReached; }
    /// Default of the limit: far above any real trace, below what fills a disk or a day.
    static constexpr std::int64_t kDefaultLimit = 64LL << 30;

protected:
    /// Implementations fill `dst` with decompressed bytes; return 0 at end or on error.
    virtual std::size_t readRaw(char *dst, std::size_t n) = 0;
    void setError(std::string e) { if (m_error.empty()) m_error = std::move(e); }
    void setChanged(std::string c) { if (m_changed.empty()) m_changed = std::move(c); }
    static std::string kindProblem(unsigned mode);

    Compression m_compression = Compression::None;
    std::int64_t m_compressedRead = 0;
    std::int64_t m_compressedSize = 0;

private:
    std::string m_peek;       // decompressed bytes read ahead by peek()
    std::size_t m_peekPos = 0;
    std::int64_t m_position = 0;
    std::int64_t m_limit = kDefaultLimit;
    bool m_limitReached = false;
    std::string m_error;
    std::string m_changed;
};

} // namespace rs
