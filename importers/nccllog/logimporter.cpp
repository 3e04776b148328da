#include "logimporter.h"

#include "logline.h"
#include "logparser.h"
#include "text/linereader.h"
#include "text/textsniff.h"

namespace rs {

int LogImporter::sniff(std::string_view head, std::string_view) const
{
    if (head.find('\0') != std::string_view::npos || looksLikeMarkdown(head))
        return 0;
    int nccl = 0, prefixed = 0, pytorch = 0, lines = 0;
    std::size_t from = 0;
    // The head may end inside a line; judge the complete ones (at most 400).
    while (from < head.size() && lines < 400) {
        const auto nl = head.find('\n', from);
        if (nl == std::string_view::npos)
            break;
        std::string_view line = head.substr(from, nl - from);
        from = nl + 1;
        ++lines;
        if (auto p = logline::rankPrefix(line)) {
            ++prefixed;
            line.remove_prefix(p->length);
        }
        if (auto s = logline::leadingStamp(line, "UTC"))
            line.remove_prefix(s->length);
        if (logline::ncclHeader(line))
            ++nccl;
        else if (logline::c10Prefix(line) || logline::oldC10Prefix(line) || logline::glogPrefix(line)
                 || line.find("ChildFailedError") != std::string_view::npos
                 || line.rfind("ERROR:torch.distributed", 0) == 0 || line.rfind("WARNING:torch.distributed", 0) == 0)
            ++pytorch;
    }
    // Launcher prefixes must be common, not a few quoted lines in prose.
    const bool job = (prefixed >= 2 && prefixed * 10 >= lines) || pytorch > 0;
    if (m_kind == Kind::JobLog)
        return job ? 86 : 0;
    return !job && nccl > 0 ? 82 : 0;
}

void LogImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    LogParser parser(out, ctx);
    LineReader::feedAll(in, ctx, out, parser);
}

} // namespace rs
