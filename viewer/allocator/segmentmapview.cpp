#include "segmentmapview.h"

#include "models/segmentmodel.h"
#include "palette.h"
#include "timeformat.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <map>

namespace rs {

namespace {

constexpr int kMargin = 8;

const char *stateName(SegmentRecord::Block::State s)
{
    switch (s) {
    case SegmentRecord::Block::State::Allocated: return QT_TRANSLATE_NOOP("SegmentMapView", "allocated");
    case SegmentRecord::Block::State::AwaitingFree: return QT_TRANSLATE_NOOP("SegmentMapView", "freed, awaiting its stream");
    case SegmentRecord::Block::State::Inactive: return QT_TRANSLATE_NOOP("SegmentMapView", "free (inactive)");
    }
    return "";
}

} // namespace

SegmentMapView::SegmentMapView(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

QColor SegmentMapView::stateColor(SegmentRecord::Block::State state)
{
    switch (state) {
    case SegmentRecord::Block::State::Allocated: return Palette::screen().color(Palette::Role::BlockAllocated);
    case SegmentRecord::Block::State::AwaitingFree: return Palette::screen().color(Palette::Role::BlockPending);
    case SegmentRecord::Block::State::Inactive: return Palette::screen().color(Palette::Role::BlockFree);
    }
    return {};
}

void SegmentMapView::setSession(SessionPtr session)
{
    m_session = std::move(session);
    layoutRows();
    updateGeometry();
    update();
}

void SegmentMapView::layoutRows()
{
    m_order.clear();
    m_rows.clear();
    m_largest = 0;
    int y = kMargin + kHeaderHeight; // the legend's row
    if (m_session) {
        const auto &segs = m_session->allocator().segments;
        std::map<std::pair<RankId, std::int32_t>, std::vector<std::uint32_t>> byDevice;
        for (std::uint32_t i = 0; i < segs.size(); ++i) {
            byDevice[{segs[i].rank, segs[i].device}].push_back(i);
            m_largest = std::max(m_largest, segs[i].totalSize);
        }
        for (auto &[key, list] : byDevice) {
            std::stable_sort(list.begin(), list.end(), [&segs](std::uint32_t a, std::uint32_t b) { return segs[a].totalSize > segs[b].totalSize; });
            std::int64_t reserved = 0, inactive = 0;
            for (const std::uint32_t i : list) {
                reserved += segs[i].totalSize;
                for (const auto &b : segs[i].blocks)
                    inactive += b.state == SegmentRecord::Block::State::Inactive ? b.size : 0;
            }
            Row header;
            header.y = y;
            header.header = (key.first == kNoRank ? tr("GPU %1").arg(key.second) : tr("Rank %1 · GPU %2").arg(key.first).arg(key.second))
                + tr(" — %n segment(s), %1 reserved, %2 free inside them", nullptr, static_cast<int>(list.size()))
                      .arg(TimeFormat::bytes(static_cast<double>(reserved)), TimeFormat::bytes(static_cast<double>(inactive)));
            m_rows.push_back(header);
            y += kHeaderHeight;
            for (const std::uint32_t i : list) {
                m_order.push_back(i);
                m_rows.push_back({y, static_cast<int>(i), {}});
                y += kBarHeight + kRowGap;
            }
        }
    }
    m_height = y + kMargin;
}

double SegmentMapView::barWidth(const SegmentRecord &s) const
{
    const double room = std::max(40, width() - 2 * kMargin - kLabelWidth);
    return m_largest > 0 ? std::max(2.0, room * static_cast<double>(s.totalSize) / static_cast<double>(m_largest)) : 0.0;
}

QSize SegmentMapView::sizeHint() const
{
    return {480, m_height};
}

int SegmentMapView::heightForWidth(int) const
{
    return m_height;
}

QRectF SegmentMapView::blockRect(int segment, int block) const
{
    if (!m_session || segment < 0 || static_cast<std::size_t>(segment) >= m_session->allocator().segments.size())
        return {};
    const SegmentRecord &s = m_session->allocator().segments[static_cast<std::size_t>(segment)];
    const auto row = std::find_if(m_rows.begin(), m_rows.end(), [segment](const Row &r) { return r.segment == segment; });
    if (row == m_rows.end() || block < 0 || static_cast<std::size_t>(block) >= s.blocks.size() || s.totalSize <= 0)
        return {};
    const double width = barWidth(s);
    std::int64_t before = 0;
    for (int i = 0; i < block; ++i)
        before += s.blocks[static_cast<std::size_t>(i)].size;
    const double x0 = kMargin + width * static_cast<double>(before) / static_cast<double>(s.totalSize);
    const double w = width * static_cast<double>(s.blocks[static_cast<std::size_t>(block)].size) / static_cast<double>(s.totalSize);
    return QRectF(x0, row->y, w, kBarHeight);
}

std::pair<int, int> SegmentMapView::blockAt(QPoint pos) const
{
    if (!m_session)
        return {-1, -1};
    for (const Row &r : m_rows) {
        if (r.segment < 0 || pos.y() < r.y || pos.y() >= r.y + kBarHeight)
            continue;
        const SegmentRecord &s = m_session->allocator().segments[static_cast<std::size_t>(r.segment)];
        const double width = barWidth(s);
        const double x = pos.x() + 0.5 - kMargin;
        if (x < 0 || x >= width || s.totalSize <= 0)
            return {-1, -1};
        // The byte under the pointer, then the block holding it.
        const double byte = x / width * static_cast<double>(s.totalSize);
        std::int64_t end = 0;
        for (int b = 0; b < static_cast<int>(s.blocks.size()); ++b) {
            end += s.blocks[static_cast<std::size_t>(b)].size;
            if (byte < static_cast<double>(end))
                return {r.segment, b};
        }
        return {r.segment, -1};
    }
    return {-1, -1};
}

void SegmentMapView::paintEvent(QPaintEvent *event)
{
    QPainter p(this);
    const Palette &colors = Palette::screen();
    p.fillRect(event->rect(), colors.color(Palette::Role::Base));
    if (!m_session || m_session->allocator().segments.empty()) {
        p.setPen(colors.color(Palette::Role::Muted));
        p.drawText(rect().adjusted(kMargin, kMargin, -kMargin, -kMargin), Qt::AlignTop | Qt::AlignLeft | Qt::TextWordWrap,
                   tr("No allocator snapshot with segments in this session."));
        return;
    }
    // The legend.
    int x = kMargin;
    const QFontMetrics fm(font());
    for (const auto state : {SegmentRecord::Block::State::Allocated, SegmentRecord::Block::State::AwaitingFree,
                             SegmentRecord::Block::State::Inactive}) {
        p.fillRect(QRect(x, kMargin + 4, 12, 12), stateColor(state));
        p.setPen(colors.color(Palette::Role::Separator));
        p.drawRect(QRect(x, kMargin + 4, 12, 12));
        x += 16;
        const QString name = tr(stateName(state));
        p.setPen(colors.color(Palette::Role::Title));
        p.drawText(QPoint(x, kMargin + 4 + fm.ascent() - 1), name);
        x += fm.horizontalAdvance(name) + 16;
    }
    const QRect exposed = event->rect();
    for (const Row &r : m_rows) {
        if (r.y > exposed.bottom() || r.y + kHeaderHeight < exposed.top())
            continue;
        if (r.segment < 0) {
            QFont bold = font();
            bold.setBold(true);
            p.setFont(bold);
            p.setPen(colors.color(Palette::Role::Title));
            p.drawText(QRect(kMargin, r.y, width() - 2 * kMargin, kHeaderHeight), Qt::AlignLeft | Qt::AlignVCenter,
                       fm.elidedText(r.header, Qt::ElideRight, width() - 2 * kMargin));
            p.setFont(font());
            continue;
        }
        const SegmentRecord &s = m_session->allocator().segments[static_cast<std::size_t>(r.segment)];
        const double width = barWidth(s);
        p.fillRect(QRectF(kMargin, r.y, width, kBarHeight), stateColor(SegmentRecord::Block::State::Inactive));
        // One pass over the blocks (a small-pool segment holds thousands): each drawn at its
        // share of the bar, with an edge before it where blocks are wide enough to tell apart.
        std::int64_t inactive = 0, before = 0;
        double lastEdge = -10;
        const double scale = s.totalSize > 0 ? width / static_cast<double>(s.totalSize) : 0.0;
        for (const auto &block : s.blocks) {
            const QRectF br(kMargin + scale * static_cast<double>(before), r.y, scale * static_cast<double>(block.size), kBarHeight);
            before += block.size;
            if (block.state == SegmentRecord::Block::State::Inactive)
                inactive += block.size;
            else
                p.fillRect(br, stateColor(block.state));
            if (before > block.size && br.left() - lastEdge >= 3) {
                p.setPen(QPen(colors.color(Palette::Role::Base), 1));
                p.drawLine(QPointF(br.left(), br.top()), QPointF(br.left(), br.bottom()));
                lastEdge = br.left();
            }
        }
        p.setPen(colors.color(Palette::Role::Separator));
        p.drawRect(QRectF(kMargin, r.y, width, kBarHeight));
        const double freePct = s.totalSize > 0 ? 100.0 * static_cast<double>(inactive) / static_cast<double>(s.totalSize) : 0.0;
        p.setPen(colors.color(Palette::Role::Muted));
        p.drawText(QRectF(kMargin + width + 6, r.y - 2, kLabelWidth, kBarHeight + 4), Qt::AlignLeft | Qt::AlignVCenter,
                   tr("%1 · %2 % free").arg(TimeFormat::bytes(static_cast<double>(s.totalSize))).arg(freePct, 0, 'f', 0));
    }
}

void SegmentMapView::mousePressEvent(QMouseEvent *event)
{
    const auto [segment, block] = blockAt(event->pos());
    if (segment < 0)
        return;
    const SegmentRecord &s = m_session->allocator().segments[static_cast<std::size_t>(segment)];
    Q_EMIT stackRequested(block >= 0 && s.blocks[static_cast<std::size_t>(block)].stack >= 0 ? s.blocks[static_cast<std::size_t>(block)].stack : s.stack);
}

bool SegmentMapView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && m_session) {
        auto *help = static_cast<QHelpEvent *>(event);
        const auto [segment, block] = blockAt(help->pos());
        if (segment < 0) {
            QToolTip::hideText();
            return true;
        }
        const SegmentRecord &s = m_session->allocator().segments[static_cast<std::size_t>(segment)];
        QString text = tr("Segment 0x%1: %2 (%3 pool%4)")
                           .arg(QString::number(s.address, 16), TimeFormat::bytes(static_cast<double>(s.totalSize)), s.large ? tr("large") : tr("small"),
                                s.expandable ? tr(", expandable") : QString());
        if (block >= 0) {
            const auto &b = s.blocks[static_cast<std::size_t>(block)];
            text += QLatin1Char('\n') + tr("Block 0x%1: %2, %3").arg(QString::number(b.address, 16), TimeFormat::bytes(static_cast<double>(b.size)), tr(stateName(b.state)));
            if (b.requested > 0 && b.requested != b.size)
                text += tr(" (asked for %1)").arg(TimeFormat::bytes(static_cast<double>(b.requested)));
            if (const QString where = topFrameText(m_session->allocator(), b.stack); !where.isEmpty())
                text += QLatin1Char('\n') + where;
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace rs
