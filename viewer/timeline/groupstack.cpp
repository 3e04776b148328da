#include "groupstack.h"

#include "analysisoverlay.h"
#include "plural.h"
#include "timeformat.h"
#include "timelinecontext.h"
#include "viewstate.h"

#include <QLocale>

#include <algorithm>

namespace rs {

namespace {

// The header's muted summary and red alerts: what the rank holds, said once per session.
void describe(const TimelineContext &ctx, const Rank &r, GroupHeader &header)
{
    std::size_t spans = 0;
    int lanes = 0;
    double peak = 0;
    for (TrackId id : r.tracks) {
        const Track &t = ctx.session->tracks()[id];
        spans += t.spans.size();
        lanes += (t.spans.empty() && t.counter.empty() && t.instants.empty()) ? 0 : 1;
        if (t.kind == TrackKind::MemoryAllocated && id < ctx.counterMax.size())
            peak = std::max(peak, ctx.counterMax[id]);
    }
    QStringList parts;
    if (lanes > 0)
        parts << countOf(lanes, GroupStack::tr("lane"), GroupStack::tr("lanes"));
    if (spans > 0)
        parts << countOf(static_cast<qint64>(spans), GroupStack::tr("span"), GroupStack::tr("spans"));
    if (!r.steps.empty())
        parts << countOf(static_cast<qint64>(r.steps.size()), GroupStack::tr("step"), GroupStack::tr("steps"));
    if (peak > 0)
        parts << GroupStack::tr("peak allocated %1").arg(TimeFormat::bytes(peak));
    const std::size_t timed = ctx.evidence.logs(r.id).size();
    const std::size_t logs = timed + ctx.evidence.untimedLogCount(r.id);
    if (logs > 0) {
        const QString records = countOf(static_cast<qint64>(logs), GroupStack::tr("log record"), GroupStack::tr("log records"));
        parts << (timed == logs ? records
                  : timed == 0  ? GroupStack::tr("%1, none timed").arg(records)
                                : GroupStack::tr("%1 (%2 untimed)").arg(records).arg(QLocale().toString(static_cast<qint64>(logs - timed))));
    }
    if (const DeviceInfo *d = LaneLayout::deviceInfo(r, LaneLayout::rankDevice(*ctx.session, r)))
        parts << GroupStack::tr("GPU %1: %2").arg(d->id).arg(QString::fromStdString(d->name));
    // A placeholder rank stands for a process whose log never said its rank: say which process.
    if (!r.unknownProcess.empty())
        parts.prepend(GroupStack::tr("rank unknown: process %1").arg(QString::fromStdString(r.unknownProcess)));
    header.summary = parts.join(QStringLiteral("  ·  "));
    header.alerts.clear();
    if (const std::size_t ooms = ctx.evidence.oomCount(r.id))
        header.alerts << (ooms == 1 ? GroupStack::tr("OOM") : GroupStack::tr("%1 OOMs").arg(ooms));
    if (const std::size_t errors = ctx.evidence.errorCount(r.id))
        header.alerts << countOf(static_cast<qint64>(errors), GroupStack::tr("error"), GroupStack::tr("errors"));
}

} // namespace

void GroupStack::clear()
{
    m_entries.clear();
    m_index.clear();
}

void GroupStack::build(TimelineContext &ctx, int top)
{
    clear();
    m_top = top;
    if (!ctx.session)
        return;
    m_entries.reserve(ctx.session->ranks().size());
    for (const Rank &rank : ctx.session->ranks()) {
        GroupEntry e;
        e.rank = rank.id;
        e.hidden = ctx.state->isRankHidden(rank.id);
        describe(ctx, rank, e.header);
        layOut(ctx, e);
        m_index.emplace(rank.id, m_entries.size());
        m_entries.push_back(std::move(e));
    }
    analysisChanged(ctx);
    restack();
}

void GroupStack::layOut(TimelineContext &ctx, GroupEntry &entry)
{
    const ViewState &state = *ctx.state;
    const Rank &rank = *ctx.session->rank(entry.rank);
    LaneLayout::Options o;
    o.collapsed = state.isRankCollapsed(entry.rank);
    o.timedLogs = !ctx.evidence.logs(entry.rank).empty();
    o.findings = entry.findings;
    o.memoryHeight = state.memoryLaneHeight();
    entry.layout.build(*ctx.session, rank, o);
    if (state.compactLanes())
        entry.layout.applyCompact(*ctx.session);
    if (state.hiddenLaneCount(entry.rank) > 0) {
        const RankId r = entry.rank;
        entry.layout.filter([&state, r](Lane &lane) {
            const std::string_view id = lane.kind->id();
            return lane.kind->fullRow() || !state.isLaneHidden(r, QString::fromLatin1(id.data(), static_cast<qsizetype>(id.size())), lane.track);
        });
    }
}

bool GroupStack::relayout(TimelineContext &ctx, RankId rank)
{
    bool changed = false;
    for (GroupEntry &e : m_entries) {
        if (rank != kNoRank && e.rank != rank)
            continue;
        const int before = e.layout.height();
        layOut(ctx, e);
        changed |= e.layout.height() != before;
    }
    restack();
    return changed;
}

void GroupStack::analysisChanged(const TimelineContext &ctx)
{
    for (GroupEntry &e : m_entries)
        e.header.divergence = ctx.analysis ? AnalysisOverlay::divergenceBadge(*ctx.analysis, e.rank) : QString();
}

bool GroupStack::setFindingRows(TimelineContext &ctx, const std::set<RankId> &ranks)
{
    bool changed = false;
    for (GroupEntry &e : m_entries) {
        const bool on = ranks.contains(e.rank);
        if (e.findings == on)
            continue;
        e.findings = on;
        layOut(ctx, e);
        changed = true;
    }
    if (changed)
        restack(); // once, however many groups gained or lost their row
    return changed;
}

void GroupStack::setHidden(RankId rank, bool hidden)
{
    if (GroupEntry *e = findMutable(rank)) {
        e->hidden = hidden;
        restack();
    }
}

void GroupStack::setTop(int top)
{
    if (top == m_top)
        return;
    m_top = top;
    restack();
}

void GroupStack::restack()
{
    int y = m_top;
    for (GroupEntry &e : m_entries) {
        e.y = y;
        y += e.height();
    }
}

const GroupEntry *GroupStack::find(RankId rank) const
{
    const auto it = m_index.find(rank);
    return it == m_index.end() ? nullptr : &m_entries[it->second];
}

GroupEntry *GroupStack::findMutable(RankId rank)
{
    const auto it = m_index.find(rank);
    return it == m_index.end() ? nullptr : &m_entries[it->second];
}

std::ptrdiff_t GroupStack::indexOf(RankId rank) const
{
    const auto it = m_index.find(rank);
    return it == m_index.end() ? -1 : static_cast<std::ptrdiff_t>(it->second);
}

std::pair<std::size_t, std::size_t> GroupStack::overlapping(int top, int bottom) const
{
    // Entries are stacked in order, so both ends are binary searches (a hidden entry has no rows).
    const auto first = std::partition_point(m_entries.begin(), m_entries.end(), [top](const GroupEntry &e) { return e.bottom() <= top; });
    const auto last = std::partition_point(first, m_entries.end(), [bottom](const GroupEntry &e) { return e.y < bottom; });
    return {static_cast<std::size_t>(first - m_entries.begin()), static_cast<std::size_t>(last - m_entries.begin())};
}

const GroupEntry *GroupStack::at(int y) const
{
    const auto [first, last] = overlapping(y, y + 1);
    for (std::size_t i = first; i < last; ++i)
        if (!m_entries[i].hidden)
            return &m_entries[i];
    return nullptr;
}

int GroupStack::bottom() const
{
    return m_entries.empty() ? m_top : m_entries.back().bottom();
}

} // namespace rs
