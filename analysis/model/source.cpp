#include "source.h"

#include <algorithm>

namespace rs {

const char *compressionName(Compression c)
{
    switch (c) {
    case Compression::None: return "none";
    case Compression::Gzip: return "gzip";
    case Compression::Zstd: return "zstd";
    }
    return "none";
}

const char *rankOriginName(RankOrigin o)
{
    switch (o) {
    case RankOrigin::Content: return "content";
    case RankOrigin::FileName: return "file-name";
    case RankOrigin::User: return "user";
    case RankOrigin::Assigned: return "assigned";
    case RankOrigin::DeviceIndex: return "device-index";
    case RankOrigin::NcclDevice: return "nccl-device";
    }
    return "assigned";
}

bool Source::hasErrors() const
{
    return errorCount() > 0;
}

std::size_t Source::errorCount() const
{
    std::size_t n = 0;
    for (const Diagnostic &d : diagnostics)
        if (d.isError())
            n += static_cast<std::size_t>(d.count);
    return n;
}

std::size_t Source::warningCount() const
{
    std::size_t n = 0;
    for (const Diagnostic &d : diagnostics)
        if (!d.isError())
            n += static_cast<std::size_t>(d.count);
    return n;
}

std::string Source::metadataValue(const std::string &key) const
{
    for (const auto &[k, v] : metadata)
        if (k == key)
            return v;
    return {};
}

} // namespace rs
