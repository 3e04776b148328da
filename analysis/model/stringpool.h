#pragma once
// Interns repeated strings (op names, categories, thread names) into 32-bit ids.
// Not thread-safe: each importer task owns one pool; SessionBuilder merges them.

#include "types.h"

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace rs {

class StringPool
{
public:
    StringPool();
    StringPool(StringPool &&) noexcept;
    StringPool &operator=(StringPool &&) noexcept;
    StringPool(const StringPool &) = delete;
    StringPool &operator=(const StringPool &) = delete;

    /// Returns the id of `s`, adding it when new. The empty string is always id 0.
    StringId intern(std::string_view s);
    /// Returns the id of `s` or kNoTrack-like sentinel `npos` when it was never interned.
    StringId find(std::string_view s) const;
    /// The text of `id`; valid as long as the pool lives. Out-of-range ids give "".
    std::string_view view(StringId id) const;
    std::size_t size() const { return m_views.size(); }
    /// Bytes held by the pool (strings plus index), for memory accounting.
    std::size_t memoryBytes() const;

    static constexpr StringId npos = 0xffffffffu;

private:
    // Strings live in large chunks so string_views stay valid while the pool grows.
    std::deque<std::string> m_chunks;
    std::vector<std::string_view> m_views;
    std::unordered_map<std::string_view, StringId> m_index;
    std::size_t m_bytes = 0;
};

} // namespace rs
