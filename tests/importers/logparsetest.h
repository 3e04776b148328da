#pragma once
// Feeds log text to a LogParser directly (UTC, no sniffing): the line and record grammar under
// test, shared by the log tests.

#include "nccllog/logparser.h"

#include <sstream>
#include <string>

namespace rs::test {

inline SourceBuilder parseLogText(const std::string &text, const std::string &name)
{
    SourceBuilder b(name);
    ImportContext ctx;
    ctx.timeZone = "UTC";
    LogParser parser(b, ctx);
    std::istringstream in(text);
    std::string line;
    std::int64_t n = 0;
    while (std::getline(in, line))
        parser.feed(line, ++n);
    parser.finish();
    return b;
}

} // namespace rs::test
