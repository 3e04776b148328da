#include "joblogbuilder.h"

#include "tracesink.h"
#include "utctime.h"

#include <algorithm>
#include <cstdio>

namespace rs::tracegen {

void JobLogBuilder::line(TimeNs t, RankId rank, std::string text)
{
    m_lines.push_back({t, rank, std::move(text)});
}

void JobLogBuilder::block(TimeNs t, RankId rank, std::string_view text)
{
    while (!text.empty()) {
        const auto nl = text.find('\n');
        line(t, rank, std::string(text.substr(0, nl)));
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
}

std::string JobLogBuilder::pythonStamp(TimeNs t)
{
    const UtcTime u = UtcTime::of(t);
    char buf[48];
    std::snprintf(buf, sizeof buf, "[%04d-%02d-%02d %02d:%02d:%02d,%03lld]", u.year, u.month, u.day, u.hour, u.minute,
                  u.second, static_cast<long long>(u.millis()));
    return buf;
}

std::string JobLogBuilder::c10Prefix(TimeNs t, char level, std::string_view fileLine)
{
    const UtcTime u = UtcTime::of(t);
    char buf[48];
    std::snprintf(buf, sizeof buf, "[%c%d%02d %02d:%02d:%02d.%09lld ", level, u.month, u.day, u.hour, u.minute,
                  u.second, static_cast<long long>(u.nanos));
    return std::string(buf).append(fileLine).append("] ");
}

std::string JobLogBuilder::agentPrefix(TimeNs t, char level, std::int64_t thread, std::string_view fileLine)
{
    // Python logging has millisecond resolution; the glog-style format pads it to microseconds.
    const UtcTime u = UtcTime::of(t);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%c%02d%02d %02d:%02d:%02d.%03lld000 %lld ", level, u.month, u.day, u.hour,
                  u.minute, u.second, static_cast<long long>(u.millis()), static_cast<long long>(thread));
    return std::string(buf).append(fileLine).append("] ");
}

std::string JobLogBuilder::ncclInfo(std::string_view host, std::int64_t pid, std::int64_t tid, int device,
                                    std::string_view message)
{
    return std::string(host) + ":" + std::to_string(pid) + ":" + std::to_string(tid) + " [" + std::to_string(device)
           + "] NCCL INFO " + std::string(message);
}

void JobLogBuilder::write(const std::filesystem::path &path) const
{
    std::vector<const Line *> order;
    order.reserve(m_lines.size());
    for (const Line &l : m_lines)
        order.push_back(&l);
    std::stable_sort(order.begin(), order.end(), [](const Line *a, const Line *b) { return a->time < b->time; });
    TraceSink sink(path, TraceSink::Kind::Plain);
    std::string out;
    for (const Line *l : order) {
        out.clear();
        if (l->rank != kAgent)
            out.append("[rank").append(std::to_string(l->rank)).append("]:");
        out.append(l->text).push_back('\n');
        sink.write(out);
    }
    sink.close();
}

} // namespace rs::tracegen
