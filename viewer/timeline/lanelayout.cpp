#include "lanelayout.h"

#include "lanekind.h"
#include "laneregistry.h"

#include <QCoreApplication>

#include <algorithm>

namespace rs {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("LaneLayout", text);
}

bool isDeviceMemory(const Track &t)
{
    return t.device >= 0
        && (t.kind == TrackKind::MemoryAllocated || t.kind == TrackKind::MemoryReserved
            || t.kind == TrackKind::GpuMemoryUsed)
        && !t.counter.empty();
}

} // namespace

QString LaneLayout::trackTitle(const Session &session, const Track &track)
{
    const std::string_view name = session.str(track.name);
    if (!name.empty())
        return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
    switch (track.kind) {
    case TrackKind::CpuThread: return tr("thread %1").arg(track.tid);
    case TrackKind::GpuStream: return tr("stream %1").arg(track.tid);
    case TrackKind::MemoryAllocated: return tr("allocated");
    case TrackKind::MemoryReserved: return tr("reserved");
    case TrackKind::GpuMemoryUsed: return tr("memory used (nvidia-smi)");
    case TrackKind::GpuUtilization: return tr("GPU utilisation");
    case TrackKind::Counter: return tr("counter");
    case TrackKind::Markers: return tr("markers");
    case TrackKind::Log: return tr("log");
    }
    return {};
}

void LaneLayout::build(const Session &session, const Rank &rank, bool collapsed, bool hasTimedLogs, bool findings)
{
    Options o;
    o.collapsed = collapsed;
    o.timedLogs = hasTimedLogs;
    o.findings = findings;
    build(session, rank, o);
}

void LaneLayout::build(const Session &session, const Rank &rank, const Options &options)
{
    m_lanes.clear();
    m_memoryTracks.clear();
    m_summaryTracks.clear();
    for (TrackId id : rank.tracks) {
        const Track &t = session.tracks()[id];
        if (isDeviceMemory(t))
            m_memoryTracks.push_back(id);
        if (t.kind == TrackKind::GpuStream && !t.spans.empty())
            m_summaryTracks.push_back(id);
    }
    if (m_summaryTracks.empty()) {
        for (TrackId id : rank.tracks) {
            const Track &t = session.tracks()[id];
            if (t.kind == TrackKind::CpuThread && !t.spans.empty())
                m_summaryTracks.push_back(id);
        }
    }

    int y = 0;
    LaneBuilder builder(session, rank, options, *this, m_lanes, y);
    const std::vector<const LaneKind *> kinds = LaneRegistry::instance().kinds();
    for (const LaneKind *kind : kinds)
        kind->addLanes(builder);
    // Track lanes follow the rank's track order; a track may have lanes of several kinds (a thread's
    // spans, then its instants in a row of their own).
    if (!options.collapsed)
        for (TrackId id : rank.tracks)
            if (!isMemoryTrack(id))
                for (const LaneKind *kind : kinds)
                    kind->addTrackLanes(builder, id);
    m_height = y + kGroupGap;
}

void LaneLayout::filter(const std::function<bool(Lane &)> &keep)
{
    std::vector<Lane> kept;
    int y = 0;
    for (Lane lane : m_lanes) {
        if (!keep(lane))
            continue;
        lane.top = y;
        y += lane.height;
        kept.push_back(std::move(lane));
    }
    m_lanes = std::move(kept);
    m_height = y + kGroupGap;
}

void LaneLayout::applyCompact(const Session &session)
{
    CompactFilter filter;
    filter.session = &session;
    for (const Lane &l : m_lanes)
        filter.anyGpu = filter.anyGpu || (l.is(LaneId::Spans) && session.tracks()[l.track].kind == TrackKind::GpuStream);
    this->filter([&filter](Lane &lane) { return lane.kind->keepInCompact(lane, filter); });
}

bool LaneLayout::isMemoryTrack(TrackId track) const
{
    return std::find(m_memoryTracks.begin(), m_memoryTracks.end(), track) != m_memoryTracks.end();
}

bool Lane::is(std::string_view id) const
{
    return kind && kind->id() == id;
}

int LaneLayout::rankDevice(const Session &session, const Rank &rank)
{
    for (TrackId id : rank.tracks) {
        const Track &t = session.tracks()[id];
        if (t.device >= 0 && (isDeviceMemory(t) || t.kind == TrackKind::GpuStream))
            return t.device;
    }
    return -1;
}

const DeviceInfo *LaneLayout::deviceInfo(const Rank &rank, int device)
{
    for (const DeviceInfo &d : rank.devices)
        if (d.id == device && !d.name.empty())
            return &d;
    return nullptr;
}

std::int64_t LaneLayout::deviceCapacity(const Rank &rank, int device)
{
    for (const DeviceInfo &d : rank.devices)
        if (d.id == device && d.totalMemory > 0)
            return d.totalMemory;
    return 0;
}

const Lane *LaneLayout::laneAt(int y) const
{
    auto it = std::upper_bound(m_lanes.begin(), m_lanes.end(), y, [](int v, const Lane &l) { return v < l.top; });
    if (it == m_lanes.begin())
        return nullptr;
    --it;
    return y < it->top + it->height ? &*it : nullptr;
}

const Lane *LaneLayout::laneForTrack(TrackId track) const
{
    for (const Lane &l : m_lanes)
        if (l.track == track)
            return &l;
    return nullptr;
}

const Lane *LaneLayout::lane(std::string_view id) const
{
    for (const Lane &l : m_lanes)
        if (l.is(id))
            return &l;
    return nullptr;
}

const Lane *LaneLayout::memoryLane() const
{
    return lane(LaneId::Memory);
}

const Lane *LaneLayout::findingsLane() const
{
    return lane(LaneId::Findings);
}

const Lane *LaneLayout::logLane() const
{
    return lane(LaneId::Log);
}

} // namespace rs
