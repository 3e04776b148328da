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

/// True for binary content: a NUL in the first 512 bytes (pickles, archives, images), or more
/// than 1 in 50 of the first 64 KiB being control bytes no text writer emits. NUL runs further in
/// (a cut writer's padding) leave a text file text; its importer reports them.
inline bool looksBinary(std::string_view head)
{
    if (head.substr(0, 512).find('\0') != std::string_view::npos)
        return true;
    const std::string_view probe = head.substr(0, 64 * 1024);
    std::size_t control = 0, nul = 0;
    for (char ch : probe) {
        const auto c = static_cast<unsigned char>(ch);
        nul += c == 0;
        control += (c < 0x20 && c != 0 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b) || c == 0x7f;
    }
    return control * 50 > probe.size() - nul;
}

} // namespace rs
