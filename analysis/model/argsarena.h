#pragma once
// Raw args of events, kept as compact JSON text so the details panel can show every key without
// the importer deciding in advance which keys matter. One arena per source.

#include "types.h"

#include <string>
#include <string_view>
#include <vector>

namespace rs {

class ArgsArena
{
public:
    ArgsArena() { m_offsets.push_back(0); m_offsets.push_back(0); }

    /// Stores `json` (already compact) and returns its id; an empty text returns kNoArgs.
    ArgsId add(std::string_view json)
    {
        if (json.empty())
            return kNoArgs;
        m_text.append(json);
        m_offsets.push_back(m_text.size());
        return static_cast<ArgsId>(m_offsets.size() - 2);
    }
    /// The JSON text of `id`, "" for kNoArgs or an unknown id.
    std::string_view view(ArgsId id) const
    {
        if (id == kNoArgs || id + 1 >= m_offsets.size())
            return {};
        return std::string_view(m_text).substr(m_offsets[id], m_offsets[id + 1] - m_offsets[id]);
    }
    std::size_t count() const { return m_offsets.size() - 2; }
    std::size_t memoryBytes() const { return m_text.capacity() + m_offsets.capacity() * sizeof(std::size_t); }
    void shrink() { m_text.shrink_to_fit(); m_offsets.shrink_to_fit(); }

private:
    std::string m_text;
    std::vector<std::size_t> m_offsets; // [id] = begin, [id+1] = end; id 0 is the empty slot
};

} // namespace rs
