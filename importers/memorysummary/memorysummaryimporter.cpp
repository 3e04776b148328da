#include "memorysummaryimporter.h"

#include "nccllog/logparser.h"
#include "text/linereader.h"
#include "text/textsniff.h"

namespace rs {

namespace {
// How much of the head LogParser learns line wrappers from (as the log importer does).
constexpr std::size_t kWrapperHead = 4 * 1024 * 1024;
} // namespace

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
    // Tables are usually pasted inside a training log: read as one (LogParser feeds the table
    // parser), its stamps time the file and its per-step memory lines become counters.
    LogParser parser(out, ctx);
    parser.learnWrappers(in.peek(kWrapperHead));
    LineReader::feedAll(in, ctx, out, parser);
}

} // namespace rs
