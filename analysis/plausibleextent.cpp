#include "plausibleextent.h"

#include "analysisresult.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace rs {

namespace {

struct Run {
    TimeRange range;
    SourceId source = 0;
    RankId rank = kNoRank;
};

// Collects the runs of one sorted-by-start stream of intervals, splitting at pauses > kMinGapNs.
class RunCollector
{
public:
    RunCollector(std::vector<Run> &out, SourceId source, RankId rank, TimeNs offset)
        : m_out(out), m_source(source), m_rank(rank), m_offset(offset) {}
    ~RunCollector() { flush(); }
    RunCollector(const RunCollector &) = delete;
    RunCollector &operator=(const RunCollector &) = delete;

    void add(TimeNs begin, TimeNs end)
    {
        // Offsets and times are bounded by the importers (±3e18 ns), so the sum cannot wrap.
        begin += m_offset;
        end = std::max(end + m_offset, begin + 1);
        if (m_open && begin <= m_run.end + PlausibleExtent::kMinGapNs) {
            m_run.end = std::max(m_run.end, end);
            return;
        }
        flush();
        m_run = {begin, end};
        m_open = true;
    }
    void flush()
    {
        if (m_open)
            m_out.push_back({m_run, m_source, m_rank});
        m_open = false;
    }

private:
    std::vector<Run> &m_out;
    SourceId m_source;
    RankId m_rank;
    TimeNs m_offset;
    TimeRange m_run;
    bool m_open = false;
};

void trackRuns(const Track &t, TimeNs offset, std::vector<Run> &out)
{
    {
        RunCollector c(out, t.source, t.rank, offset);
        for (const Span &s : t.spans) // sorted by start once finalised
            c.add(s.start, s.end());
    }
    {
        RunCollector c(out, t.source, t.rank, offset);
        for (const Instant &i : t.instants)
            c.add(i.time, i.time + 1);
    }
    RunCollector c(out, t.source, t.rank, offset);
    for (const TimeNs time : t.counter.times)
        c.add(time, time + 1);
}

// Timed records of every source (log lines, OOMs, memory_summary tables), sorted per source first
// because a log of many processes interleaves ranks.
void recordRuns(const Session &session, const PlausibleExtent::OffsetOf &offsetOf, std::vector<Run> &out)
{
    std::map<std::pair<SourceId, RankId>, std::vector<TimeNs>> times;
    auto add = [&](SourceId source, RankId rank, TimeNs t) {
        if (t != kNoTime)
            times[{source, rank}].push_back(t);
    };
    for (const LogRecord &r : session.logs().records)
        add(r.source, r.rank, r.time);
    for (const OomEvent &o : session.ooms())
        add(o.source, o.rank, o.time);
    for (const MemorySummary &m : session.memorySummaries())
        add(m.source, m.rank, m.time);
    for (auto &[key, list] : times) {
        std::sort(list.begin(), list.end());
        RunCollector c(out, key.first, key.second, key.second == kNoRank ? 0 : offsetOf(key.second));
        for (const TimeNs t : list)
            c.add(t, t + 1);
    }
}

std::string distanceText(TimeNs ns)
{
    const double days = double(ns) / 86'400e9;
    char buf[64];
    if (days >= 730)
        std::snprintf(buf, sizeof buf, "%.0f years", days / 365.25);
    else if (days >= 2)
        std::snprintf(buf, sizeof buf, "%.0f days", days);
    else
        std::snprintf(buf, sizeof buf, "%.0f hours", double(ns) / 3'600e9);
    return buf;
}

std::string gibText(double bytes)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g GiB", bytes / double(1LL << 30));
    return buf;
}

struct Cluster {
    TimeRange range;
    std::vector<std::size_t> runs; // indexes into the sorted runs
    std::set<SourceId> sources;
};

} // namespace

bool PlausibleExtent::leavesOut(TrackId track) const
{
    return std::any_of(leftOut.begin(), leftOut.end(), [track](const ExtentOutlier &o) {
        return o.kind == ExtentOutlier::Kind::Memory && o.track == track;
    });
}

PlausibleExtent PlausibleExtent::find(const Session &session, const AnalysisResult *analysis)
{
    return find(session, [analysis](RankId r) { return analysis ? analysis->offsetOf(r) : TimeNs(0); },
                analysis ? &analysis->metrics : nullptr);
}

PlausibleExtent PlausibleExtent::find(const Session &session, const OffsetOf &offsetOf,
                                      const std::vector<RankMetrics> *metrics)
{
    PlausibleExtent e;
    std::vector<Run> runs;
    for (const Track &t : session.tracks())
        trackRuns(t, t.rank == kNoRank ? 0 : offsetOf(t.rank), runs);
    recordRuns(session, offsetOf, runs);
    std::sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) { return a.range.begin < b.range.begin; });

    std::vector<Cluster> clusters;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (clusters.empty() || runs[i].range.begin > clusters.back().range.end + kMinGapNs)
            clusters.push_back({runs[i].range, {}, {}});
        Cluster &c = clusters.back();
        c.range = c.range.united(runs[i].range);
        c.runs.push_back(i);
        c.sources.insert(runs[i].source);
    }
    if (!clusters.empty()) {
        // The incident is what most files agree on; ties go to more data, then to the later cluster.
        std::size_t main = 0;
        for (std::size_t i = 1; i < clusters.size(); ++i) {
            const Cluster &a = clusters[i], &b = clusters[main];
            if (std::make_pair(a.sources.size(), a.runs.size()) >= std::make_pair(b.sources.size(), b.runs.size()))
                main = i;
        }
        std::size_t lo = main, hi = main;
        TimeRange axis = clusters[main].range;
        for (bool grew = true; grew;) {
            grew = false;
            const TimeNs reach = std::max<TimeNs>(kMinGapNs, TimeNs(std::min(double(axis.duration()) * kGapFactor, 4e18)));
            if (lo > 0 && axis.begin - clusters[lo - 1].range.end <= reach) {
                axis = axis.united(clusters[--lo].range);
                grew = true;
            }
            if (hi + 1 < clusters.size() && clusters[hi + 1].range.begin - axis.end <= reach) {
                axis = axis.united(clusters[++hi].range);
                grew = true;
            }
        }
        e.axis = axis;
        // One entry per source and side, naming how far its data lies from the incident.
        std::map<std::pair<SourceId, bool>, ExtentOutlier> out;
        for (std::size_t ci = 0; ci < clusters.size(); ++ci) {
            if (ci >= lo && ci <= hi)
                continue;
            const bool before = ci < lo;
            for (const std::size_t ri : clusters[ci].runs) {
                const Run &r = runs[ri];
                ExtentOutlier &o = out[{r.source, before}];
                o.kind = ExtentOutlier::Kind::Time;
                o.source = r.source;
                o.rank = r.rank;
                o.range = o.range.united(r.range);
            }
        }
        for (auto &[key, o] : out) {
            const bool before = key.second;
            const TimeNs gap = before ? axis.begin - o.range.end : o.range.begin - axis.end;
            o.code = "time-outside-incident";
            o.message = "data lies " + distanceText(gap) + (before ? " before" : " after")
                + " the rest of the incident; the time axis leaves it out";
            const bool clockless = o.source < session.sources().size() && !session.sources()[o.source].hasClock;
            if (clockless)
                o.message += " (the file has no wall clock and nothing aligned it to the other ranks: set its"
                             " clock offset to place it)";
            e.leftOut.push_back(std::move(o));
        }
    }

    // The shared memory scale: device-memory counters up to a believable multiple of the capacity.
    std::map<RankId, double> capacity;
    if (metrics)
        for (const RankMetrics &m : *metrics)
            if (m.capacityBytes && *m.capacityBytes > 0)
                capacity[m.rank] = double(*m.capacityBytes);
    if (!metrics)
        for (const Rank &r : session.ranks())
            for (const DeviceInfo &d : r.devices)
                if (d.totalMemory > 0)
                    capacity[r.id] = std::max(capacity[r.id], double(d.totalMemory));
    for (const Track &t : session.tracks()) {
        const bool deviceMemory = t.device >= 0
            && (t.kind == TrackKind::MemoryAllocated || t.kind == TrackKind::MemoryReserved || t.kind == TrackKind::GpuMemoryUsed);
        if (!deviceMemory || t.counter.empty())
            continue;
        double peak = 0;
        for (const double v : t.counter.values)
            if (std::isfinite(v))
                peak = std::max(peak, v);
        const auto cap = capacity.find(t.rank);
        if (cap != capacity.end() && peak > cap->second * kCapacityFactor) {
            ExtentOutlier o;
            o.kind = ExtentOutlier::Kind::Memory;
            o.source = t.source;
            o.rank = t.rank;
            o.track = static_cast<TrackId>(&t - session.tracks().data());
            o.peak = peak;
            o.code = "memory-above-capacity";
            o.message = "memory counter peaks at " + gibText(peak) + ", more than twice the GPU's "
                + gibText(cap->second) + "; the shared memory scale leaves it out";
            e.leftOut.push_back(std::move(o));
            continue;
        }
        e.memoryScale = std::max(e.memoryScale, peak);
    }
    std::stable_sort(e.leftOut.begin(), e.leftOut.end(),
                     [](const ExtentOutlier &a, const ExtentOutlier &b) { return a.source < b.source; });
    return e;
}

} // namespace rs
