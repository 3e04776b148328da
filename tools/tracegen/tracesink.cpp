#include "tracesink.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rs {

namespace {
constexpr std::size_t kBufferBytes = 1 << 20;

std::runtime_error ioError(const std::filesystem::path &path, const char *what)
{
    return std::runtime_error(path.string() + ": " + what + ": " + std::strerror(errno));
}
} // namespace

TraceSink::TraceSink(const std::filesystem::path &path, Kind kind, int gzipLevel)
    : m_path(path), m_kind(kind)
{
    m_file = std::fopen(path.c_str(), "wb");
    if (!m_file)
        throw ioError(path, "cannot create");
    m_buffer.reserve(kBufferBytes + 64 * 1024);
    if (m_kind == Kind::Gzip) {
        m_zs = std::make_unique<z_stream>();
        std::memset(m_zs.get(), 0, sizeof(z_stream));
        // windowBits 15 + 16 asks zlib for a gzip header and trailer instead of a zlib wrapper;
        // memLevel 9 buys a little ratio for the committed demo files at no real cost.
        if (deflateInit2(m_zs.get(), gzipLevel, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
            std::fclose(m_file);
            m_file = nullptr;
            throw std::runtime_error(path.string() + ": cannot initialise gzip compression");
        }
        m_deflated.resize(kBufferBytes);
    }
}

TraceSink::~TraceSink()
{
    if (!m_closed) {
        try {
            close();
        } catch (...) {
            // Destructors must not throw; callers that care about errors call close() themselves.
        }
    }
    if (m_zs)
        deflateEnd(m_zs.get());
    if (m_file)
        std::fclose(m_file);
}

TraceSink::Kind TraceSink::kindFor(const std::filesystem::path &path)
{
    return path.extension() == ".gz" ? Kind::Gzip : Kind::Plain;
}

void TraceSink::write(std::string_view text)
{
    if (m_closed)
        throw std::logic_error("TraceSink::write after close");
    m_buffer.append(text);
    m_bytesIn += text.size();
    if (m_buffer.size() >= kBufferBytes)
        flushBuffer(false);
}

void TraceSink::close()
{
    if (m_closed)
        return;
    m_closed = true;
    flushBuffer(true);
    if (std::fflush(m_file) != 0)
        throw ioError(m_path, "cannot write");
    const int rc = std::fclose(m_file);
    m_file = nullptr;
    if (rc != 0)
        throw ioError(m_path, "cannot close");
}

void TraceSink::flushBuffer(bool finish)
{
    if (m_kind == Kind::Plain) {
        writeFile(m_buffer.data(), m_buffer.size());
        m_buffer.clear();
        return;
    }
    z_stream &zs = *m_zs;
    zs.next_in = reinterpret_cast<Bytef *>(m_buffer.data());
    zs.avail_in = static_cast<uInt>(m_buffer.size());
    const int flush = finish ? Z_FINISH : Z_NO_FLUSH;
    int rc = Z_OK;
    do {
        zs.next_out = reinterpret_cast<Bytef *>(m_deflated.data());
        zs.avail_out = static_cast<uInt>(m_deflated.size());
        rc = deflate(&zs, flush);
        if (rc == Z_STREAM_ERROR)
            throw std::runtime_error(m_path.string() + ": gzip compression failed");
        writeFile(m_deflated.data(), m_deflated.size() - zs.avail_out);
    } while (zs.avail_out == 0 || (finish && rc != Z_STREAM_END));
    m_buffer.clear();
}

void TraceSink::writeFile(const char *data, std::size_t n)
{
    if (n == 0)
        return;
    if (std::fwrite(data, 1, n, m_file) != n)
        throw ioError(m_path, "cannot write");
    m_bytesOut += n;
}

} // namespace rs
