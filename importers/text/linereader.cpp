#include "linereader.h"

#include <cstring>

namespace rs {

bool LineReader::fill()
{
    if (m_eof)
        return false;
    if (m_begin > 0) {
        std::memmove(m_buf.data(), m_buf.data() + m_begin, m_end - m_begin);
        m_bufOffset += static_cast<std::int64_t>(m_begin);
        m_end -= m_begin;
        m_begin = 0;
    }
    if (m_end == m_buf.size())
        return false; // full: the caller handles the over-long line
    const std::size_t got = m_in.read(m_buf.data() + m_end, m_buf.size() - m_end);
    m_ctx.reportProgress(m_in.compressedBytesRead(), m_in.compressedSize());
    m_end += got;
    if (got == 0 || m_ctx.isCancelled())
        m_eof = true;
    return got > 0;
}

bool LineReader::next(std::string_view &line)
{
    m_truncated = false;
    m_long.clear();
    bool assembling = false;
    std::int64_t start = m_bufOffset + static_cast<std::int64_t>(m_begin);
    for (;;) {
        const char *base = m_buf.data() + m_begin;
        const auto *nl = static_cast<const char *>(std::memchr(base, '\n', m_end - m_begin));
        if (nl) {
            std::size_t len = static_cast<std::size_t>(nl - base);
            std::string_view piece(base, len);
            m_begin += len + 1;
            ++m_lineNo;
            m_lineOffset = start;
            if (assembling) {
                if (m_long.size() < kMaxLine)
                    m_long.append(piece.substr(0, kMaxLine - m_long.size()));
                else
                    m_truncated = true;
                piece = m_long;
            }
            if (!piece.empty() && piece.back() == '\r')
                piece.remove_suffix(1);
            line = piece;
            return true;
        }
        if (m_end - m_begin == m_buf.size() && m_buf.size() < kMaxBuffer) {
            m_buf.resize(m_buf.size() * 2); // a long line: make room before cutting anything
        } else if (m_end - m_begin == m_buf.size()) {
            // The buffer holds one line longer than itself: keep its head, skip the rest.
            if (m_long.size() < kMaxLine)
                m_long.append(m_buf.data() + m_begin, std::min(m_end - m_begin, kMaxLine - m_long.size()));
            else
                m_truncated = true;
            assembling = true;
            m_begin = m_end;
        }
        if (!fill()) {
            if (m_end > m_begin || (assembling && !m_long.empty())) {
                // Last line without a newline.
                std::string_view piece(m_buf.data() + m_begin, m_end - m_begin);
                m_begin = m_end;
                ++m_lineNo;
                m_lineOffset = start;
                if (assembling) {
                    m_long.append(piece.substr(0, kMaxLine > m_long.size() ? kMaxLine - m_long.size() : 0));
                    piece = m_long;
                }
                if (!piece.empty() && piece.back() == '\r')
                    piece.remove_suffix(1);
                line = piece;
                return true;
            }
            return false;
        }
    }
}

} // namespace rs
