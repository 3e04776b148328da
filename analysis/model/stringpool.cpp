#include "stringpool.h"

namespace rs {

namespace {
constexpr std::size_t kChunkSize = 64 * 1024;
}

StringPool::StringPool()
{
    m_views.emplace_back();
    m_index.emplace(std::string_view(), 0);
}

StringPool::StringPool(StringPool &&) noexcept = default;
StringPool &StringPool::operator=(StringPool &&) noexcept = default;

StringId StringPool::intern(std::string_view s)
{
    if (auto it = m_index.find(s); it != m_index.end())
        return it->second;
    // A chunk never reallocates (capacity reserved up front), so views into it stay valid.
    if (m_chunks.empty() || m_chunks.back().capacity() - m_chunks.back().size() < s.size()) {
        m_chunks.emplace_back();
        m_chunks.back().reserve(std::max(kChunkSize, s.size()));
    }
    std::string &chunk = m_chunks.back();
    const std::size_t at = chunk.size();
    chunk.append(s);
    std::string_view stored(chunk.data() + at, s.size());
    const auto id = static_cast<StringId>(m_views.size());
    m_views.push_back(stored);
    m_index.emplace(stored, id);
    m_bytes += s.size();
    return id;
}

StringId StringPool::find(std::string_view s) const
{
    auto it = m_index.find(s);
    return it == m_index.end() ? npos : it->second;
}

std::string_view StringPool::view(StringId id) const
{
    return id < m_views.size() ? m_views[id] : std::string_view();
}

std::size_t StringPool::memoryBytes() const
{
    return m_bytes + m_views.size() * (sizeof(std::string_view) * 2 + sizeof(StringId) + 16);
}

} // namespace rs
