#include "memorytimelineimporter.h"

#include "snapshotimporter.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <map>

namespace rs {

namespace {

constexpr std::size_t kMaxTimeline = std::size_t(1) << 30;

std::string categoryName(std::size_t i)
{
    static const std::array<const char *, 8> kNames = {"parameter", "optimizer state", "input", "temporary",
                                                       "activation", "gradient", "autograd detail", "unknown"};
    return i < kNames.size() ? kNames[i] : "category " + std::to_string(i);
}

struct Timeline {
    SourceBuilder &out;
    std::map<std::size_t, TrackId> tracks;
    TrackId total = kNoTrack;

    TrackId track(std::size_t category)
    {
        if (auto it = tracks.find(category); it != tracks.end())
            return it->second;
        const TrackId id = out.track(TrackKind::Counter, 0, std::int64_t(category) + 1);
        out.trackAt(id).name = out.intern("Memory timeline: " + categoryName(category));
        out.trackAt(id).sortIndex = int(category) + 1;
        tracks.emplace(category, id);
        return id;
    }
    TrackId totalTrack()
    {
        if (total == kNoTrack) {
            total = out.track(TrackKind::Counter, 0, 0);
            out.trackAt(total).name = out.intern("Memory timeline: total");
        }
        return total;
    }
};

// ns since the epoch for plausible epoch stamps; `clock` tells whether one was found. Integers are
// kept exact: epoch nanoseconds do not fit a double.
TimeNs toNs(const nlohmann::json &v, bool &clock)
{
    if (v.is_number_integer() && v.get<std::int64_t>() > 100000000000000000LL) {
        clock = true;
        return v.get<std::int64_t>();
    }
    const double t = v.get<double>();
    if (t > 1e17) {
        clock = true;
        return TimeNs(t);
    }
    if (t > 1e14) {
        clock = true;
        return TimeNs(t * 1000.0);
    }
    return TimeNs(t * 1000.0); // relative µs as the HTML export uses them
}

} // namespace

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
    std::string data;
    std::string error;
    if (!readWhole(in, ctx, data, kMaxTimeline, &error)) {
        out.error("read-failed", error, -1, in.position());
        return;
    }
    if (ctx.isCancelled())
        return;
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(data);
    } catch (const nlohmann::json::parse_error &e) {
        out.error("json-syntax", std::string("invalid JSON: ") + e.what(), -1, std::int64_t(e.byte) - 1);
        return;
    }
    data.clear();
    if (!doc.is_array()) {
        out.error("timeline-not-list", "memory timeline is not a JSON list");
        return;
    }
    Timeline tl{out, {}, kNoTrack};
    bool clock = false;
    const bool plain = doc.size() == 2 && doc[0].is_array() && doc[1].is_array() && !doc[1].empty() && doc[1][0].is_array()
        && !(doc[0].size() == 4 && doc[1].size() == 4);
    if (plain) {
        const auto &times = doc[0];
        const auto &sizes = doc[1];
        if (times.size() != sizes.size())
            out.warning("timeline-length-mismatch", "times and sizes lists differ in length; the shorter one decides");
        const std::size_t n = std::min(times.size(), sizes.size());
        for (std::size_t i = 0; i < n; ++i) {
            if (!times[i].is_number() || !sizes[i].is_array()) {
                out.error("timeline-bad-row", "row " + std::to_string(i) + " is not a time with a list of sizes");
                continue;
            }
            const TimeNs t = toNs(times[i], clock);
            double sum = 0;
            for (std::size_t c = 0; c < sizes[i].size(); ++c) {
                const double v = sizes[i][c].is_number() ? sizes[i][c].get<double>() : 0.0;
                sum += v;
                out.addCounterSample(tl.track(c), t, v);
            }
            out.addCounterSample(tl.totalTrack(), t, sum);
            ++out.source().counts.traceEntries;
        }
    } else {
        // Raw rows: first find the earliest real time for the pre-existing tensors.
        double first = -1;
        nlohmann::json firstRow;
        for (const auto &row : doc)
            if (row.is_array() && !row.empty() && row[0].is_number() && row[0].get<double>() >= 0
                && (first < 0 || row[0].get<double>() < first)) {
                first = row[0].get<double>();
                firstRow = row[0];
            }
        std::map<std::size_t, double> level;
        double total = 0;
        TimeNs pending = std::numeric_limits<TimeNs>::min();
        auto flush = [&](TimeNs t) {
            for (const auto &[c, v] : level)
                out.addCounterSample(tl.track(c), t, v);
            out.addCounterSample(tl.totalTrack(), t, total);
        };
        for (std::size_t i = 0; i < doc.size(); ++i) {
            const auto &row = doc[i];
            ++out.source().counts.traceEntries;
            if (!row.is_array() || row.size() < 3 || !row[0].is_number() || !row[2].is_number()) {
                out.error("timeline-bad-row", "row " + std::to_string(i) + " is not [time, action, bytes, category]");
                continue;
            }
            const TimeNs t = row[0].get<double>() < 0 ? toNs(first < 0 ? nlohmann::json(0) : firstRow, clock)
                                                      : toNs(row[0], clock);
            const std::size_t category = row.size() > 3 && row[3].is_number_integer() ? row[3].get<std::size_t>() : 7;
            // Samples are taken when time moves on, so rows at one instant make one sample.
            if (pending != std::numeric_limits<TimeNs>::min() && t != pending)
                flush(pending);
            pending = t;
            const double bytes = row[2].get<double>();
            level[category] += bytes;
            total += bytes;
        }
        if (pending != std::numeric_limits<TimeNs>::min())
            flush(pending);
    }
    out.source().hasClock = clock;
}

} // namespace rs
