#pragma once
// The byte side of RestrictedUnpickler: the bytes of one pickle, pulled from their source a chunk
// (1 MiB) at a time, so at most one chunk plus the few bytes of an opcode that straddles two is held,
// whether the pickle sits in memory or comes out of a compressed file. It knows how many bytes may
// still follow (the source's size when known, the byte cap) so that a length can be refused before
// anything is allocated, and it reports where the data ended: pickle-truncated, pickle-bad-frame
// inside a FRAME that promised more, or pickle-too-large past the cap.

#include "restrictedunpickler.h"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rs {

/// What a load stops with: a stable code, the sentence, and the decompressed byte offset at fault.
struct PickleFailure : std::runtime_error {
    PickleFailure(const char *id, const std::string &what, std::uint64_t at) : std::runtime_error(what), code(id), offset(at) {}
    const char *code;
    std::uint64_t offset;
};

/// "N MiB", for messages about limits.
std::string mebibytes(std::uint64_t bytes);

class PickleInput
{
public:
    static constexpr std::size_t kChunk = std::size_t(1) << 20;
    static constexpr std::size_t kFirstChunk = std::size_t(64) << 10;

    /// Bytes already in memory: read in place, their size known exactly.
    PickleInput(std::string_view whole, std::uint64_t maxBytes);
    /// Bytes pulled from `source` (which must outlive this).
    PickleInput(const RestrictedUnpickler::Source &source, std::uint64_t maxBytes);

    /// Offset of the next byte.
    std::uint64_t pos() const { return m_base + m_at; }
    std::uint64_t maxBytes() const { return m_maxBytes; }
    /// Bytes of the stored (maybe compressed) file consumed so far; pos() for bytes in memory.
    std::uint64_t storedBytes() const
    {
        return m_source && m_source->storedBytes ? m_source->storedBytes() : pos();
    }
    /// The most bytes that can still follow by what the source knows of its size (max when unknown).
    std::uint64_t sizeLeft() const;
    /// The bytes that may still follow before the cap.
    std::uint64_t capLeft() const { return m_maxBytes > pos() ? m_maxBytes - pos() : 0; }

    /// A FRAME of `length` bytes starts here (its opcode at `at`). `strict`: data that ends inside it
    /// is reported as a bad FRAME rather than a truncated opcode.
    void setFrame(std::uint64_t at, std::uint64_t length, bool strict);

    char byte()
    {
        if (m_at == m_view.size() && !fill(1))
            ended(pos());
        return m_view[m_at++];
    }
    /// `n` bytes in one piece; `n` is small (an integer's or float's width, a LONG of at most 4 KiB).
    std::string_view take(std::size_t n);
    /// Appends the next `n` bytes to `out` piece by piece, so memory grows only with data that is
    /// there; a truncation is reported at the offset where those bytes start.
    void appendTo(std::string &out, std::size_t n);

private:
    bool fill(std::size_t n);
    [[noreturn]] void ended(std::uint64_t at) const;

    const RestrictedUnpickler::Source *m_source = nullptr;
    std::vector<char> m_buf;
    std::string_view m_view;      // the bytes at hand: the whole pickle, or the buffer's filled part
    std::size_t m_at = 0;         // next byte in m_view
    std::uint64_t m_base = 0;     // pickle offset of m_view[0]
    std::uint64_t m_fetched = 0;  // bytes taken from the source so far
    std::uint64_t m_sizeBound;
    std::uint64_t m_maxBytes;
    bool m_ended = false;
    bool m_overCap = false;       // the source had more than m_maxBytes
    std::uint64_t m_frameAt = 0, m_frameLength = 0, m_frameEnd = 0;
    bool m_strictFrames = false;
};

} // namespace rs
