#include "summaryimporter.h"

#include "summaryfile.h"

namespace rs {

int SummaryImporter::sniff(std::string_view head, std::string_view) const
{
    return SummaryFile::sniff(head) ? 100 : 0;
}

void SummaryImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    // A summary is a few MB; one past this is not what `summarize` writes, and is not held in memory.
    constexpr std::size_t kMaxBytes = std::size_t(1) << 30;
    std::string bytes;
    std::vector<char> buf(1u << 20);
    for (std::size_t n; (n = in.read(buf.data(), buf.size())) > 0;) {
        if (bytes.size() + n > kMaxBytes) {
            out.error("summary-too-large", "larger than 1 GiB: not a summary rankscope summarize writes", -1,
                      static_cast<std::int64_t>(bytes.size()));
            return;
        }
        bytes.append(buf.data(), n);
        ctx.reportProgress(in.compressedBytesRead(), in.compressedSize());
        if (ctx.isCancelled())
            return;
    }
    if (!in.error().empty())
        return; // the registry reports the read error
    std::string why;
    std::optional<SourceBuilder> summary = SummaryFile::read(std::move(bytes), &why);
    if (!summary) {
        out.error("summary-unreadable", why, -1, 0);
        return;
    }
    // The summarised file's model, under this file's name and container.
    Source &src = summary->source();
    src.path = out.source().path;
    src.compression = out.source().compression;
    src.fileBytes = out.source().fileBytes;
    out = std::move(*summary);
}

} // namespace rs
