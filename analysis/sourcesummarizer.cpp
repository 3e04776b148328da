#include "sourcesummarizer.h"

#include "memoryspikes.h"
#include "rankmetrics.h"

#include <algorithm>

namespace rs {

SummaryFacts SourceSummarizer::facts(const Session &session)
{
    SummaryFacts f;
    for (const Rank &rank : session.ranks()) {
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind != TrackKind::MemoryAllocated || t.device < 0)
                continue;
            std::vector<SummaryFacts::Rise> rises = MemorySpikes::summaryRises(session, rank, t);
            f.rises.insert(f.rises.end(), std::make_move_iterator(rises.begin()), std::make_move_iterator(rises.end()));
        }
        for (const Step &s : rank.steps) {
            SummaryFacts::StepInputs in = RankMetricsBuilder::stepInputs(session, s);
            if (in.microBatches > 0 || in.inputElements > 0 || in.hasElements) {
                in.track = SummaryFacts::localTrack(session.tracks(), s.track);
                f.steps.push_back(in);
            }
        }
    }
    // Largest first within each track, as MemorySpikes reads them.
    std::stable_sort(f.rises.begin(), f.rises.end(), [](const SummaryFacts::Rise &a, const SummaryFacts::Rise &b) {
        return a.track != b.track ? a.track < b.track : a.bytes > b.bytes;
    });
    return f;
}

bool SourceSummarizer::keepsSpan(std::string_view name, std::uint16_t flags)
{
    // Steps cut the rank's time; collective calls place OOMs inside a collective and count the
    // collectives per step (CollectiveProgress); kernels of collectives show where ranks waited.
    if (flags & (SpanFlagStep | SpanFlagCollective))
        return true;
    return name == "record_param_comms" || name.starts_with("c10d::") || name.starts_with("nccl:");
}

CounterSeries SourceSummarizer::changesOf(const CounterSeries &series)
{
    CounterSeries out;
    const std::size_t n = series.size();
    for (std::size_t i = 0; i < n; ++i)
        if (i == 0 || i + 1 == n || series.values[i] != series.values[i - 1]) {
            out.times.push_back(series.times[i]);
            out.values.push_back(series.values[i]);
        }
    return out;
}

CounterSeries SourceSummarizer::thinCounter(const CounterSeries &series, const std::vector<TimeNs> &edges, std::size_t maxSamples)
{
    const std::size_t n = series.size();
    if (n <= maxSamples || n < 3)
        return series;
    const auto &t = series.times;
    const auto &v = series.values;
    std::vector<char> keep(n, 0);
    keep.front() = keep.back() = 1;
    // The first sample at or after each edge, so every step's samples start where it does.
    for (TimeNs e : edges) {
        const auto it = std::lower_bound(t.begin(), t.end(), e);
        if (it != t.end())
            keep[std::size_t(it - t.begin())] = 1;
    }
    std::size_t changes = 0;
    for (std::size_t i = 1; i < n; ++i)
        changes += v[i] != v[i - 1];
    if (changes + edges.size() + 2 <= maxSamples) {
        // Lossless: a sample equal to the one before it says nothing a step function does not.
        for (std::size_t i = 1; i < n; ++i)
            if (v[i] != v[i - 1])
                keep[i] = 1;
    } else {
        const auto buckets = static_cast<TimeNs>(std::max<std::size_t>(1, maxSamples / 4));
        const TimeNs t0 = t.front();
        const TimeNs width = std::max<TimeNs>(1, (t.back() - t0 + buckets) / buckets);
        std::size_t i = 0;
        std::size_t edge = 0;
        while (i < n) {
            // The bucket of sample i ends at the next grid line or edge after it.
            TimeNs end = t0 + ((t[i] - t0) / width + 1) * width;
            while (edge < edges.size() && edges[edge] <= t[i])
                ++edge;
            if (edge < edges.size())
                end = std::min(end, edges[edge]);
            std::size_t lo = i, hi = i, j = i;
            for (; j < n && t[j] < end; ++j) {
                if (v[j] < v[lo])
                    lo = j;
                if (v[j] > v[hi])
                    hi = j;
            }
            if (j == i) // never stall on a sample at the bucket's end
                j = i + 1;
            keep[i] = keep[j - 1] = keep[lo] = keep[hi] = 1;
            i = j;
        }
    }
    CounterSeries out;
    const auto kept = static_cast<std::size_t>(std::count(keep.begin(), keep.end(), 1));
    out.times.reserve(kept);
    out.values.reserve(kept);
    for (std::size_t i = 0; i < n; ++i)
        if (keep[i]) {
            out.times.push_back(t[i]);
            out.values.push_back(v[i]);
        }
    return out;
}

void SourceSummarizer::thin(SourceBuilder &source, SummaryFacts &facts, const Limits &limits)
{
    std::vector<TimeNs> edges;
    for (const Step &s : source.steps()) {
        edges.push_back(s.range.begin);
        edges.push_back(s.range.end);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

    // Flows name spans by index, and most of their spans go: a summary keeps none.
    source.clearFlows();
    TextArena args;
    auto carry = [&](ArgsId id) { return id == kNoArgs ? kNoArgs : args.add(source.args(id)); };
    const TimeRange range = source.source().timeRange;
    for (std::size_t id = 0; id < source.tracks().size(); ++id) {
        Track &t = source.trackAt(static_cast<TrackId>(id));
        std::vector<Span> spans;
        for (const Span &s : t.spans)
            if (keepsSpan(source.str(s.name), s.flags)) {
                spans.push_back(s);
                spans.back().args = carry(s.args);
            }
        facts.spansKept += static_cast<std::int64_t>(spans.size());
        facts.spansDropped += static_cast<std::int64_t>(t.spans.size() - spans.size());
        t.spans = std::move(spans);
        std::vector<Instant> instants;
        for (const Instant &in : t.instants)
            if (t.instants.size() <= limits.instants || in.flags != 0) {
                instants.push_back(in);
                instants.back().args = carry(in.args);
            }
        t.instants = std::move(instants);
        if (t.counter.size() > limits.counterSamples) {
            const std::size_t before = t.counter.size();
            // Only allocated memory is cut into buckets: the analysis reads its peaks, per-step
            // minima and rises (kept exactly, the rises as facts). Every other counter is read at
            // arbitrary moments (reserved at an nvidia-smi sample), so it keeps each change.
            t.counter = t.kind == TrackKind::MemoryAllocated ? thinCounter(t.counter, edges, limits.counterSamples)
                                                             : changesOf(t.counter);
            facts.samplesKept += static_cast<std::int64_t>(t.counter.size());
            facts.samplesDropped += static_cast<std::int64_t>(before - t.counter.size());
        }
    }
    source.replaceArgs(std::move(args));
    source.finish();
    // What the file covered, not what the summary kept of it.
    source.source().timeRange = range;
}

} // namespace rs
