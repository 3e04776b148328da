#include "memorytimelineimporter.h"

#include "memorytimelineparser.h"
#include "timelinejsonreader.h"

#include <cctype>

namespace rs {

int MemoryTimelineImporter::sniff(std::string_view head, std::string_view) const
{
    std::size_t i = 0;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (head.substr(i, 1) != "[")
        return 0;
    ++i;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    if (head.substr(i, 1) != "[")
        return 0;
    ++i;
    while (i < head.size() && std::isspace(static_cast<unsigned char>(head[i])))
        ++i;
    return i < head.size() && (head[i] == '-' || std::isdigit(static_cast<unsigned char>(head[i]))) ? 80 : 0;
}

void MemoryTimelineImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    MemoryTimelineParser timeline(out);
    TimelineJsonReader(in, ctx, timeline, out).read();
    // What was read before an error or a cancel is kept (the registry reports the cancel).
    timeline.finish();
}

} // namespace rs
