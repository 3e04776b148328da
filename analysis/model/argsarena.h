#pragma once
// Raw args of events, kept as compact JSON text so the details panel can show every key without
// the importer deciding in advance which keys matter. One arena per source.
//
// The text lives in fixed-size chunks that never move: growing the arena neither doubles a buffer
// nor copies what is stored, so a trace's peak memory stays close to the args it really holds.

#include "types.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace rs {

class ArgsArena
{
public:
    static constexpr std::size_t kFirstChunkBytes = 64u << 10;
    static constexpr std::size_t kChunkBytes = 4u << 20;

    /// Stores `json` (already compact) and returns its id; an empty text returns kNoArgs.
    ArgsId add(std::string_view json)
    {
        if (json.empty())
            return kNoArgs;
        if (m_chunks.empty() || m_chunkSizes.back() - m_used < json.size()) {
            // Chunks start small (many sources hold few args) and double up to kChunkBytes; a blob
            // larger than that gets a chunk of its own. new char[] leaves pages untouched until used.
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
        return static_cast<ArgsId>(m_entries.size());
    }
    /// The JSON text of `id`, "" for kNoArgs or an unknown id.
    std::string_view view(ArgsId id) const
    {
        if (id == kNoArgs || id > m_entries.size())
            return {};
        const Entry &e = m_entries[id - 1];
        return std::string_view(m_chunks[e.chunk].get() + e.offset, e.length);
    }
    std::size_t count() const { return m_entries.size(); }
    std::size_t memoryBytes() const
    {
        std::size_t n = m_entries.capacity() * sizeof(Entry);
        for (std::size_t s : m_chunkSizes)
            n += s;
        return n;
    }
    /// Releases the slack of the entry index (the chunks themselves never move).
    void shrink() { m_entries.shrink_to_fit(); }

private:
    struct Entry {
        std::uint32_t chunk;
        std::uint32_t offset;
        std::uint32_t length;
    };
    std::vector<std::unique_ptr<char[]>> m_chunks;
    std::vector<std::size_t> m_chunkSizes;
    std::vector<Entry> m_entries; // id - 1
    std::size_t m_used = 0;       // bytes used in the last chunk
};

} // namespace rs
