#include "flightrecorderlanes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace rs {

namespace {

// Wall-clock sanity: c10::getTime() is system_clock ns; anything outside 2000…2100 is not that.
constexpr TimeNs kEpoch2000 = 946'684'800'000'000'000LL;
constexpr TimeNs kEpoch2100 = 4'102'444'800'000'000'000LL;

} // namespace

const char *flightStateName(FlightRecord::State s)
{
    switch (s) {
    case FlightRecord::State::Scheduled: return "scheduled";
    case FlightRecord::State::Started: return "started";
    case FlightRecord::State::Completed: return "completed";
    }
    return "scheduled";
}

std::string FlightRecorderLanes::argsJson(const FlightRecord &r, bool completed) const
{
    nlohmann::ordered_json a;
    a["entry"] = r.index;
    a["record_id"] = r.recordId;
    a["pg_id"] = r.pgId;
    a["process_group"] = {r.pgName, r.pgDesc};
    a["collective_seq_id"] = r.collectiveSeq;
    a["p2p_seq_id"] = r.p2pSeq;
    a["op_id"] = r.opId;
    a["profiling_name"] = r.profilingName;
    a["is_p2p"] = r.isP2p;
    a["state"] = flightStateName(r.state);
    a["completed"] = completed;
    if (!completed)
        a["span_end"] = "last time stamp in the dump (not completed when dumped)";
    a["input_sizes"] = r.inputSizes;
    a["input_dtypes"] = r.inputDtypes;
    a["output_sizes"] = r.outputSizes;
    a["output_dtypes"] = r.outputDtypes;
    auto time = [](TimeNs t) { return t == kNoTime ? nlohmann::ordered_json() : nlohmann::ordered_json(t); };
    a["time_created_ns"] = time(r.created);
    a["time_discovered_started_ns"] = time(r.started);
    a["time_discovered_completed_ns"] = time(r.completed);
    if (r.durationMs >= 0)
        a["duration_ms"] = r.durationMs;
    a["timeout_ms"] = r.timeoutMs;
    a["retired"] = r.retired;
    if (r.stack >= 0) {
        auto &frames = a["frames"];
        frames = nlohmann::ordered_json::array();
        for (const StackFrame &f : m_out.flightRecorder().stacks[std::size_t(r.stack)])
            frames.push_back(f.name + " (" + f.filename + ":" + std::to_string(f.line) + ")");
    }
    return a.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void FlightRecorderLanes::build()
{
    auto &entries = m_out.flightRecorder().entries;
    TimeNs last = kNoTime;
    bool implausible = false;
    for (const FlightRecord &r : entries)
        for (TimeNs t : {r.created, r.started, r.completed})
            if (t != kNoTime) {
                last = last == kNoTime ? t : std::max(last, t);
                implausible = implausible || t < kEpoch2000 || t > kEpoch2100;
            }
    if (last == kNoTime)
        return;
    m_out.source().hasClock = !implausible;
    if (implausible)
        m_out.warning("fr-time-not-epoch", "time stamps are not wall-clock ns since the epoch (years 2000-2100); the dump "
                                           "has no clock");
    const StringId category = m_out.intern("flight_recorder");
    std::map<std::string, TrackId> lanes;
    std::int64_t spans = 0;
    for (const FlightRecord &r : entries) {
        const TimeNs start = r.started != kNoTime ? r.started : r.created;
        if (start == kNoTime)
            continue;
        const bool completed = r.completed != kNoTime;
        const TimeNs end = std::max(start, completed ? r.completed : last);
        auto lane = lanes.find(r.pgId);
        if (lane == lanes.end()) {
            const auto tid = static_cast<std::int64_t>(lanes.size());
            const TrackId id = m_out.track(TrackKind::GpuStream, 0, tid);
            // Short enough for the lane gutter; the spans' category and args say "flight recorder".
            std::string title = "NCCL PG " + r.pgName;
            if (!r.pgDesc.empty() && r.pgDesc != "undefined")
                title += " (" + r.pgDesc + ")";
            m_out.trackAt(id).name = m_out.intern(title);
            lane = lanes.emplace(r.pgId, id).first;
        }
        std::string name = r.profilingName.empty() ? std::string("nccl:?") : r.profilingName;
        if (r.isP2p)
            name += " p2p #" + std::to_string(r.p2pSeq);
        else
            name += " #" + std::to_string(r.collectiveSeq);
        if (r.state == FlightRecord::State::Started && !completed)
            name += " (started, not completed)";
        else if (r.state == FlightRecord::State::Scheduled && !completed)
            name += " (scheduled, not started)";
        Span sp;
        sp.start = start;
        sp.duration = end - start;
        sp.name = m_out.intern(name);
        sp.category = category;
        sp.args = m_out.addArgs(argsJson(r, completed));
        sp.flags = SpanFlagGpu | SpanFlagCollective;
        m_out.addSpan(lane->second, sp);
        ++spans;
    }
    m_out.source().counts.spans = spans;
}

} // namespace rs
