#pragma once
// Shared judgement for the text sniffers: a document that quotes log lines (a README, an incident
// write-up in Markdown) is not a log, even when it contains the phrases the log sniffers look for.

#include <string_view>

namespace rs {

/// True for Markdown: code fences, or several "## " headings, in the head of the file.
inline bool looksLikeMarkdown(std::string_view head)
{
    if (head.rfind("```", 0) == 0 || head.find("\n```") != std::string_view::npos)
        return true;
    int headings = 0;
    for (std::size_t at = head.find("\n## "); at != std::string_view::npos; at = head.find("\n## ", at + 1))
        ++headings;
    return headings >= 2;
}

} // namespace rs
