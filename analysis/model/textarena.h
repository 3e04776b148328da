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
        if (m_chunks.empty() || m_chunkSizes.back() - m_used < json.size()) {
            const std::size_t next = m_chunkSizes.empty() ? kFirstChunkBytes : std::min(kChunkBytes, m_chunkSizes.back() * 2);
            const std::size_t size = std::max(next, json.size());
            m_chunks.push_back(std::unique_ptr<char[]>(new char[size]));
            m_chunkSizes.push_back(size);
            m_used = 0;
        }
        const auto chunk = static_cast<std::uint32_t>(m_chunks.size() - 1);
        std::copy(json.begin(), json.end(), m_chunks.back().get() + m_used);
        m_entries.push_back({chunk, static_cast<std::uint32_t>(m_used), static_cast<std::uint32_t>(json.size())});
        m_used += json.size();
        return static_cast<TextId>(m_entries.size());
    }

    std::string_view view(TextId id) const
    {
        if (id == kNoText || id > m_entries.size())
            return {};
        const Entry &e = m_entries[id - 1];
        const char *chunk = m_lazy ? m_lazy->chunk(e.chunk, m_chunkSizes[e.chunk]) : m_chunks[e.chunk].get();
        return chunk ? std::string_view(chunk + e.offset, e.length) : std::string_view();
    }

    std::size_t count() const { return m_entries.size(); }
    /// Bytes held in memory (a lazy arena's chunks only once loaded).
    std::size_t memoryBytes() const
    {
        std::size_t n = m_entries.capacity() * sizeof(Entry);
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

    void shrink() { m_entries.shrink_to_fit(); }

private:
    struct Entry {
        std::uint32_t chunk;
        std::uint32_t offset;
        std::uint32_t length;
    };
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

    std::vector<std::unique_ptr<char[]>> m_chunks;
    std::vector<std::size_t> m_chunkSizes;
    std::vector<Entry> m_entries; // id - 1
    std::size_t m_used = 0;       // bytes used in the last chunk
    std::unique_ptr<Lazy> m_lazy; // set for an arena read back lazily
};

} // namespace rs
