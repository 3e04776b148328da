#include "ranksoverviewpainter.h"

#include "lanelayout.h"
#include "lod.h"
#include "logstyle.h"
#include "rankcolors.h"
#include "timelinecontext.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace rs {

namespace {

const QColor kNoData(0xf6, 0xf7, 0xf9);
const QColor kSelected(0x1f, 0x23, 0x2b);

// The rank's allocated-memory counter on its own GPU and what 100 % means for it.
const Track *allocatedTrack(const Session &s, const Rank &rank, double *capacity, double memoryMax)
{
    const int device = LaneLayout::rankDevice(s, rank);
    for (TrackId id : rank.tracks) {
        const Track &t = s.tracks()[id];
        if (t.kind == TrackKind::MemoryAllocated && t.device == device && !t.counter.empty()) {
            const auto cap = static_cast<double>(LaneLayout::deviceCapacity(rank, device));
            *capacity = cap > 0 ? cap : memoryMax;
            return &t;
        }
    }
    return nullptr;
}

// Per pixel column of `f.area`, the metric's value for `rank` (-1 where nothing is known), kept
// as the maximum with what `columns` already holds (rows standing for several ranks show the worst).
void accumulate(const RanksOverviewPainter::Frame &f, RankId rankId, std::vector<double> &columns)
{
    TimelineContext &ctx = *f.ctx;
    const Session &s = *ctx.session;
    const Rank *rank = s.rank(rankId);
    if (!rank)
        return;
    const TimeNs offset = f.offsetOf ? f.offsetOf(rankId) : 0;
    const TimeScale data = f.view.shifted(offset);
    const double npp = data.nsPerPixel();
    const int left = f.area.left();
    const int width = f.area.width();
    auto put = [&](double x0, double x1, double v) {
        const int a = std::clamp(static_cast<int>(std::floor(x0)) - left, 0, width);
        const int b = std::clamp(static_cast<int>(std::ceil(x1)) - left, 0, width);
        for (int i = a; i < std::max(b, a + 1) && i < width; ++i)
            columns[static_cast<std::size_t>(i)] = std::max(columns[static_cast<std::size_t>(i)], v);
    };
    switch (f.metric) {
    case RanksOverviewPainter::Metric::MemoryShare: {
        double capacity = 0;
        const Track *t = allocatedTrack(s, *rank, &capacity, ctx.memoryMax);
        if (!t || capacity <= 0)
            return;
        decimateCounter(t->counter, data.range, npp, ctx.columns);
        // Each column holds its value until the next one: a step line, as the memory lane draws it.
        for (std::size_t i = 0; i < ctx.columns.size(); ++i) {
            const CounterColumn &c = ctx.columns[i];
            const double x0 = data.toX(c.firstTime);
            const double x1 = i + 1 < ctx.columns.size() ? data.toX(ctx.columns[i + 1].firstTime) : f.area.right() + 1.0;
            put(x0, x0 + 1, std::clamp(c.max / capacity, 0.0, 1.0));
            put(x0 + 1, x1, std::clamp(c.last / capacity, 0.0, 1.0));
        }
        break;
    }
    case RanksOverviewPainter::Metric::Busy: {
        std::vector<TrackId> tracks;
        for (TrackId id : rank->tracks)
            if (s.tracks()[id].kind == TrackKind::GpuStream && !s.tracks()[id].spans.empty())
                tracks.push_back(id);
        if (tracks.empty())
            for (TrackId id : rank->tracks)
                if (s.tracks()[id].kind == TrackKind::CpuThread && !s.tracks()[id].spans.empty())
                    tracks.push_back(id);
        if (tracks.empty())
            return;
        put(data.toX(std::max(data.range.begin, rank->timeRange.begin)), data.toX(std::min(data.range.end, rank->timeRange.end)), 0.0);
        for (TrackId id : tracks) {
            foldSpans(s.tracks()[id], 0, data.range, npp, ctx.spanItems, 1.0);
            for (const SpanDrawItem &item : ctx.spanItems)
                put(data.toX(item.start), data.toX(item.end), 0.6);
        }
        break;
    }
    case RanksOverviewPainter::Metric::LogProblems: {
        const auto &timed = ctx.evidence.logs(rankId);
        if (timed.empty() && ctx.evidence.ooms(rankId).empty())
            return;
        put(data.toX(std::max(data.range.begin, rank->timeRange.begin)), data.toX(std::min(data.range.end, rank->timeRange.end)), 0.0);
        for (const TimedLog &l : ctx.evidence.notableLogs(rankId))
            if (data.range.contains(l.time))
                put(data.toX(l.time) - 1, data.toX(l.time) + 2, l.mark == LogStyle::Mark::Warning ? 0.55 : 1.0);
        for (const OomMarker &m : ctx.evidence.ooms(rankId))
            if (data.range.contains(m.time))
                put(data.toX(m.time) - 1, data.toX(m.time) + 2, 1.0);
        break;
    }
    }
}

} // namespace

QString RanksOverviewPainter::metricName(Metric m)
{
    switch (m) {
    case Metric::MemoryShare: return tr("Allocated memory, % of GPU");
    case Metric::Busy: return tr("GPU busy");
    case Metric::LogProblems: return tr("Log warnings and errors");
    }
    return {};
}

QColor RanksOverviewPainter::ramp(double v)
{
    if (v < 0)
        return kNoData;
    // Light grey-blue for little, amber in the middle, red near full: the eye goes to the red row.
    const QColor stops[] = {QColor(0xe8, 0xed, 0xf4), QColor(0x9c, 0xb8, 0xd9), QColor(0xf2, 0xb1, 0x3c), QColor(0xd6, 0x2b, 0x2b)};
    const double at = std::clamp(v, 0.0, 1.0) * 3.0;
    const int i = std::min(2, static_cast<int>(at));
    const double t = at - i;
    const QColor &a = stops[i], &b = stops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t), static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

namespace {

// Row i of n in `area`: [floor(i·h), floor((i+1)·h)), at least one pixel.
std::pair<int, int> rowOfIndex(const QRect &area, std::size_t index, std::size_t n)
{
    const auto i = static_cast<double>(index);
    const double h = static_cast<double>(area.height()) / static_cast<double>(n);
    const int top = area.top() + static_cast<int>(std::floor(i * h));
    const int bottom = std::max(top + 1, area.top() + static_cast<int>(std::floor((i + 1) * h)));
    return {top, bottom};
}

} // namespace

std::pair<int, int> RanksOverviewPainter::rowOf(const Frame &f, RankId rank)
{
    const auto it = std::find(f.ranks.begin(), f.ranks.end(), rank);
    if (it == f.ranks.end() || f.area.height() <= 0)
        return {0, 0};
    return rowOfIndex(f.area, static_cast<std::size_t>(it - f.ranks.begin()), f.ranks.size());
}

RankId RanksOverviewPainter::rankAt(const Frame &f, int y)
{
    if (f.ranks.empty() || y < f.area.top() || y > f.area.bottom())
        return kNoRank;
    const double h = static_cast<double>(f.area.height()) / static_cast<double>(f.ranks.size());
    // The same rounding as rowOf(): row i starts at floor(i·h).
    auto i = static_cast<std::size_t>(std::floor((y - f.area.top()) / h));
    while (i + 1 < f.ranks.size() && static_cast<int>(std::floor(static_cast<double>(i + 1) * h)) <= y - f.area.top())
        ++i;
    return f.ranks[std::min(i, f.ranks.size() - 1)];
}

double RanksOverviewPainter::valueAt(const Frame &f, RankId rank, TimeNs t)
{
    std::vector<double> columns(static_cast<std::size_t>(std::max(1, f.area.width())), -1.0);
    accumulate(f, rank, columns);
    const int x = static_cast<int>(std::floor(f.view.toX(t))) - f.area.left();
    return x >= 0 && x < static_cast<int>(columns.size()) ? columns[static_cast<std::size_t>(x)] : -1.0;
}

void RanksOverviewPainter::paint(QPainter &p, const Frame &f)
{
    if (!f.ctx || !f.ctx->session || f.ranks.empty() || f.area.width() <= 0 || f.area.height() <= 0)
        return;
    p.fillRect(f.area, f.ctx->colors->color(Palette::Role::NoData));
    // The ramp quantised to 256 steps, computed once: a frame of 1,024 ranks looks a colour up
    // per column rather than interpolating one.
    static const std::vector<QColor> lut = [] {
        std::vector<QColor> colors;
        for (int i = 0; i < 256; ++i)
            colors.push_back(ramp(i / 255.0));
        return colors;
    }();
    const auto width = static_cast<std::size_t>(f.area.width());
    std::vector<double> columns(width);
    std::vector<int> bins(width);
    // One pass per pixel row: the ranks it stands for, their worst value per column.
    std::size_t next = 0;
    while (next < f.ranks.size()) {
        const auto [top, bottom] = rowOfIndex(f.area, next, f.ranks.size());
        std::size_t last = next + 1;
        while (last < f.ranks.size() && rowOfIndex(f.area, last, f.ranks.size()).first < bottom)
            ++last;
        std::fill(columns.begin(), columns.end(), -1.0);
        for (std::size_t i = next; i < last; ++i)
            accumulate(f, f.ranks[i], columns);
        for (std::size_t x = 0; x < width; ++x)
            bins[x] = columns[x] < 0 ? -1 : static_cast<int>(std::clamp(columns[x], 0.0, 1.0) * 255.0 + 0.5); // rounded (a million a frame: no lround)
        // Runs of one colour are one rectangle.
        std::size_t run = 0;
        for (std::size_t x = 1; x <= width; ++x) {
            if (x < width && bins[x] == bins[run])
                continue;
            if (bins[run] >= 0)
                p.fillRect(QRect(f.area.left() + static_cast<int>(run), top, static_cast<int>(x - run), bottom - top),
                           lut[static_cast<std::size_t>(bins[run])]);
            run = x;
        }
        next = last;
    }
    if (f.selected != kNoRank) {
        const auto [top, bottom] = rowOf(f, f.selected);
        if (bottom > top) {
            p.setPen(QPen(kSelected, 1));
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRect(f.area.left(), top - 1, f.area.width() - 1, bottom - top + 1));
        }
    }
}

} // namespace rs
