#pragma once
// Texts a source holds many of and reads few of at a time, numbered from 1 (0 is the empty text):
// the raw args of events (compact JSON, so the details panel can show every key without the
// importer deciding in advance which keys matter) and the messages of log records. One arena per
// source for each.
//
// The text lives in fixed-size chunks that never move: growing the arena neither doubles a buffer
// nor copies what is stored, so a source's peak memory stays close to the text it really holds, and
// a view stays valid while the arena lives, wherever it is moved.
//
// An arena read back from the import cache is lazy: it knows where every entry lies but loads a
// chunk only when an entry in it is first viewed (the details panel, an export, a metric that
// reads one op's args, a finding rule that reads the records its kind and flags select, a search),
// so reopening a trace or a job log does not bring hundreds of MB of text into memory.

#include "types.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace rs {

class TextArena
{
public:
    static constexpr std::size_t kFirstChunkBytes = 64u << 10;
    static constexpr std::size_t kChunkBytes = 4u << 20;

    /// Where a lazy arena's chunks come from. `load` returns the chunk's bytes (exactly `bytes`
    /// long), or null when they cannot be had any more (the entries then view as empty).
    class ChunkLoader
    {
    public:
        virtual ~ChunkLoader() = default;
        virtual std::unique_ptr<char[]> load(std::uint32_t chunk, std::size_t bytes) const = 0;
    };

    TextArena() = default;
    TextArena(TextArena &&) noexcept = default;
    TextArena &operator=(TextArena &&) noexcept = default;

    /// A lazy arena of entries with `lengths` (in id order) packed into chunks of `chunkSizes`
    /// bytes by packChunks(); false when they do not fit together.
    bool setLazy(const std::vector<std::uint32_t> &lengths, const std::vector<std::size_t> &chunkSizes,
                 std::shared_ptr<const ChunkLoader> loader);
    /// How entries of `lengths` are packed into chunks: in order, a chunk closed before an entry
    /// that would take it past `maxBytes` (an entry larger than that has a chunk of its own).
    static std::vector<std::size_t> packChunks(const std::vector<std::uint32_t> &lengths, std::size_t maxBytes);

    TextId add(std::string_view json)
    {
        if (json.empty())
            return kNoText;
        if (m_chunks.empty() || m_chunkSizes.back() - m_chunkUsed.back() < json.size()) {
            const std::size_t next = m_chunkSizes.empty() ? kFirstChunkBytes : std::min(kChunkBytes, m_chunkSizes.back() * 2);
            const std::size_t size = std::max(next, json.size());
            m_chunks.push_back(std::unique_ptr<char[]>(new char[size]));
            m_chunkSizes.push_back(size);
            m_chunkUsed.push_back(0);
            m_chunkFirst.push_back(static_cast<std::uint32_t>(m_offsets.size()));
        }
        std::size_t &used = m_chunkUsed.back();
        std::copy(json.begin(), json.end(), m_chunks.back().get() + used);
        m_offsets.push_back(static_cast<std::uint32_t>(used));
        used += json.size();
        return static_cast<TextId>(m_offsets.size());
    }

    std::string_view view(TextId id) const
    {
        if (id == kNoText || id > m_offsets.size())
            return {};
        // Every chunk holds at least one entry: the chunk of entry k is the last that starts at or before it.
        const std::uint32_t k = id - 1;
        const auto c = static_cast<std::uint32_t>(std::upper_bound(m_chunkFirst.begin(), m_chunkFirst.end(), k) - m_chunkFirst.begin() - 1);
        const bool lastInChunk = c + 1 == m_chunkFirst.size() ? k + 1 == m_offsets.size() : k + 1 == m_chunkFirst[c + 1];
        const std::size_t begin = m_offsets[k], end = lastInChunk ? m_chunkUsed[c] : m_offsets[k + 1];
        const char *chunk = m_lazy ? m_lazy->chunk(c, m_chunkSizes[c]) : m_chunks[c].get();
        return chunk ? std::string_view(chunk + begin, end - begin) : std::string_view();
    }

    std::size_t count() const { return m_offsets.size(); }
    /// Bytes held in memory (a lazy arena's chunks only once loaded): 4 bytes per entry besides the text.
    std::size_t memoryBytes() const
    {
        std::size_t n = m_offsets.capacity() * sizeof(std::uint32_t) + m_chunkFirst.capacity() * sizeof(std::uint32_t)
            + (m_chunkUsed.capacity() + m_chunkSizes.capacity()) * sizeof(std::size_t);
        if (m_lazy)
            return n + m_lazy->loadedBytes.load();
        for (std::size_t s : m_chunkSizes)
            n += s;
        return n;
    }
    bool isLazy() const { return m_lazy != nullptr; }
    /// Chunks of a lazy arena that could not be loaded (the cache entry was evicted or cleared
    /// since): their entries view as empty.
    std::size_t failedChunks() const;

    void shrink() { m_offsets.shrink_to_fit(); }

private:
    // A lazy arena's chunks, each loaded once on first use, from any thread.
    struct Lazy {
        std::shared_ptr<const ChunkLoader> loader;
        std::vector<std::unique_ptr<char[]>> chunks;
        std::unique_ptr<std::atomic<const char *>[]> ready;
        std::unique_ptr<std::atomic<bool>[]> failed;
        std::mutex lock;
        std::atomic<std::size_t> loadedBytes{0};
        const char *chunk(std::uint32_t index, std::size_t bytes);
    };

    // An entry is its offset in its chunk; it ends where the next entry of the chunk begins, or
    // where the chunk's text ends. 4 bytes per entry: a source can have tens of millions.
    std::vector<std::unique_ptr<char[]>> m_chunks; // held in memory (empty for a lazy arena)
    std::vector<std::size_t> m_chunkSizes;         // bytes allocated (lazy: the chunk's exact size)
    std::vector<std::size_t> m_chunkUsed;          // bytes of text in each chunk
    std::vector<std::uint32_t> m_chunkFirst;       // id - 1 of each chunk's first entry, ascending
    std::vector<std::uint32_t> m_offsets;          // id - 1 → offset in its chunk
    std::unique_ptr<Lazy> m_lazy;                  // set for an arena read back lazily
};

} // namespace rs
