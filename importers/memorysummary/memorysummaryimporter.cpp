#include "memorysummaryimporter.h"

#include "memorysummaryparser.h"
#include "text/linereader.h"
#include "text/textsniff.h"

namespace rs {

int MemorySummaryImporter::sniff(std::string_view head, std::string_view) const
{
    // Binary content (pickles, compressed leftovers) is never a text table.
    if (head.find('\0') != std::string_view::npos || looksLikeMarkdown(head))
        return 0;
    if (head.find("PyTorch CUDA memory summary, device ID") != std::string_view::npos
        && head.find("|=====") != std::string_view::npos)
        return 80;
    if (head.find("CUDA out of memory. Tried to allocate ") != std::string_view::npos)
        return 40;
    return 0;
}

void MemorySummaryImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    out.source().hasClock = false;
    MemorySummaryParser parser(out);
    LineReader::feedAll(in, ctx, out, parser);
}

} // namespace rs
