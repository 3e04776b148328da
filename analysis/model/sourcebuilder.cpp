#include "sourcebuilder.h"

#include <algorithm>

namespace rs {

SourceBuilder::SourceBuilder(std::string path)
{
    m_source.path = std::move(path);
}

SourceBuilder::SourceBuilder(SourceBuilder &&) noexcept = default;
SourceBuilder &SourceBuilder::operator=(SourceBuilder &&) noexcept = default;
SourceBuilder::~SourceBuilder() = default;

TrackId SourceBuilder::track(TrackKind kind, std::int64_t pid, std::int64_t tid, std::int32_t device, RankId rank)
{
    const auto key = std::make_tuple(static_cast<int>(kind), pid, tid, device, rank);
    if (auto it = m_trackIndex.find(key); it != m_trackIndex.end())
        return it->second;
    const auto id = static_cast<TrackId>(m_tracks.size());
    Track t;
    t.kind = kind;
    t.pid = pid;
    t.tid = tid;
    t.device = device;
    t.rank = rank;
    m_tracks.push_back(std::move(t));
    m_trackIndex.emplace(key, id);
    return id;
}

void SourceBuilder::addCounterSample(TrackId track, TimeNs t, double value)
{
    auto &c = m_tracks[track].counter;
    c.times.push_back(t);
    c.values.push_back(value);
}

void SourceBuilder::report(Diagnostic::Severity severity, std::string_view code, std::string message,
                           std::int64_t line, std::int64_t offset)
{
    for (Diagnostic &d : m_source.diagnostics) {
        if (d.severity != severity || d.code != code)
            continue;
        ++d.count;
        if (d.examples.size() < Diagnostic::kMaxExamples)
            d.examples.push_back({line, offset, std::move(message)});
        return;
    }
    Diagnostic d;
    d.severity = severity;
    d.code = std::string(code);
    d.message = std::move(message);
    d.line = line;
    d.offset = offset;
    m_source.diagnostics.push_back(std::move(d));
}

void SourceBuilder::warning(std::string_view code, std::string message, std::int64_t line, std::int64_t offset)
{
    report(Diagnostic::Severity::Warning, code, std::move(message), line, offset);
}

void SourceBuilder::error(std::string_view code, std::string message, std::int64_t line, std::int64_t offset)
{
    report(Diagnostic::Severity::Error, code, std::move(message), line, offset);
}

std::int64_t SourceBuilder::diagnosticCount(std::string_view code) const
{
    std::int64_t n = 0;
    for (const Diagnostic &d : m_source.diagnostics)
        if (d.code == code)
            n += d.count;
    return n;
}

void SourceBuilder::shiftTimes(TimeNs delta)
{
    if (delta == 0)
        return;
    for (Track &t : m_tracks) {
        for (Span &s : t.spans)
            s.start += delta;
        for (Instant &i : t.instants)
            i.time += delta;
        for (TimeNs &x : t.counter.times)
            x += delta;
    }
    for (Step &s : m_steps) {
        s.range.begin += delta;
        s.range.end += delta;
    }
    for (Collective &c : m_collectives) {
        c.start += delta;
        c.end += delta;
    }
    for (FlowPoint &p : m_flowPoints)
        p.time += delta;
    for (OomEvent &o : m_ooms)
        if (o.time != kNoTime)
            o.time += delta;
    for (MemorySummary &m : m_memorySummaries)
        if (m.time != kNoTime)
            m.time += delta;
    auto shift = [delta](auto &items) {
        for (auto &x : items)
            if (x.time != kNoTime)
                x.time += delta;
    };
    shift(m_logs.records);
    shift(m_logs.comms);
    shift(m_logs.calls);
    shift(m_logs.timeouts);
    shift(m_logs.failures);
    shift(m_logs.progress);
    shift(m_logs.jobEvents);
    shift(m_gpus.processes);
    for (FlightRecord &e : m_flight.entries)
        for (TimeNs *t : {&e.created, &e.started, &e.completed})
            if (*t != kNoTime)
                *t += delta;
    for (AllocationRecord &a : m_allocator.allocations) {
        if (a.time != kNoTime)
            a.time += delta;
        if (a.freed != kNoTime)
            a.freed += delta;
    }
}

void SourceBuilder::finish()
{
    TimeRange range;
    for (Track &t : m_tracks) {
        finalizeTrack(t);
        TimeRange tr;
        for (const Span &s : t.spans)
            tr = tr.united({s.start, std::max(s.end(), s.start + 1)});
        if (!t.instants.empty())
            tr = tr.united({t.instants.front().time, t.instants.back().time + 1});
        if (!t.counter.empty())
            tr = tr.united({t.counter.times.front(), t.counter.times.back() + 1});
        range = range.united(tr);
    }
    // Timed log evidence counts too: a log-only source still has a time range.
    auto addTimes = [&range](const auto &items) {
        for (const auto &x : items)
            if (x.time != kNoTime)
                range = range.united({x.time, x.time + 1});
    };
    addTimes(m_logs.records);
    addTimes(m_ooms);
    addTimes(m_memorySummaries);
    std::sort(m_steps.begin(), m_steps.end(), [](const Step &a, const Step &b) { return a.range.begin < b.range.begin; });
    std::sort(m_collectives.begin(), m_collectives.end(),
              [](const Collective &a, const Collective &b) { return a.start < b.start; });
    // A summary covers the time of the file it was written from, whatever it kept of it.
    if (m_source.summary)
        range = range.united(m_source.summary->originRange);
    m_source.timeRange = range;
    // Spans have their final places now, so a flow can name its two by index.
    if (!m_flowPoints.empty()) {
        FlowBinding bound = bindFlows(std::move(m_flowPoints), m_tracks);
        m_flowPoints = {};
        m_flows = std::move(bound.flows);
        m_source.counts.flows = static_cast<std::int64_t>(m_flows.size());
        m_source.counts.flowEndsUnpaired = bound.unpaired + 2 * bound.unbound;
    }
    m_args.shrink();
}

} // namespace rs
