#include "lanelayout.h"

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
    m_lanes.clear();
    m_memoryTracks.clear();
    m_summaryTracks.clear();
    int y = 0;
    auto add = [&](Lane::Kind kind, TrackId track, int height, QString title, QString badge = {}) {
        m_lanes.push_back({kind, track, y, height, std::move(title), std::move(badge)});
        y += height;
    };

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

    add(Lane::Kind::Header, kNoTrack, kHeaderHeight, tr("Rank %1").arg(rank.id));
    if (collapsed) {
        add(Lane::Kind::Summary, kNoTrack, kSummaryHeight,
            m_summaryTracks.empty() ? tr("no activity") : tr("activity"));
        m_height = y + kGroupGap;
        return;
    }
    if (findings)
        add(Lane::Kind::Findings, kNoTrack, kFindingsHeight, tr("Findings"));
    if (!m_memoryTracks.empty()) {
        const int device = session.tracks()[m_memoryTracks.front()].device;
        // The gutter lists every curve with its peak, and the GPU's capacity: one title row, one
        // row per curve, one for the capacity when it is known.
        const int rows = static_cast<int>(m_memoryTracks.size()) + (deviceCapacity(rank, device) > 0 ? 1 : 0);
        const int legend = kRowHeight + kLegendRow * rows + 6;
        add(Lane::Kind::Memory, kNoTrack, std::max(kMemoryHeight, legend), tr("Memory · GPU %1").arg(device));
    }
    if (!rank.steps.empty())
        add(Lane::Kind::Steps, kNoTrack, kStepsHeight, tr("Steps"));
    if (hasTimedLogs)
        add(Lane::Kind::Log, kNoTrack, kLogHeight, tr("Log"), tr("LOG"));
    for (TrackId id : rank.tracks) {
        const Track &t = session.tracks()[id];
        if (std::find(m_memoryTracks.begin(), m_memoryTracks.end(), id) != m_memoryTracks.end())
            continue;
        const QString title = trackTitle(session, t);
        switch (t.kind) {
        case TrackKind::CpuThread:
        case TrackKind::GpuStream:
            if (!t.spans.empty())
                add(Lane::Kind::Spans, id, t.levelCount() * kRowHeight + 2 * kLanePadding + 1, title,
                    t.kind == TrackKind::GpuStream ? tr("GPU") : tr("CPU"));
            // Thread instants get a row of their own under the spans rather than covering them.
            if (!t.instants.empty())
                add(Lane::Kind::Instants, id, kInstantsHeight, t.spans.empty() ? title : tr("instants"),
                    t.spans.empty() ? (t.kind == TrackKind::GpuStream ? tr("GPU") : tr("CPU")) : QString());
            break;
        case TrackKind::MemoryAllocated:
        case TrackKind::MemoryReserved:
        case TrackKind::GpuMemoryUsed:
        case TrackKind::GpuUtilization:
        case TrackKind::Counter:
            if (!t.counter.empty())
                add(Lane::Kind::Counter, id, kCounterHeight, title);
            break;
        case TrackKind::Markers:
        case TrackKind::Log:
            if (!t.instants.empty())
                add(Lane::Kind::Instants, id, kInstantsHeight, title, t.kind == TrackKind::Log ? tr("LOG") : QString());
            break;
        }
    }
    m_height = y + kGroupGap;
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

const Lane *LaneLayout::memoryLane() const
{
    for (const Lane &l : m_lanes)
        if (l.kind == Lane::Kind::Memory)
            return &l;
    return nullptr;
}

const Lane *LaneLayout::findingsLane() const
{
    for (const Lane &l : m_lanes)
        if (l.kind == Lane::Kind::Findings)
            return &l;
    return nullptr;
}

const Lane *LaneLayout::logLane() const
{
    for (const Lane &l : m_lanes)
        if (l.kind == Lane::Kind::Log)
            return &l;
    return nullptr;
}

} // namespace rs
