#pragma once
// Where generated text goes: a plain file or a gzip stream. Writes are buffered here so callers
// can hand over one event at a time; errors throw, since a generator that silently writes half a
// file would be worse than one that stops.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

typedef struct z_stream_s z_stream;

namespace rs {

class TraceSink
{
public:
    enum class Kind { Plain, Gzip };

    /// Opens `path` for writing; `gzipLevel` (1..9) applies to Kind::Gzip. Throws std::runtime_error.
    TraceSink(const std::filesystem::path &path, Kind kind, int gzipLevel = 9);
    ~TraceSink();
    TraceSink(const TraceSink &) = delete;
    TraceSink &operator=(const TraceSink &) = delete;

    void write(std::string_view text);
    /// Flushes and closes the file; throws on an I/O error. The destructor closes quietly.
    void close();

    /// Uncompressed bytes accepted so far.
    std::uint64_t bytesIn() const { return m_bytesIn; }
    /// Bytes that reached the file so far (compressed size for gzip).
    std::uint64_t bytesOut() const { return m_bytesOut; }
    const std::filesystem::path &path() const { return m_path; }
    /// Chooses Gzip for names ending in ".gz", Plain otherwise.
    static Kind kindFor(const std::filesystem::path &path);

private:
    void flushBuffer(bool finish);
    void writeFile(const char *data, std::size_t n);

    std::filesystem::path m_path;
    Kind m_kind;
    std::FILE *m_file = nullptr;
    std::unique_ptr<z_stream> m_zs;
    std::string m_buffer;      // uncompressed text waiting to be written or deflated
    std::string m_deflated;    // scratch output of deflate
    std::uint64_t m_bytesIn = 0;
    std::uint64_t m_bytesOut = 0;
    bool m_closed = false;
};

} // namespace rs
