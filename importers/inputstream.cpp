#include "inputstream.h"

#include <zlib.h>
#include <zstd.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace rs {

namespace {

constexpr std::size_t kRawChunk = 1 << 20;

// The compressed bytes come either from a FILE or from memory.
class ByteSource
{
public:
    virtual ~ByteSource() = default;
    virtual std::size_t read(char *dst, std::size_t n) = 0;
    virtual bool failed() const { return false; }
    /// After the end: a sentence when the source's size changed while it was read, else "".
    virtual std::string changed() const { return {}; }
};

class FileSource final : public ByteSource
{
public:
    FileSource(std::FILE *f, std::int64_t size) : m_f(f), m_size(size) {}
    ~FileSource() override { std::fclose(m_f); }
    std::size_t read(char *dst, std::size_t n) override
    {
        const std::size_t k = std::fread(dst, 1, n, m_f);
        m_read += static_cast<std::int64_t>(k);
        return k;
    }
    bool failed() const override { return std::ferror(m_f) != 0; }
    // A log still being written, or a file truncated by its writer, is not what was opened.
    std::string changed() const override
    {
        if (m_read > m_size)
            return "the file grew while it was read (" + std::to_string(m_size) + " bytes when opened, "
                + std::to_string(m_read) + " read): what was read past its size was kept";
        if (m_read < m_size && !std::ferror(m_f))
            return "the file shrank while it was read (" + std::to_string(m_size) + " bytes when opened, only "
                + std::to_string(m_read) + " could be read)";
        return {};
    }

private:
    std::FILE *m_f;
    std::int64_t m_size = 0;
    std::int64_t m_read = 0;
};

class MemorySource final : public ByteSource
{
public:
    explicit MemorySource(std::string bytes) : m_bytes(std::move(bytes)) {}
    std::size_t read(char *dst, std::size_t n) override
    {
        const std::size_t k = std::min(n, m_bytes.size() - m_pos);
        std::memcpy(dst, m_bytes.data() + m_pos, k);
        m_pos += k;
        return k;
    }

private:
    std::string m_bytes;
    std::size_t m_pos = 0;
};

// Base for the three stream kinds: holds the byte source and the first bytes read for sniffing.
class RawStream : public InputStream
{
public:
    RawStream(std::unique_ptr<ByteSource> src, std::string head, std::int64_t size)
        : m_src(std::move(src)), m_head(std::move(head))
    {
        m_compressedSize = size;
    }

protected:
    std::size_t pull(char *dst, std::size_t n)
    {
        std::size_t k = 0;
        if (m_headPos < m_head.size()) {
            k = std::min(n, m_head.size() - m_headPos);
            std::memcpy(dst, m_head.data() + m_headPos, k);
            m_headPos += k;
        } else {
            k = m_src->read(dst, n);
            if (k == 0 && m_src->failed())
                setError(std::string("read error: ") + std::strerror(errno));
            if (k == 0 && n > 0)
                setChanged(m_src->changed());
        }
        m_compressedRead += static_cast<std::int64_t>(k);
        return k;
    }

private:
    std::unique_ptr<ByteSource> m_src;
    std::string m_head;
    std::size_t m_headPos = 0;
};

class PlainStream final : public RawStream
{
public:
    using RawStream::RawStream;
    std::size_t readRaw(char *dst, std::size_t n) override { return pull(dst, n); }
};

class GzipStream final : public RawStream
{
public:
    GzipStream(std::unique_ptr<ByteSource> src, std::string head, std::int64_t size)
        : RawStream(std::move(src), std::move(head), size), m_in(kRawChunk)
    {
        m_compression = Compression::Gzip;
        std::memset(&m_z, 0, sizeof(m_z));
        // 15 + 32: zlib detects gzip or zlib headers itself.
        m_ok = inflateInit2(&m_z, 15 + 32) == Z_OK;
        if (!m_ok)
            setError("cannot initialise the gzip decoder");
    }
    ~GzipStream() override { inflateEnd(&m_z); }

    std::size_t readRaw(char *dst, std::size_t n) override
    {
        if (!m_ok)
            return 0;
        m_z.next_out = reinterpret_cast<Bytef *>(dst);
        m_z.avail_out = static_cast<uInt>(n);
        while (m_z.avail_out > 0) {
            if (m_z.avail_in == 0) {
                const std::size_t k = pull(m_in.data(), m_in.size());
                if (k == 0) {
                    // End of file: clean only when the last member was complete.
                    if (!m_memberEnded)
                        setError("gzip data is truncated (the file ends inside the compressed stream)");
                    m_ok = false;
                    break;
                }
                m_z.next_in = reinterpret_cast<Bytef *>(m_in.data());
                m_z.avail_in = static_cast<uInt>(k);
            }
            if (m_memberEnded) {
                // More bytes after a member: gzip allows concatenated members (gzip -c a b > c).
                inflateReset(&m_z);
                m_memberEnded = false;
            }
            const int rc = inflate(&m_z, Z_NO_FLUSH);
            if (rc == Z_STREAM_END) {
                m_memberEnded = true;
            } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
                setError(std::string("gzip data is corrupt: ") + (m_z.msg ? m_z.msg : "inflate failed"));
                m_ok = false;
                break;
            }
        }
        return n - m_z.avail_out;
    }

private:
    z_stream m_z;
    std::vector<char> m_in;
    bool m_ok = false;
    bool m_memberEnded = false;
};

class ZstdStream final : public RawStream
{
public:
    ZstdStream(std::unique_ptr<ByteSource> src, std::string head, std::int64_t size)
        : RawStream(std::move(src), std::move(head), size), m_in(ZSTD_DStreamInSize())
    {
        m_compression = Compression::Zstd;
        m_ds = ZSTD_createDStream();
        ZSTD_initDStream(m_ds);
    }
    ~ZstdStream() override { ZSTD_freeDStream(m_ds); }

    std::size_t readRaw(char *dst, std::size_t n) override
    {
        ZSTD_outBuffer out{dst, n, 0};
        while (out.pos < out.size && !m_done) {
            if (m_inBuf.pos == m_inBuf.size) {
                const std::size_t k = pull(m_in.data(), m_in.size());
                if (k == 0) {
                    if (m_lastRet != 0)
                        setError("zstd data is truncated (the file ends inside a frame)");
                    m_done = true;
                    break;
                }
                m_inBuf = {m_in.data(), k, 0};
            }
            const std::size_t ret = ZSTD_decompressStream(m_ds, &out, &m_inBuf);
            if (ZSTD_isError(ret)) {
                setError(std::string("zstd data is corrupt: ") + ZSTD_getErrorName(ret));
                m_done = true;
                break;
            }
            m_lastRet = ret;
        }
        return out.pos;
    }

private:
    ZSTD_DStream *m_ds = nullptr;
    std::vector<char> m_in;
    ZSTD_inBuffer m_inBuf{nullptr, 0, 0};
    std::size_t m_lastRet = 0;
    bool m_done = false;
};

std::unique_ptr<InputStream> makeStream(std::unique_ptr<ByteSource> src, std::int64_t size)
{
    std::string head(4, '\0');
    head.resize(src->read(head.data(), head.size()));
    const auto *u = reinterpret_cast<const unsigned char *>(head.data());
    if (head.size() >= 2 && u[0] == 0x1f && u[1] == 0x8b)
        return std::make_unique<GzipStream>(std::move(src), std::move(head), size);
    if (head.size() >= 4 && u[0] == 0x28 && u[1] == 0xb5 && u[2] == 0x2f && u[3] == 0xfd)
        return std::make_unique<ZstdStream>(std::move(src), std::move(head), size);
    return std::make_unique<PlainStream>(std::move(src), std::move(head), size);
}

} // namespace

std::string InputStream::notRegular(const std::string &path)
{
    struct stat st{};
    if (::stat(path.c_str(), &st) != 0)
        return std::string("cannot open: ") + std::strerror(errno);
    return kindProblem(st.st_mode);
}

std::string InputStream::kindProblem(unsigned mode)
{
    if (S_ISREG(mode))
        return {};
    const char *kind = S_ISFIFO(mode) ? "FIFO"
        : S_ISDIR(mode)              ? "directory"
        : S_ISCHR(mode)              ? "character device"
        : S_ISBLK(mode)              ? "block device"
        : S_ISSOCK(mode)             ? "socket"
                                     : "special file";
    return std::string("not a regular file (") + kind + ")";
}

std::unique_ptr<InputStream> InputStream::open(const std::string &path, std::string *error)
{
    // O_NONBLOCK: opening a FIFO for reading must not wait for a writer. The kind is checked on the
    // descriptor itself, so a path swapped between a check and the open cannot slip through.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (error)
            *error = std::string("cannot open: ") + std::strerror(errno);
        return nullptr;
    }
    struct stat st{};
    std::string problem = ::fstat(fd, &st) != 0 ? std::string("cannot stat: ") + std::strerror(errno) : kindProblem(st.st_mode);
    if (!problem.empty()) {
        ::close(fd);
        if (error)
            *error = std::move(problem);
        return nullptr;
    }
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    std::FILE *f = ::fdopen(fd, "rb");
    if (!f) {
        ::close(fd);
        if (error)
            *error = std::string("cannot open: ") + std::strerror(errno);
        return nullptr;
    }
    const auto size = static_cast<std::int64_t>(st.st_size);
    return makeStream(std::make_unique<FileSource>(f, size), size);
}

std::unique_ptr<InputStream> InputStream::fromMemory(std::string bytes, std::string *)
{
    const auto size = static_cast<std::int64_t>(bytes.size());
    return makeStream(std::make_unique<MemorySource>(std::move(bytes)), size);
}

std::size_t InputStream::read(char *dst, std::size_t n)
{
    // The ceiling on decompressed bytes: a bomb stops here, reported, instead of filling memory or
    // running for minutes.
    if (m_limit > 0) {
        const std::int64_t room = m_limit - m_position;
        if (room <= 0) {
            char probe = 0;
            if (m_error.empty() && (m_peekPos < m_peek.size() || readRaw(&probe, 1) == 1)) {
                m_limitReached = true;
                setError("more than " + std::to_string(m_limit) + " bytes after decompression, the limit per file: the "
                         "rest was not read (stopped at decompressed offset " + std::to_string(m_limit) + ")");
            }
            return 0;
        }
        n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(n), room));
    }
    std::size_t k = 0;
    if (m_peekPos < m_peek.size()) {
        k = std::min(n, m_peek.size() - m_peekPos);
        std::memcpy(dst, m_peek.data() + m_peekPos, k);
        m_peekPos += k;
        if (m_peekPos == m_peek.size()) {
            m_peek.clear();
            m_peekPos = 0;
        }
    }
    while (k < n) {
        const std::size_t got = readRaw(dst + k, n - k);
        if (got == 0)
            break;
        k += got;
    }
    m_position += static_cast<std::int64_t>(k);
    return k;
}

std::string_view InputStream::peek(std::size_t n)
{
    // Peeking only ever happens before the first read, so the buffer starts at the stream start.
    if (m_limit > 0)
        n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(n), m_limit));
    while (m_peek.size() - m_peekPos < n) {
        const std::size_t have = m_peek.size();
        // Grow by doubling, not to `n` at once: a sniffer asking for MiBs of a 2 KB file should not
        // zero MiBs (that dominated small imports).
        m_peek.resize(std::min(m_peekPos + n, std::max<std::size_t>(have * 2, 64 << 10)));
        const std::size_t got = readRaw(m_peek.data() + have, m_peek.size() - have);
        m_peek.resize(have + got);
        if (got == 0)
            break;
    }
    return std::string_view(m_peek).substr(m_peekPos, std::min(n, m_peek.size() - m_peekPos));
}

} // namespace rs
