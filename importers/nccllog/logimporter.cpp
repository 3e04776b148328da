#include "logimporter.h"

#include "logline.h"
#include "logparser.h"
#include "recordboundaries.h"
#include "text/linereader.h"
#include "text/linewrapper.h"
#include "text/textsniff.h"

namespace rs {

namespace {

// What the registry lets a sniffer see; the parser learns the file's wrappers from the same head.
constexpr std::size_t kHead = 4 * 1024 * 1024;

// `set -x` trace: one or more '+' then a space and a command.
bool shellTrace(std::string_view line)
{
    std::size_t i = 0;
    while (i < line.size() && line[i] == '+')
        ++i;
    return i > 0 && i < 8 && i + 1 < line.size() && line[i] == ' ' && line[i + 1] != ' ';
}

bool rule(std::string_view line, char c)
{
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r'))
        line.remove_suffix(1);
    return line.size() >= 40 && line.find_first_not_of(c) == std::string_view::npos;
}

} // namespace

int LogImporter::sniff(std::string_view head, std::string_view) const
{
    if (looksBinary(head) || looksLikeMarkdown(head))
        return 0;
    // Records may start deep in the head (FORMATS.md §7.1), behind wrappers (§7.2): learn the
    // wrappers over the whole head, then judge every complete line once. Linear in the head.
    LineWrapper wrapper(&RecordBoundaries::startsRecord, "UTC");
    wrapper.learn(head);
    int nccl = 0, prefixed = 0, pytorch = 0, launcher = 0, trace = 0, traceback = 0, lines = 0;
    bool childFailed = false; // the previous line was the ChildFailedError banner
    std::size_t from = 0;
    while (from < head.size()) {
        const auto nl = head.find('\n', from);
        if (nl == std::string_view::npos)
            break; // the head may end inside a line
        std::string_view raw = head.substr(from, nl - from);
        from = nl + 1;
        if (!raw.empty() && raw.back() == '\r')
            raw.remove_suffix(1);
        ++lines;
        const PeeledLine w = wrapper.peel(raw);
        std::string_view line = w.text;
        if (w.rank != kNoRank)
            ++prefixed;
        if (childFailed && rule(line, '='))
            ++pytorch;
        childFailed = line.find("ChildFailedError:") != std::string_view::npos;
        if (line.size() > 20 && line[0] == '[' && line[1] >= '0' && line[1] <= '9') {
            if (auto s = logline::leadingStamp(line, "UTC"))
                line.remove_prefix(s->length);
        }
        if (logline::ncclHeader(line))
            ++nccl;
        else if (RecordBoundaries::pytorchRecord(line))
            ++pytorch;
        else if (RecordBoundaries::launcherLine(line))
            ++launcher;
        else if (shellTrace(line))
            ++trace;
        else if (line.rfind("Traceback (most recent call last):", 0) == 0)
            ++traceback;
    }
    // Launcher prefixes must be common, not a few quoted lines in prose. NCCL lines amid a
    // scheduler's, a shell trace's or Python's own output are a job's log, not NCCL's.
    const bool prefixedCommon = prefixed >= 2 && prefixed * 10 >= lines;
    const bool job = pytorch > 0 || prefixedCommon || (nccl > 0 && (launcher > 0 || trace >= 2 || traceback > 0));
    if (m_kind == Kind::JobLog)
        return job ? 86 : 0;
    return !job && nccl > 0 ? 82 : 0;
}

void LogImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    LogParser parser(out, ctx);
    parser.learnWrappers(in.peek(kHead));
    LineReader::feedAll(in, ctx, out, parser);
}

} // namespace rs
