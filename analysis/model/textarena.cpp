#include "textarena.h"

#include <algorithm>

namespace rs {

std::vector<std::size_t> TextArena::packChunks(const std::vector<std::uint32_t> &lengths, std::size_t maxBytes)
{
    std::vector<std::size_t> sizes;
    std::size_t current = 0;
    bool open = false;
    for (std::uint32_t n : lengths) {
        if (n == 0)
            continue;
        if (open && current + n > maxBytes) {
            sizes.push_back(current);
            current = 0;
            open = false;
        }
        current += n;
        open = true;
    }
    if (open)
        sizes.push_back(current);
    return sizes;
}

bool TextArena::setLazy(const std::vector<std::uint32_t> &lengths, const std::vector<std::size_t> &chunkSizes,
                        std::shared_ptr<const ChunkLoader> loader)
{
    if (std::find(chunkSizes.begin(), chunkSizes.end(), std::size_t(0)) != chunkSizes.end())
        return false; // every chunk holds at least one entry
    std::vector<std::uint32_t> offsets, first;
    offsets.reserve(lengths.size());
    std::uint32_t chunk = 0;
    std::size_t offset = 0;
    for (std::uint32_t n : lengths) {
        if (n == 0)
            return false; // empty texts are kNoText, never an entry
        if (chunk < chunkSizes.size() && offset + n > chunkSizes[chunk]) {
            if (offset != chunkSizes[chunk])
                return false; // the chunk's size is not a whole number of entries
            ++chunk;
            offset = 0;
        }
        if (chunk >= chunkSizes.size() || offset + n > chunkSizes[chunk])
            return false;
        if (offset == 0)
            first.push_back(static_cast<std::uint32_t>(offsets.size()));
        offsets.push_back(static_cast<std::uint32_t>(offset));
        offset += n;
    }
    if (!chunkSizes.empty() && (chunk + 1 != chunkSizes.size() || offset != chunkSizes.back()))
        return false;
    m_chunks.clear();
    m_offsets = std::move(offsets);
    m_chunkFirst = std::move(first);
    m_chunkSizes = chunkSizes;
    m_chunkUsed = chunkSizes;
    m_lazy = std::make_unique<Lazy>();
    m_lazy->loader = std::move(loader);
    m_lazy->chunks.resize(chunkSizes.size());
    m_lazy->ready.reset(new std::atomic<const char *>[chunkSizes.size()]);
    m_lazy->failed.reset(new std::atomic<bool>[chunkSizes.size()]);
    for (std::size_t i = 0; i < chunkSizes.size(); ++i) {
        m_lazy->ready[i] = nullptr;
        m_lazy->failed[i] = false;
    }
    return true;
}

const char *TextArena::Lazy::chunk(std::uint32_t index, std::size_t bytes)
{
    if (const char *p = ready[index].load(std::memory_order_acquire))
        return p;
    if (failed[index].load(std::memory_order_acquire))
        return nullptr;
    std::lock_guard guard(lock);
    if (const char *p = ready[index].load(std::memory_order_relaxed))
        return p;
    std::unique_ptr<char[]> data = loader ? loader->load(index, bytes) : nullptr;
    if (!data) {
        failed[index].store(true, std::memory_order_release);
        return nullptr;
    }
    chunks[index] = std::move(data);
    loadedBytes += bytes;
    ready[index].store(chunks[index].get(), std::memory_order_release);
    return chunks[index].get();
}

} // namespace rs

namespace rs {

std::size_t TextArena::failedChunks() const
{
    if (!m_lazy)
        return 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < m_chunkSizes.size(); ++i)
        n += m_lazy->failed[i].load(std::memory_order_acquire) ? 1 : 0;
    return n;
}

} // namespace rs
