#pragma once
// What one importer task fills while it reads one file, on a worker thread. It owns its own string
// pool and args arena so tasks never share mutable state; SessionBuilder merges finished builders.

#include "textarena.h"
#include "flow.h"
#include "session.h"

#include <map>
#include <string>
#include <string_view>
#include <tuple>

namespace rs {

class SourceBuilder
{
public:
    explicit SourceBuilder(std::string path);
    SourceBuilder(SourceBuilder &&) noexcept;
    SourceBuilder &operator=(SourceBuilder &&) noexcept;
    ~SourceBuilder();

    /// Format id, counts, ranks, metadata and diagnostics of the file.
    Source &source() { return m_source; }
    const Source &source() const { return m_source; }

    StringId intern(std::string_view s) { return m_strings.intern(s); }
    std::string_view str(StringId id) const { return m_strings.view(id); }
    ArgsId addArgs(std::string_view compactJson) { return m_args.add(compactJson); }
    /// The raw args of `id` in this source's arena.
    std::string_view args(ArgsId id) const { return m_args.view(id); }
    /// Replaces the args arena; the spans and instants kept must refer to ids of the new one.
    void replaceArgs(TextArena args) { m_args = std::move(args); }

    /// Finds or creates the track of `kind` for (pid, tid, device). `rank` may stay kNoRank: such
    /// tracks take the source's rank when the session is frozen.
    TrackId track(TrackKind kind, std::int64_t pid, std::int64_t tid, std::int32_t device = -1,
                  RankId rank = kNoRank);
    Track &trackAt(TrackId id) { return m_tracks[id]; }
    const std::vector<Track> &tracks() const { return m_tracks; }

    void addSpan(TrackId track, const Span &span) { m_tracks[track].spans.push_back(span); }
    void addInstant(TrackId track, const Instant &instant) { m_tracks[track].instants.push_back(instant); }
    void addCounterSample(TrackId track, TimeNs t, double value);
    void addStep(const Step &step) { m_steps.push_back(step); }
    void addCollective(const Collective &c) { m_collectives.push_back(c); }
    void addDevice(const DeviceInfo &d) { m_source.devices.push_back(d); }
    /// One `s` or `f` flow event; finish() pairs and binds them (flow.h).
    void addFlowPoint(const FlowPoint &p) { m_flowPoints.push_back(p); }
    /// The bound flows (after finish()), sorted by their start end; track ids are this source's.
    const std::vector<Flow> &flows() const { return m_flows; }
    /// Forgets the flows, for a caller that is about to drop or reorder spans.
    void clearFlows()
    {
        m_flows.clear();
        m_flowPoints.clear();
    }
    /// Returns the index of the OOM within this source (for MemorySummary::oom).
    std::int32_t addOom(OomEvent oom)
    {
        m_ooms.push_back(std::move(oom));
        return static_cast<std::int32_t>(m_ooms.size() - 1);
    }
    void addMemorySummary(MemorySummary summary) { m_memorySummaries.push_back(std::move(summary)); }
    const std::vector<OomEvent> &ooms() const { return m_ooms; }
    const std::vector<MemorySummary> &memorySummaries() const { return m_memorySummaries; }
    /// Mutable, for importers that decide an OOM's or table's rank only once the whole file is read.
    std::vector<OomEvent> &ooms() { return m_ooms; }
    std::vector<MemorySummary> &memorySummaries() { return m_memorySummaries; }
    /// Log records and structured log evidence of this source.
    LogEvidence &logs() { return m_logs; }
    const LogEvidence &logs() const { return m_logs; }
    /// Allocator snapshot evidence of this source (stack indexes local to it).
    AllocatorEvidence &allocator() { return m_allocator; }
    const AllocatorEvidence &allocator() const { return m_allocator; }
    /// nvidia-smi GPU identities and per-process GPU memory of this source.
    GpuEvidence &gpus() { return m_gpus; }
    const GpuEvidence &gpus() const { return m_gpus; }
    /// Flight-recorder evidence of this source (stack indexes local to it).
    FlightRecorderEvidence &flightRecorder() { return m_flight; }
    const FlightRecorderEvidence &flightRecorder() const { return m_flight; }

    /// Reports a problem under a stable `code` (kebab-case, DESIGN.md §3 `code`). Repeats of a code
    /// with the same severity are counted into the first report, keeping a few as examples.
    void warning(std::string_view code, std::string message, std::int64_t line = -1, std::int64_t offset = -1);
    void error(std::string_view code, std::string message, std::int64_t line = -1, std::int64_t offset = -1);
    /// Occurrences of `code` reported so far (0 when none).
    std::int64_t diagnosticCount(std::string_view code) const;

    /// Adds `delta` ns to every time read so far (used once the file's time base is known).
    void shiftTimes(TimeNs delta);
    /// Sorts and nests every track, computes the time range. Call once, on the worker thread.
    void finish();

    const std::vector<Step> &steps() const { return m_steps; }
    const std::vector<Collective> &collectives() const { return m_collectives; }

private:
    friend class SessionBuilder;
    friend class SourceArchive; // the import cache stores and restores a finished builder
    void report(Diagnostic::Severity severity, std::string_view code, std::string message, std::int64_t line,
                std::int64_t offset);
    Source m_source;
    StringPool m_strings;
    TextArena m_args;
    std::vector<Track> m_tracks;
    std::map<std::tuple<int, std::int64_t, std::int64_t, std::int32_t, RankId>, TrackId> m_trackIndex;
    std::vector<Step> m_steps;
    std::vector<Collective> m_collectives;
    std::vector<FlowPoint> m_flowPoints; // read, not yet bound
    std::vector<Flow> m_flows;
    std::vector<OomEvent> m_ooms;
    std::vector<MemorySummary> m_memorySummaries;
    LogEvidence m_logs;
    AllocatorEvidence m_allocator;
    GpuEvidence m_gpus;
    FlightRecorderEvidence m_flight;
};

} // namespace rs
