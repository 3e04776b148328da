#include "sessionbuilder.h"

#include "stepcompleteness.h"

#include <algorithm>
#include <regex>
#include <set>

namespace rs {

namespace {

int kindOrder(TrackKind k)
{
    switch (k) {
    case TrackKind::MemoryAllocated: return 0;
    case TrackKind::MemoryReserved: return 1;
    case TrackKind::GpuMemoryUsed: return 2;
    case TrackKind::GpuUtilization: return 3;
    case TrackKind::Counter: return 4;
    case TrackKind::Markers: return 5;
    case TrackKind::Log: return 6;
    case TrackKind::CpuThread: return 7;
    case TrackKind::GpuStream: return 8;
    }
    return 9;
}

} // namespace

void SessionBuilder::addSource(SourceBuilder &&source)
{
    m_pending.push_back(std::move(source));
}

std::optional<RankId> SessionBuilder::rankFromFileName(const std::string &path)
{
    const auto slash = path.find_last_of("/\\");
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    static const std::regex rankRe(R"((?:^|[^a-z])rank[-_]?(\d{1,6})(?!\d))", std::regex::icase | std::regex::ECMAScript);
    static const std::regex workerRe(R"((?:^|[^a-z])worker[-_]?(\d{1,6})(?!\d))", std::regex::icase | std::regex::ECMAScript);
    std::smatch m;
    if (std::regex_search(base, m, rankRe) || std::regex_search(base, m, workerRe))
        return static_cast<RankId>(std::stoi(m[1].str()));
    return std::nullopt;
}

void SessionBuilder::remapRanks(SourceBuilder &b, const std::map<RankId, RankId> &map)
{
    auto to = [&map](RankId r) {
        auto it = map.find(r);
        return it == map.end() ? r : it->second;
    };
    for (RankId &r : b.m_source.ranks)
        r = to(r);
    std::sort(b.m_source.ranks.begin(), b.m_source.ranks.end());
    b.m_source.ranks.erase(std::unique(b.m_source.ranks.begin(), b.m_source.ranks.end()), b.m_source.ranks.end());
    for (Track &t : b.m_tracks)
        if (t.rank != kNoRank)
            t.rank = to(t.rank);
    auto each = [&to](auto &items) {
        for (auto &x : items)
            if (x.rank >= 0)
                x.rank = to(x.rank);
    };
    each(b.m_collectives);
    each(b.m_ooms);
    each(b.m_memorySummaries);
    each(b.m_logs.records);
    each(b.m_logs.comms);
    each(b.m_logs.settings);
    each(b.m_logs.calls);
    each(b.m_logs.timeouts);
    each(b.m_logs.failures);
    each(b.m_logs.progress);
    each(b.m_logs.jobEvents);
    each(b.m_allocator.allocations);
    each(b.m_allocator.segments);
    each(b.m_gpus.gpus);
    each(b.m_gpus.processes);
    each(b.m_flight.entries);
    each(b.m_flight.groups);
    each(b.m_flight.status);
    for (FlightRecorderGroup &g : b.m_flight.groups)
        for (RankId &r : g.ranks)
            r = to(r);
}

void SessionBuilder::checkRankClaims(const std::vector<bool> &undecided)
{
    // Formats written once per rank: two of one kind claiming the same rank are two processes (or a
    // copied file), which the merge would silently fold into one lane.
    static const std::set<std::string> kPerRank = {"pytorch-trace", "flight-recorder", "memory-snapshot", "memory-timeline"};
    std::map<std::pair<std::string, RankId>, std::size_t> claimed;
    std::optional<std::size_t> worldOf;
    for (std::size_t i = 0; i < m_pending.size(); ++i) {
        if (undecided[i])
            continue;
        SourceBuilder &b = m_pending[i];
        const Source &src = b.m_source;
        if (src.ranks.size() == 1 && kPerRank.count(src.contentFormat()) && src.rankOrigin != RankOrigin::User) {
            const auto [it, fresh] = claimed.emplace(std::pair{src.contentFormat(), src.ranks.front()}, i);
            if (!fresh) {
                const std::string other = m_pending[it->second].m_source.path;
                const std::string what = "rank " + std::to_string(src.ranks.front()) + " is claimed by two " + src.contentFormat() + " files, ";
                b.warning("rank-claimed-twice", what + "this one and " + other
                              + "; their data are merged into one rank: if one is another rank, set it with --assign-rank "
                                "or Source Settings");
                m_pending[it->second].warning("rank-claimed-twice", what + "this one and " + src.path
                                                  + "; their data are merged into one rank: if one is another rank, set it "
                                                    "with --assign-rank or Source Settings");
            }
        }
        if (src.worldSize <= 0)
            continue;
        for (RankId r : src.ranks)
            if (r >= src.worldSize && src.rankOrigin != RankOrigin::User) {
                b.warning("rank-outside-world", "rank " + std::to_string(r) + " is not below the world size "
                                                    + std::to_string(src.worldSize) + " this file states");
                break;
            }
        if (!worldOf) {
            worldOf = i;
        } else if (const Source &first = m_pending[*worldOf].m_source; first.worldSize != src.worldSize) {
            b.warning("world-size-conflict", "this file states a world size of " + std::to_string(src.worldSize) + ", "
                                                 + first.path + " one of " + std::to_string(first.worldSize)
                                                 + ": they may come from different jobs");
        }
    }
}

std::shared_ptr<const Session> SessionBuilder::freeze()
{
    auto session = std::make_shared<Session>();
    Session &s = *session;

    // GPU index → rank, from NCCL init lines, usable only when every device names one rank (one host).
    std::map<std::int32_t, std::set<RankId>> devRanks;
    for (const SourceBuilder &b : m_pending)
        for (const NcclCommInfo &c : b.m_logs.comms)
            if (c.cudaDev >= 0 && c.rank >= 0 && c.nranks == b.m_source.worldSize)
                devRanks[c.cudaDev].insert(c.rank);
    std::map<RankId, RankId> byNccl;
    bool ncclUsable = !devRanks.empty();
    for (const auto &[dev, ranks] : devRanks) {
        if (ranks.size() != 1)
            ncclUsable = false;
        else
            byNccl[dev] = *ranks.begin();
    }
    for (SourceBuilder &b : m_pending) {
        if (auto it = m_rankMaps.find(b.m_source.path); it != m_rankMaps.end()) {
            remapRanks(b, it->second);
            b.m_source.rankOrigin = RankOrigin::User;
        } else if (b.m_source.rankOrigin == RankOrigin::DeviceIndex && ncclUsable) {
            remapRanks(b, byNccl);
            b.m_source.rankOrigin = RankOrigin::NcclDevice;
        }
    }

    // Pass 1: decide every source's ranks, so sources without any can take the lowest free ones.
    std::set<RankId> used;
    std::vector<bool> needsRank(m_pending.size(), false);
    for (std::size_t i = 0; i < m_pending.size(); ++i) {
        Source &src = m_pending[i].m_source;
        if (auto it = m_overrides.find(src.path); it != m_overrides.end()) {
            src.ranks = {it->second};
            src.rankOrigin = RankOrigin::User;
        } else if (!src.ranks.empty()) {
            // Importers that derive ranks indirectly (GPU index) say so; the rest read them from content.
            if (src.rankOrigin == RankOrigin::Assigned)
                src.rankOrigin = RankOrigin::Content;
        } else if (auto r = rankFromFileName(src.path)) {
            src.ranks = {*r};
            src.rankOrigin = RankOrigin::FileName;
        } else {
            needsRank[i] = true;
            continue;
        }
        used.insert(src.ranks.begin(), src.ranks.end());
    }
    checkRankClaims(needsRank);
    RankId next = 0;
    // Processes a log could not name (several host:pid, no rank stated) each get a placeholder
    // rank of their own: distinct processes must never be merged into one lane.
    std::map<RankId, std::string> placeholders;
    for (std::size_t i = 0; i < m_pending.size(); ++i) {
        SourceBuilder &b = m_pending[i];
        if (b.m_logs.processes.empty() || m_overrides.count(b.m_source.path))
            continue;
        for (LogProcess &p : b.m_logs.processes) {
            while (used.count(next))
                ++next;
            p.rank = next;
            used.insert(next);
            b.m_source.ranks.push_back(next);
            const std::string who = p.host + ":" + std::to_string(p.pid);
            placeholders[next] = who;
            b.warning("rank-unknown-process",
                      "process " + who + " names no rank (no launcher prefix, no NCCL Init line); it is shown apart as rank "
                          + std::to_string(next) + ", rank unknown",
                      p.firstLine);
        }
        auto place = [&b](auto &items) {
            for (auto &x : items)
                if (x.rank == kNoRank && x.process >= 0 && std::size_t(x.process) < b.m_logs.processes.size())
                    x.rank = b.m_logs.processes[std::size_t(x.process)].rank;
        };
        place(b.m_logs.records);
        place(b.m_logs.settings);
        place(b.m_logs.calls);
        std::sort(b.m_source.ranks.begin(), b.m_source.ranks.end());
        if (needsRank[i]) {
            needsRank[i] = false;
            b.m_source.rankOrigin = RankOrigin::Assigned;
        }
    }
    next = 0;
    for (std::size_t i = 0; i < m_pending.size(); ++i) {
        if (!needsRank[i])
            continue;
        // A file that produced nothing rank-bound (unreadable, or not a trace) should not claim a rank.
        if (m_pending[i].m_tracks.empty() && m_pending[i].m_steps.empty() && m_pending[i].m_ooms.empty()
            && m_pending[i].m_memorySummaries.empty() && m_pending[i].m_logs.empty()
            && m_pending[i].m_allocator.empty() && m_pending[i].m_gpus.gpus.empty()
            && m_pending[i].m_flight.empty()) {
            m_pending[i].m_source.rankOrigin = RankOrigin::Assigned;
            continue;
        }
        while (used.count(next))
            ++next;
        m_pending[i].m_source.ranks = {next};
        m_pending[i].m_source.rankOrigin = RankOrigin::Assigned;
        used.insert(next);
    }

    // Pass 2: merge.
    std::map<RankId, Rank> ranks;
    for (std::size_t i = 0; i < m_pending.size(); ++i) {
        SourceBuilder &b = m_pending[i];
        const auto sourceId = static_cast<SourceId>(s.m_sources.size());
        const RankId primary = b.m_source.ranks.empty() ? kNoRank : b.m_source.ranks.front();
        std::vector<StringId> remap(b.m_strings.size());
        for (StringId id = 0; id < remap.size(); ++id)
            remap[id] = s.m_strings.intern(b.m_strings.view(id));
        const auto trackBase = static_cast<TrackId>(s.m_tracks.size());
        for (Track &t : b.m_tracks) {
            if (t.rank == kNoRank)
                t.rank = primary;
            t.source = sourceId;
            t.name = remap[t.name];
            for (Span &sp : t.spans) {
                sp.name = remap[sp.name];
                sp.category = remap[sp.category];
            }
            for (Instant &in : t.instants) {
                in.name = remap[in.name];
                in.category = remap[in.category];
            }
            const auto id = static_cast<TrackId>(s.m_tracks.size());
            if (t.rank != kNoRank) {
                Rank &r = ranks[t.rank];
                r.id = t.rank;
                r.tracks.push_back(id);
                TimeRange tr;
                if (!t.spans.empty()) {
                    TimeNs lo = t.spans.front().start, hi = lo;
                    for (const Span &sp : t.spans) {
                        lo = std::min(lo, sp.start);
                        hi = std::max(hi, sp.end());
                    }
                    tr = tr.united({lo, std::max(hi, lo + 1)});
                }
                if (!t.instants.empty())
                    tr = tr.united({t.instants.front().time, t.instants.back().time + 1});
                if (!t.counter.empty())
                    tr = tr.united({t.counter.times.front(), t.counter.times.back() + 1});
                r.timeRange = r.timeRange.united(tr);
            }
            s.m_tracks.push_back(std::move(t));
        }
        for (Flow f : b.m_flows) {
            f.from.track += trackBase;
            f.to.track += trackBase;
            s.m_flows.push_back(f);
        }
        for (Step st : b.m_steps) {
            st.track = st.track == kNoTrack ? kNoTrack : st.track + trackBase;
            const RankId rk = st.track != kNoTrack ? s.m_tracks[st.track].rank : primary;
            if (rk == kNoRank)
                continue;
            ranks[rk].id = rk;
            ranks[rk].steps.push_back(st);
        }
        for (Collective c : b.m_collectives) {
            c.track = c.track == kNoTrack ? kNoTrack : c.track + trackBase;
            if (c.rank == kNoRank)
                c.rank = c.track != kNoTrack ? s.m_tracks[c.track].rank : primary;
            c.op = remap[c.op];
            c.processGroup = remap[c.processGroup];
            c.dtype = remap[c.dtype];
            s.m_collectives.push_back(c);
        }
        const auto oomBase = static_cast<std::int32_t>(s.m_ooms.size());
        for (OomEvent o : b.m_ooms) {
            o.source = sourceId;
            if (o.rank == kNoRank)
                o.rank = primary;
            s.m_ooms.push_back(std::move(o));
        }
        for (MemorySummary m : b.m_memorySummaries) {
            m.source = sourceId;
            if (m.rank == kNoRank)
                m.rank = primary;
            if (m.oom >= 0)
                m.oom += oomBase;
            s.m_memorySummaries.push_back(std::move(m));
        }
        auto appendLogs = [primary](auto &from, auto &to) {
            for (auto &x : from) {
                if (x.rank == kNoRank)
                    x.rank = primary;
                to.push_back(std::move(x));
            }
        };
        for (LogRecord &r : b.m_logs.records)
            r.source = sourceId;
        // The builder's messages move whole (their chunks, loaded or lazy, keep their place).
        if (s.m_logs.texts.size() <= sourceId)
            s.m_logs.texts.resize(std::size_t(sourceId) + 1);
        if (!b.m_logs.texts.empty())
            s.m_logs.texts[sourceId] = std::move(b.m_logs.texts.front());
        appendLogs(b.m_logs.records, s.m_logs.records);
        appendLogs(b.m_logs.comms, s.m_logs.comms);
        appendLogs(b.m_logs.settings, s.m_logs.settings);
        appendLogs(b.m_logs.calls, s.m_logs.calls);
        appendLogs(b.m_logs.timeouts, s.m_logs.timeouts);
        appendLogs(b.m_logs.failures, s.m_logs.failures);
        appendLogs(b.m_logs.progress, s.m_logs.progress);
        appendLogs(b.m_logs.jobEvents, s.m_logs.jobEvents);
        for (LogProcess &p : b.m_logs.processes)
            s.m_logs.processes.push_back(std::move(p));
        const auto stackBase = static_cast<std::int32_t>(s.m_allocator.stacks.size());
        for (auto &stack : b.m_allocator.stacks)
            s.m_allocator.stacks.push_back(std::move(stack));
        for (AllocationRecord &a : b.m_allocator.allocations)
            if (a.stack >= 0)
                a.stack += stackBase;
        for (SegmentRecord &seg : b.m_allocator.segments) {
            if (seg.stack >= 0)
                seg.stack += stackBase;
            for (auto &blk : seg.blocks)
                if (blk.stack >= 0)
                    blk.stack += stackBase;
        }
        appendLogs(b.m_allocator.allocations, s.m_allocator.allocations);
        appendLogs(b.m_allocator.segments, s.m_allocator.segments);
        if (s.m_allocator.settings.empty())
            s.m_allocator.settings = b.m_allocator.settings;
        // Processes keep kNoRank until their GPU is known (resolveGpuProcesses): a compute-apps row
        // names a uuid, not the rank of the file.
        for (GpuRecord &g : b.m_gpus.gpus) {
            g.source = sourceId;
            s.m_gpus.gpus.push_back(std::move(g));
        }
        for (GpuProcess &p : b.m_gpus.processes) {
            p.source = sourceId;
            s.m_gpus.processes.push_back(std::move(p));
        }
        const auto frStackBase = static_cast<std::int32_t>(s.m_flight.stacks.size());
        for (auto &stack : b.m_flight.stacks)
            s.m_flight.stacks.push_back(std::move(stack));
        auto appendFlight = [primary, sourceId](auto &from, auto &to) {
            for (auto &x : from) {
                x.source = sourceId;
                if (x.rank == kNoRank)
                    x.rank = primary;
                to.push_back(std::move(x));
            }
        };
        for (FlightRecord &e : b.m_flight.entries)
            if (e.stack >= 0)
                e.stack += frStackBase;
        appendFlight(b.m_flight.entries, s.m_flight.entries);
        appendFlight(b.m_flight.groups, s.m_flight.groups);
        appendFlight(b.m_flight.status, s.m_flight.status);
        for (RankId rk : b.m_source.ranks) {
            Rank &r = ranks[rk];
            r.id = rk;
            r.sources.push_back(sourceId);
            if (b.m_source.worldSize > 0)
                r.worldSize = b.m_source.worldSize;
            for (const DeviceInfo &d : b.m_source.devices)
                r.devices.push_back(d);
        }
        s.m_sources.push_back(std::move(b.m_source));
        s.m_args.push_back(std::move(b.m_args));
    }
    m_pending.clear();
    resolveGpuProcesses(s.m_gpus, s.m_logs);
    s.m_skipped = std::move(m_skipped);
    m_skipped.clear();

    for (auto &[id, r] : ranks) {
        if (auto it = placeholders.find(id); it != placeholders.end())
            r.unknownProcess = it->second;
        // A profiler's ProfilerStep spans are exact; steps read from a training log's per-step lines
        // only stand in for them when the rank has no trace, so no step is counted twice.
        if (std::any_of(r.steps.begin(), r.steps.end(), [](const Step &st) { return !st.fromLog; }))
            std::erase_if(r.steps, [](const Step &st) { return st.fromLog; });
        std::sort(r.steps.begin(), r.steps.end(), [](const Step &a, const Step &b) { return a.range.begin < b.range.begin; });
        std::stable_sort(r.tracks.begin(), r.tracks.end(), [&s](TrackId a, TrackId b) {
            const Track &x = s.m_tracks[a];
            const Track &y = s.m_tracks[b];
            return std::make_tuple(kindOrder(x.kind), x.device, x.sortIndex, x.pid, x.tid)
                < std::make_tuple(kindOrder(y.kind), y.device, y.sortIndex, y.pid, y.tid);
        });
        s.m_timeRange = s.m_timeRange.united(r.timeRange);
        s.m_ranks.push_back(std::move(r));
    }
    std::stable_sort(s.m_collectives.begin(), s.m_collectives.end(), [](const Collective &a, const Collective &b) {
        return a.rank != b.rank ? a.rank < b.rank : a.start < b.start;
    });
    // Sources add their flows in track order, each sorted by its start end: the whole list is too.
    s.m_flowsByEnd.resize(s.m_flows.size());
    for (std::uint32_t i = 0; i < s.m_flowsByEnd.size(); ++i)
        s.m_flowsByEnd[i] = i;
    std::sort(s.m_flowsByEnd.begin(), s.m_flowsByEnd.end(), [&s](std::uint32_t a, std::uint32_t b) {
        const FlowEnd &x = s.m_flows[a].to;
        const FlowEnd &y = s.m_flows[b].to;
        return x.track != y.track ? x.track < y.track : x.span < y.span;
    });
    StepCompleteness::mark(s.m_ranks, s);
    return session;
}

} // namespace rs
