#include "evidenceindex.h"

#include "oomincidents.h"

#include "placements.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace rs {

namespace {

const std::vector<TimedLog> kNoLogs;
const std::vector<OomMarker> kNoOoms;

// The profiler's [OutOfMemory] instant carries the failed request as args "Bytes".
std::int64_t requestedBytes(std::string_view args)
{
    if (args.empty())
        return -1;
    const QJsonValue bytes = QJsonDocument::fromJson(QByteArray(args.data(), static_cast<qsizetype>(args.size())))
                                 .object()
                                 .value(QLatin1String("Bytes"));
    return bytes.isDouble() ? static_cast<std::int64_t>(bytes.toDouble()) : -1;
}

} // namespace

void EvidenceIndex::build(const Session *session, const AnalysisResult *analysis)
{
    m_ranks.clear();
    m_extent = {};
    m_placedExtent = {};
    if (!session)
        return;
    const auto &records = session->logs().records;
    for (std::uint32_t i = 0; i < records.size(); ++i) {
        const LogRecord &r = records[i];
        if (r.time != kNoTime)
            m_extent = m_extent.united({r.time, r.time + 1});
        if (r.rank < 0)
            continue; // job-level and unresolved records have no rank group; the log panel lists them
        PerRank &pr = m_ranks[r.rank];
        pr.errors += r.level == LogLevel::Error ? 1 : 0;
        const Placement *placed = r.time == kNoTime ? findLogPlacement(*session, analysis, i) : nullptr;
        if (r.time == kNoTime && !placed) {
            ++pr.untimed;
            continue;
        }
        const TimeNs time = placed ? placedDataTime(*analysis, *placed) : r.time;
        if (placed) {
            m_extent = m_extent.united({time, time + 1});
            const TimeNs aligned = time + analysis->offsetOf(r.rank);
            m_placedExtent = m_placedExtent.united({aligned, aligned + 1});
        }
        const TimedLog t{time, i, LogStyle::mark(r), placed};
        pr.logs.push_back(t);
        if (t.mark != LogStyle::Mark::Info)
            pr.notable.push_back(t);
    }
    const auto &ooms = session->ooms();
    for (std::uint32_t i = 0; i < ooms.size(); ++i) {
        const OomEvent &o = ooms[i];
        if (o.rank < 0)
            continue;
        PerRank &pr = m_ranks[o.rank];
        const Placement *placed = o.time == kNoTime ? findPlacement(analysis, Placement::Kind::Oom, i) : nullptr;
        if (o.time == kNoTime && !placed)
            continue;
        const TimeNs time = placed ? placedDataTime(*analysis, *placed) : o.time;
        pr.ooms.push_back({time, EventRef::oom(i), o.requested, placed});
        m_extent = m_extent.united({time, time + 1});
        if (placed) {
            const TimeNs aligned = time + analysis->offsetOf(o.rank);
            m_placedExtent = m_placedExtent.united({aligned, aligned + 1});
        }
    }
    // The profiler's [OutOfMemory] instants mark the same moment from inside the trace.
    for (TrackId id = 0; id < session->tracks().size(); ++id) {
        const Track &t = session->tracks()[id];
        if (t.rank < 0)
            continue;
        for (std::uint32_t i = 0; i < t.instants.size(); ++i)
            if (t.instants[i].flags & SpanFlagOutOfMemory) {
                PerRank &pr = m_ranks[t.rank];
                pr.ooms.push_back({t.instants[i].time, EventRef::instant(id, i), requestedBytes(session->args(id, t.instants[i].args))});
            }
    }
    // How many OOMs: the analysis' one count (a message, an instant and a memory_summary of the
    // same failure are one), so the rank header says what the metrics say.
    for (const RankOoms &ro : OomIncidents::find(*session))
        m_ranks[ro.rank].oomCount = std::size_t(ro.count);
    auto byTime = [](const auto &a, const auto &b) { return a.time < b.time; };
    for (auto &[rank, pr] : m_ranks) {
        std::stable_sort(pr.logs.begin(), pr.logs.end(), byTime);
        std::stable_sort(pr.notable.begin(), pr.notable.end(), byTime);
        std::stable_sort(pr.ooms.begin(), pr.ooms.end(), byTime);
    }
}

const EvidenceIndex::PerRank *EvidenceIndex::find(RankId rank) const
{
    const auto it = m_ranks.find(rank);
    return it == m_ranks.end() ? nullptr : &it->second;
}

const std::vector<TimedLog> &EvidenceIndex::logs(RankId rank) const
{
    const PerRank *pr = find(rank);
    return pr ? pr->logs : kNoLogs;
}

const std::vector<TimedLog> &EvidenceIndex::notableLogs(RankId rank) const
{
    const PerRank *pr = find(rank);
    return pr ? pr->notable : kNoLogs;
}

std::pair<std::size_t, std::size_t> EvidenceIndex::inRange(const std::vector<TimedLog> &logs, TimeRange range)
{
    auto lo = std::lower_bound(logs.begin(), logs.end(), range.begin, [](const TimedLog &l, TimeNs t) { return l.time < t; });
    auto hi = std::lower_bound(lo, logs.end(), range.end, [](const TimedLog &l, TimeNs t) { return l.time < t; });
    return {static_cast<std::size_t>(lo - logs.begin()), static_cast<std::size_t>(hi - logs.begin())};
}

std::ptrdiff_t EvidenceIndex::positionOf(RankId rank, std::uint32_t index) const
{
    const auto &l = logs(rank);
    for (std::size_t i = 0; i < l.size(); ++i)
        if (l[i].index == index)
            return static_cast<std::ptrdiff_t>(i);
    return -1;
}

std::size_t EvidenceIndex::untimedLogCount(RankId rank) const
{
    const PerRank *pr = find(rank);
    return pr ? pr->untimed : 0;
}

const std::vector<OomMarker> &EvidenceIndex::ooms(RankId rank) const
{
    const PerRank *pr = find(rank);
    return pr ? pr->ooms : kNoOoms;
}

std::size_t EvidenceIndex::oomCount(RankId rank) const
{
    const PerRank *pr = find(rank);
    return pr ? pr->oomCount : 0;
}

std::size_t EvidenceIndex::errorCount(RankId rank) const
{
    const PerRank *pr = find(rank);
    return pr ? pr->errors : 0;
}

} // namespace rs
