#include "pickleinput.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace rs {

std::string mebibytes(std::uint64_t bytes)
{
    return std::to_string(bytes >> 20) + " MiB";
}

PickleInput::PickleInput(std::string_view whole, std::uint64_t maxBytes)
    : m_view(whole.substr(0, std::size_t(std::min<std::uint64_t>(whole.size(), maxBytes))))
    , m_sizeBound(whole.size())
    , m_maxBytes(maxBytes)
    , m_ended(true)
    , m_overCap(whole.size() > maxBytes)
{
}

PickleInput::PickleInput(const RestrictedUnpickler::Source &source, std::uint64_t maxBytes)
    : m_source(&source), m_sizeBound(source.sizeBound), m_maxBytes(maxBytes)
{
    // Small first: most pickles a fuzzer or a test feeds are tiny, and zeroing a chunk per load showed.
    m_buf.resize(kFirstChunk);
    m_view = std::string_view(m_buf.data(), 0);
}

std::uint64_t PickleInput::sizeLeft() const
{
    // A file that grew while it was read is past its size: only the end of the data tells then.
    return m_sizeBound >= pos() ? m_sizeBound - pos() : std::numeric_limits<std::uint64_t>::max();
}

void PickleInput::setFrame(std::uint64_t at, std::uint64_t length, bool strict)
{
    m_frameAt = at;
    m_frameLength = length;
    m_frameEnd = length > std::numeric_limits<std::uint64_t>::max() - pos() ? std::numeric_limits<std::uint64_t>::max()
                                                                              : pos() + length;
    m_strictFrames = strict;
}

std::string_view PickleInput::take(std::size_t n)
{
    if (m_view.size() - m_at < n && !fill(n))
        ended(pos());
    const auto s = m_view.substr(m_at, n);
    m_at += n;
    return s;
}

void PickleInput::appendTo(std::string &out, std::size_t n)
{
    const std::uint64_t start = pos();
    const std::size_t final = out.size() + n;
    while (n > 0) {
        if (m_at == m_view.size() && !fill(1))
            ended(start);
        const std::size_t k = std::min(n, m_view.size() - m_at);
        // Doubling while the data keeps coming, then one step to the announced length: the last copy
        // is of at most half the string, and the string never holds more room than it announced.
        if (out.capacity() < out.size() + k) {
            std::size_t room = std::max(out.size() + k, 2 * out.capacity());
            if (room >= final / 2)
                room = final;
            out.reserve(room);
        }
        out.append(m_view.data() + m_at, k);
        m_at += k;
        n -= k;
    }
}

// Makes `n` bytes available from m_at on (n is at most a chunk); false at the end of the data.
bool PickleInput::fill(std::size_t n)
{
    if (!m_source)
        return false;
    if (m_at > 0) {
        const std::size_t rest = m_view.size() - m_at;
        std::memmove(m_buf.data(), m_buf.data() + m_at, rest);
        m_base += m_at;
        m_at = 0;
        m_view = std::string_view(m_buf.data(), rest);
    }
    std::size_t have = m_view.size();
    // Grow towards kChunk once the source has filled the buffer; always fit the n bytes asked for.
    const std::size_t want = std::max(n, m_fetched >= m_buf.size() ? std::min(m_buf.size() * 2, kChunk) : m_buf.size());
    if (want > m_buf.size()) {
        m_buf.resize(want);
        m_view = std::string_view(m_buf.data(), have);
    }
    while (have < n && !m_ended) {
        const std::uint64_t allowed = std::min<std::uint64_t>(m_buf.size() - have, m_maxBytes - m_fetched);
        if (allowed == 0) {
            // At the cap: one byte more tells "ends exactly here" from "too large".
            char probe = 0;
            m_overCap = m_source->read(&probe, 1) == 1;
            m_ended = true;
        } else {
            const std::size_t got = m_source->read(m_buf.data() + have, std::size_t(allowed));
            m_fetched += got;
            have += got;
            m_ended = got == 0;
        }
        m_view = std::string_view(m_buf.data(), have);
        if (m_source->poll && !m_source->poll())
            throw PickleFailure("pickle-cancelled", "reading the pickle was cancelled", pos());
    }
    return have >= n;
}

void PickleInput::ended(std::uint64_t at) const
{
    if (m_overCap)
        throw PickleFailure("pickle-too-large",
                            "pickle is larger than " + mebibytes(m_maxBytes) + " once decompressed; it is not read past that",
                            m_maxBytes);
    if (m_strictFrames && pos() < m_frameEnd)
        throw PickleFailure("pickle-bad-frame",
                            "pickle FRAME announces " + std::to_string(m_frameLength) + " bytes but the data ends "
                                + std::to_string(m_frameLength - (m_frameEnd - pos())) + " bytes into it (truncated or corrupt file)",
                            m_frameAt);
    throw PickleFailure("pickle-truncated", "pickle ends early (truncated file)", at);
}

} // namespace rs
