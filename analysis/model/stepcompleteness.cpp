#include "stepcompleteness.h"

#include <algorithm>
#include <map>

namespace rs {

namespace {

// The last time the step's own trace saw anything: a step's span may close long before the GPU
// work it queued, and a failure reported in between still happened inside the step.
TimeNs traceEnd(const Step &step, const Session &session)
{
    if (step.track == kNoTrack || step.track >= session.tracks().size())
        return step.range.end;
    const Source &src = session.sources()[session.tracks()[step.track].source];
    return src.timeRange.isEmpty() ? step.range.end : std::max(step.range.end, src.timeRange.end);
}

bool sameClockAs(const Step &step, const Session &session, SourceId source)
{
    if (step.track == kNoTrack || step.track >= session.tracks().size())
        return false;
    const SourceId own = session.tracks()[step.track].source;
    return own == source || (session.sources()[own].hasClock && session.sources()[source].hasClock);
}

} // namespace

void StepCompleteness::mark(std::vector<Rank> &ranks, const Session &session)
{
    // Failures by rank: when, and on which source's clock.
    std::map<RankId, std::vector<std::pair<TimeNs, SourceId>>> failures;
    for (const OomEvent &o : session.ooms())
        if (o.time != kNoTime && o.rank >= 0)
            failures[o.rank].emplace_back(o.time, o.source);
    const LogEvidence &logs = session.logs();
    auto sourceOfLine = [&](RankId rank, std::int64_t line) -> std::optional<SourceId> {
        // Log evidence keeps its line, and the record of that line names its source.
        for (const LogRecord &r : logs.records)
            if (r.rank == rank && r.line == line)
                return r.source;
        return std::nullopt;
    };
    for (const WatchdogTimeout &w : logs.timeouts)
        if (w.time != kNoTime && w.rank >= 0)
            if (auto src = sourceOfLine(w.rank, w.line))
                failures[w.rank].emplace_back(w.time, *src);
    for (const ChildFailure &f : logs.failures)
        if (f.time != kNoTime && f.rank >= 0)
            if (auto src = sourceOfLine(f.rank, f.line))
                failures[f.rank].emplace_back(f.time, *src);
    for (const Rank &r : ranks)
        for (TrackId id : r.tracks) {
            const Track &t = session.tracks()[id];
            for (const Instant &in : t.instants)
                if (in.flags & SpanFlagOutOfMemory)
                    failures[r.id].emplace_back(in.time, t.source);
        }

    // The longest duration of each step number over all ranks, for the "peers went on" test.
    std::map<std::int64_t, TimeNs> longest;
    for (const Rank &r : ranks)
        for (const Step &s : r.steps)
            longest[s.number] = std::max(longest[s.number], s.range.duration());

    for (Rank &r : ranks) {
        if (r.steps.empty())
            continue;
        // Steps are sorted by start: a failure belongs to the last step that began before it.
        for (const auto &[time, source] : failures[r.id]) {
            Step *in = nullptr;
            for (Step &s : r.steps)
                if (s.range.begin <= time && sameClockAs(s, session, source))
                    in = &s;
            // A step read from a training log's per-step line is logged when it ends: a failure
            // after that line belongs to the next step, which the log never finished.
            if (in && time <= (in->fromLog ? in->range.end : traceEnd(*in, session)))
                in->incomplete = true;
        }
        Step &last = r.steps.back();
        const TimeNs dataEnd = traceEnd(last, session);
        const TimeNs duration = last.range.duration();
        // Shorter than the peers' same step, and than the rank's own other steps when it has any:
        // a trace that simply stops with a whole step is not a crash.
        std::vector<TimeNs> own;
        for (const Step &s : r.steps)
            if (&s != &last && !s.incomplete)
                own.push_back(s.range.duration());
        bool shortForItself = true;
        if (!own.empty()) {
            std::nth_element(own.begin(), own.begin() + std::ptrdiff_t(own.size() / 2), own.end());
            shortForItself = double(own[own.size() / 2]) >= double(duration) * (1.0 + kPeerLongerFraction);
        }
        if (!last.fromLog && last.range.end + kDataEndSlackNs >= dataEnd && shortForItself
            && double(longest[last.number]) >= double(duration) * (1.0 + kPeerLongerFraction) + double(kDataEndSlackNs))
            last.incomplete = true;
    }
}

} // namespace rs
