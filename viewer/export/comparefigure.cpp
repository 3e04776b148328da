#include "comparefigure.h"

#include "compare/rankmetricsmodel.h"
#include "compare/referencerank.h"
#include "figurechrome.h"
#include "figurerenderer.h"
#include "rankcolors.h"

#include <QFontMetrics>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace rs {

namespace {

constexpr int kMargin = FigureChrome::kMargin;
constexpr int kHeading = 24;       // a section heading above the multiples and the table
constexpr int kGap = 14;           // between the sections
constexpr int kLegendRow = 18;     // one line of a legend
constexpr int kTableHeader = 24;   // the table's column titles
constexpr int kTableRow = 20;      // one rank's row of the table
constexpr int kCellPadding = 14;   // left + right padding of a table cell
constexpr int kMaxRowHeight = 240; // a fixed height never stretches a row of the multiples further
constexpr int kLabelWidth = 156;   // the multiples' label column: "rank 12" and both badges
const QColor kHeaderBackground(0xf6, 0xf7, 0xf9);
const QColor kGrid(0xe7, 0xe9, 0xee);
const QColor kNoValue(0x9a, 0xa0, 0xa6);
const QColor kBadge(0x37, 0x41, 0x51);

// A legend laid out left to right, wrapping at the right edge; measures when not drawing.
struct LegendFlow {
    QPainter &p;
    QRect r;
    bool draw;
    QFont font;
    int x = 0, y = 0;

    LegendFlow(QPainter &painter, const QRect &rect, bool drawIt, const QFont &f)
        : p(painter), r(rect), draw(drawIt), font(f), x(rect.left()), y(rect.top())
    {
    }
    void wrap(int w)
    {
        if (x + w > r.right() && x > r.left()) {
            x = r.left();
            y += kLegendRow;
        }
    }
    void label(const QString &text, bool strong)
    {
        QFont f = font;
        if (strong)
            f.setWeight(QFont::DemiBold);
        const int w = QFontMetrics(f).horizontalAdvance(text) + 10;
        wrap(w + 120); // a heading stays with its first item
        if (draw) {
            p.setFont(f);
            p.setPen(strong ? FigureChrome::mutedColor() : FigureChrome::textColor());
            p.drawText(QRect(x, y, w, kLegendRow), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    }
    void item(const QString &text, const std::function<void(const QRectF &)> &swatch)
    {
        constexpr int swatchW = 22;
        const int w = swatchW + 4 + QFontMetrics(font).horizontalAdvance(text) + 16;
        wrap(w);
        if (draw) {
            p.save();
            swatch(QRectF(x, y + 3, swatchW, kLegendRow - 6));
            p.restore();
            p.setFont(font);
            p.setPen(FigureChrome::textColor());
            p.drawText(QRect(x + swatchW + 4, y, w, kLegendRow), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    }
    int height() const { return y + kLegendRow - r.top(); }
};

// Measures a legend without drawing it.
int measure(const std::function<int(QPainter &)> &f)
{
    QImage probe(1, 1, QImage::Format_ARGB32);
    QPainter p(&probe);
    return f(p);
}

} // namespace

CompareFigure::CompareFigure(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, FigureOptions options)
    : m_session(std::move(session))
    , m_analysis(std::move(analysis))
    , m_opt(std::move(options))
    , m_font(FigureChrome::baseFont())
{
    m_title = m_opt.title.isEmpty() ? FigureChrome::defaultTitle(m_session.get(), m_analysis.get(), tr("RankScope rank comparison"))
                                    : m_opt.title;
    if (m_session) {
        m_offsets = FigureChrome::offsets(*m_session, m_analysis.get(), m_opt);
        m_full = FigureRenderer::alignedDataRange(*m_session, m_analysis.get(), m_offsets);
        m_rankOrder = FigureChrome::rankOrder(*m_session, m_opt);
        if (m_opt.referenceRank != kNoRank && m_session->rank(m_opt.referenceRank)) {
            m_reference = m_opt.referenceRank;
            m_referenceIsMedian = false;
        } else if (m_analysis) {
            m_reference = ReferenceRank::pick(m_analysis->metrics);
        }
    }
    if (m_full.isEmpty())
        m_full = {0, 1000000};
    m_range = FigureChrome::window(m_opt.range, m_full);

    if (m_analysis) {
        // The reference's row leads when the shown ranks do not include it: it is the yardstick.
        if (const RankMetrics *ref = m_analysis->metricsOf(m_reference);
            ref && std::find(m_rankOrder.begin(), m_rankOrder.end(), m_reference) == m_rankOrder.end())
            m_tableRows.push_back(ref);
        for (RankId r : m_rankOrder)
            if (const RankMetrics *m = m_analysis->metricsOf(r))
                m_tableRows.push_back(m);
    }

    QFont label = m_font;
    label.setPixelSize(12);
    m_multiples.setSession(m_session);
    m_multiples.setAnalysis(m_analysis);
    m_multiples.setRanks(m_rankOrder);
    m_multiples.setReferenceRank(m_reference);
    m_multiples.setClockOffsets(m_offsets);
    m_multiples.setView({m_range, m_full.begin, kNoRank, m_opt.highlight});
    m_multiples.setFont(label);
    m_multiples.setLabelWidth(kLabelWidth);
    m_multiples.setReferenceBadge(tr("reference"));
    layout();
}

QString CompareFigure::rangeText() const
{
    return FigureChrome::rangeText(m_range, m_opt.timeZone);
}

bool CompareFigure::hasMemory() const
{
    return m_multiples.valueMax() > 0;
}

bool CompareFigure::hasOom() const
{
    if (!m_analysis)
        return false;
    return std::any_of(m_rankOrder.begin(), m_rankOrder.end(), [&](RankId r) {
        const RankMetrics *m = m_analysis->metricsOf(r);
        return m && (m->oom || m->oomCount > 0);
    });
}

QString CompareFigure::referenceText() const
{
    if (m_reference == kNoRank)
        return tr("no reference rank (no metrics)");
    return m_referenceIsMedian ? tr("reference rank %1 (the median rank)").arg(m_reference) : tr("reference rank %1").arg(m_reference);
}

std::vector<int> CompareFigure::columnWidths() const
{
    QFont bold = m_font;
    bold.setWeight(QFont::Bold);
    QFont head = m_font;
    head.setWeight(QFont::DemiBold);
    const QFontMetrics fm(bold); // bold is the wider: the reference's row is bold
    const QFontMetrics hm(head);
    std::vector<int> w(RankMetricsModel::ColumnCount, 0);
    for (int c = 0; c < RankMetricsModel::ColumnCount; ++c)
        w[std::size_t(c)] = hm.horizontalAdvance(RankMetricsModel::columnTitle(c));
    const RankMetrics *ref = m_analysis ? m_analysis->metricsOf(m_reference) : nullptr;
    for (const RankMetrics *m : m_tableRows)
        for (int c = 0; c < RankMetricsModel::ColumnCount; ++c) {
            int tw = fm.horizontalAdvance(RankMetricsModel::cellText(*m, c, m_full.begin));
            if (c == RankMetricsModel::RankColumn && m == ref)
                tw += 8 + QFontMetrics(SmallMultiplesPainter::smallFont(m_font)).horizontalAdvance(tr("reference")) + 8;
            w[std::size_t(c)] = std::max(w[std::size_t(c)], tw);
        }
    for (int &x : w)
        x += kCellPadding + 4; // the stripe of the rank column, breathing room elsewhere
    return w;
}

int CompareFigure::tableNaturalWidth() const
{
    const std::vector<int> w = columnWidths();
    return std::accumulate(w.begin(), w.end(), 0);
}

CompareFigure::Layout CompareFigure::layoutFor(int contentWidth, int rowHeight) const
{
    Layout l;
    l.contentWidth = contentWidth;
    l.rowHeight = rowHeight;
    const int inner = contentWidth - 2 * kMargin;
    int y = kMargin - 6 + FigureChrome::kTitleHeight;
    l.multiplesTop = y + kHeading;
    const int rows = int(m_rankOrder.size());
    l.multiplesHeight = rows > 0 ? rows * rowHeight + SmallMultiplesPainter::kAxisHeight : 40;
    l.multiplesLegendTop = l.multiplesTop + l.multiplesHeight + 4;
    y = l.multiplesLegendTop + measure([&](QPainter &p) { return paintMultiplesLegend(p, QRect(kMargin, 0, inner, 0), false); });
    l.tableHeadingTop = y + kGap;
    l.tableTop = l.tableHeadingTop + kHeading;
    if (m_tableRows.empty()) {
        l.tableHeight = 30;
    } else {
        const double scale = std::min(1.0, double(inner) / tableNaturalWidth());
        l.tableHeight = int(std::ceil((kTableHeader + kTableRow * int(m_tableRows.size())) * scale)) + 1;
    }
    l.tableLegendTop = l.tableTop + l.tableHeight + 6;
    y = l.tableLegendTop + measure([&](QPainter &p) { return paintDeviationLegend(p, QRect(kMargin, 0, inner, 0), false); });
    l.footerTop = y + 8;
    l.contentHeight = l.footerTop + FigureChrome::kFooterHeight + kMargin / 2;
    return l;
}

void CompareFigure::layout()
{
    const int width = std::max(320, m_opt.width);
    const int rows = int(m_rankOrder.size());
    // Fewer ranks get taller rows: four ranks of a ticket figure deserve more than a sliver each.
    // Without memory curves a row holds only its step strip and labels: the lowest row does.
    const int natural = !hasMemory() ? SmallMultiplesPainter::kMinRowHeight
        : rows <= 4                  ? 96
        : rows <= 8                  ? 80
        : rows <= 16                 ? 60
                                     : SmallMultiplesPainter::kMinRowHeight;
    m_layout = layoutFor(width, natural);
    m_scale = 1.0;
    if (m_opt.height > 0) {
        // A fixed height first resizes the rows of the multiples; when even the lowest rows do not
        // fit, the whole figure is scaled down (laid out wider so it still fills the width) rather
        // than dropping ranks, as the timeline figure does.
        const int fixed = m_layout.contentHeight - rows * natural;
        const int fit = rows > 0 ? (m_opt.height - fixed) / rows : 0;
        if (rows > 0 && fit >= SmallMultiplesPainter::kMinRowHeight) {
            m_layout = layoutFor(width, std::min(fit, kMaxRowHeight));
        } else {
            int contentWidth = width;
            for (int pass = 0; pass < 4; ++pass) {
                m_layout = layoutFor(contentWidth, SmallMultiplesPainter::kMinRowHeight);
                if (m_layout.contentHeight <= m_opt.height)
                    break;
                const int wider = int(std::floor(width * double(m_layout.contentHeight) / m_opt.height));
                if (wider == contentWidth)
                    break;
                contentWidth = wider;
            }
            m_scale = std::min({1.0, double(m_opt.height) / m_layout.contentHeight, double(width) / m_layout.contentWidth});
        }
    }
    m_size = QSize(width, m_opt.height > 0 ? m_opt.height : m_layout.contentHeight);
}

void CompareFigure::paint(QPainter &p)
{
    p.save();
    p.fillRect(QRectF(0, 0, m_size.width(), m_size.height()), Qt::white);
    if (m_scale < 1.0)
        p.scale(m_scale, m_scale);
    p.setFont(m_font);
    const Layout &l = m_layout;
    const int inner = l.contentWidth - 2 * kMargin;
    const QString info = FigureChrome::shownLine(m_session.get(), m_analysis.get(), m_rankOrder) + QStringLiteral("  ·  ") + referenceText();
    FigureChrome::paintTitle(p, QRect(kMargin, kMargin - 6, inner, FigureChrome::kTitleHeight), m_font, m_title, rangeText(), info);

    if (hasMemory())
        paintHeading(p, l.multiplesTop - kHeading, tr("Memory of every rank"),
                     m_reference == kNoRank ? tr("allocated and reserved on one shared scale")
                                            : tr("allocated and reserved on one shared scale; reference rank %1's allocated memory faint in "
                                                 "every other row, steps coloured against its median step")
                                                  .arg(m_reference));
    else
        paintHeading(p, l.multiplesTop - kHeading, tr("Steps of every rank"),
                     m_reference == kNoRank ? tr("no allocator memory in these inputs")
                                            : tr("no allocator memory in these inputs; steps coloured against reference rank %1's median step")
                                                  .arg(m_reference));
    m_multiples.paint(p, QRect(kMargin, l.multiplesTop, inner, l.multiplesHeight));
    paintMultiplesLegend(p, QRect(kMargin, l.multiplesLegendTop, inner, 0), true);

    paintHeading(p, l.tableHeadingTop, tr("Per-rank metrics"),
                 m_reference == kNoRank ? QString() : tr("cells coloured by how far they lie from reference rank %1").arg(m_reference));
    paintTable(p, QRect(kMargin, l.tableTop, inner, l.tableHeight));
    paintDeviationLegend(p, QRect(kMargin, l.tableLegendTop, inner, 0), true);

    FigureChrome::paintFooter(p, QRect(kMargin, l.footerTop, inner, FigureChrome::kFooterHeight), m_font, m_full.begin, m_opt.timeZone,
                              m_rankOrder, m_offsets);
    p.restore();
}

void CompareFigure::paintHeading(QPainter &p, int top, const QString &text, const QString &note) const
{
    QFont head = m_font;
    head.setPixelSize(14);
    head.setWeight(QFont::Bold);
    const QFontMetrics hm(head);
    const int inner = m_layout.contentWidth - 2 * kMargin;
    p.setFont(head);
    p.setPen(FigureChrome::textColor());
    const QRect r(kMargin, top, inner, kHeading - 4);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, text);
    if (!note.isEmpty()) {
        p.setFont(m_font);
        p.setPen(FigureChrome::mutedColor());
        const int x = hm.horizontalAdvance(text) + 12;
        p.drawText(r.adjusted(x, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetrics(m_font).elidedText(note, Qt::ElideRight, r.width() - x));
    }
}

int CompareFigure::paintMultiplesLegend(QPainter &p, const QRect &r, bool draw) const
{
    LegendFlow f(p, r, draw, m_font);
    const RankId sample = m_rankOrder.empty() ? 0 : m_rankOrder.front();
    // What is drawn decides what is explained: no memory swatches for traces without memory, no
    // OOM rule when no rank shown ran out of memory.
    if (hasMemory() || hasOom())
        f.label(tr("Memory"), true);
    if (hasMemory()) {
        f.item(tr("allocated (rank colour)"), [&](const QRectF &s) {
            const int n = std::max(1, std::min<int>(3, int(m_rankOrder.size())));
            for (int i = 0; i < n; ++i) {
                QColor c = RankColors::color(m_rankOrder.empty() ? 0 : m_rankOrder[std::size_t(i)]);
                c.setAlpha(120);
                p.fillRect(QRectF(s.left() + s.width() * i / n, s.top() + 2, s.width() / n, s.height() - 4), c);
            }
        });
        f.item(tr("reserved"), [&](const QRectF &s) {
            p.setPen(SmallMultiplesPainter::reservedPen(sample));
            p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
        });
        if (m_reference != kNoRank)
            f.item(tr("reference rank %1, allocated").arg(m_reference), [&](const QRectF &s) {
                p.setPen(QPen(SmallMultiplesPainter::referenceColor(), 1.4));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
    }
    if (hasOom()) {
        f.item(tr("CUDA OOM"), [&](const QRectF &s) {
            p.fillRect(QRectF(s.center().x() - 1, s.top() - 2, 2, s.height() + 4), SmallMultiplesPainter::oomColor());
        });
    }
    if (hasMemory() || hasOom())
        f.x += 12;
    f.label(m_reference == kNoRank ? tr("Steps") : tr("Steps vs the reference's median step"), true);
    const TimeNs unit = 1000;
    const std::pair<TimeNs, QString> steps[] = {{unit, tr("same")},
                                                {unit * 5 / 4, tr("+25 %")},
                                                {unit * 2, tr("+100 % or more")},
                                                {unit / 2, tr("\u221250 % or less")}};
    for (const auto &[duration, text] : steps) {
        if (m_reference == kNoRank && duration != unit)
            continue;
        const QColor c = SmallMultiplesPainter::stepColor(duration, m_reference == kNoRank ? 0 : unit);
        f.item(text, [&, c](const QRectF &s) { p.fillRect(s.adjusted(2, 1, -2, -1), c); });
    }
    return f.height();
}

int CompareFigure::paintDeviationLegend(QPainter &p, const QRect &r, bool draw) const
{
    if (m_tableRows.empty() || m_reference == kNoRank)
        return 0;
    LegendFlow f(p, r, draw, m_font);
    f.label(tr("Cell colour: deviation from reference rank %1").arg(m_reference), true);
    for (const auto &[at, text] : RankMetricsModel::legendStops()) {
        const QColor c = RankMetricsModel::deviationColor(at);
        f.item(text, [&, c](const QRectF &s) {
            p.fillRect(s, c);
            p.setPen(FigureChrome::borderColor());
            p.setBrush(Qt::NoBrush);
            p.drawRect(s.adjusted(0, 0, -1, -1));
        });
    }
    f.x += 12;
    f.label(tr("peak time and lateness in reference steps; \u2014 no value"), false);
    return f.height();
}

void CompareFigure::paintTable(QPainter &p, const QRect &r) const
{
    if (m_tableRows.empty()) {
        p.setFont(m_font);
        p.setPen(FigureChrome::mutedColor());
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, tr("No per-rank metrics: the analysis has none for these ranks."));
        return;
    }
    std::vector<int> widths = columnWidths();
    const int natural = std::accumulate(widths.begin(), widths.end(), 0);
    const double scale = std::min(1.0, double(r.width()) / natural);
    if (scale >= 1.0) {
        // Spread the spare width over the value columns so the table spans the figure.
        const int spare = r.width() - natural;
        for (int c = 1; c < RankMetricsModel::ColumnCount; ++c)
            widths[std::size_t(c)] += spare / (RankMetricsModel::ColumnCount - 1);
    }
    const int tableWidth = std::accumulate(widths.begin(), widths.end(), 0);
    const RankMetrics *ref = m_analysis ? m_analysis->metricsOf(m_reference) : nullptr;
    QFont bold = m_font;
    bold.setWeight(QFont::Bold);
    QFont head = m_font;
    head.setWeight(QFont::DemiBold);
    const QFont small = SmallMultiplesPainter::smallFont(m_font);
    const QFontMetrics fm(bold);
    const QFontMetrics sm(small);

    p.save();
    p.translate(r.topLeft());
    p.scale(scale, scale);
    const auto alignOf = [](int c) { return (c == RankMetricsModel::RankColumn ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter; };
    // Column titles.
    p.fillRect(QRect(0, 0, tableWidth, kTableHeader), kHeaderBackground);
    p.setFont(head);
    p.setPen(FigureChrome::mutedColor());
    int x = 0;
    for (int c = 0; c < RankMetricsModel::ColumnCount; ++c) {
        const int w = widths[std::size_t(c)];
        p.drawText(QRect(x + kCellPadding / 2, 0, w - kCellPadding, kTableHeader), alignOf(c), RankMetricsModel::columnTitle(c));
        x += w;
    }
    // One row per rank.
    int y = kTableHeader;
    for (const RankMetrics *m : m_tableRows) {
        const bool isRef = m == ref;
        x = 0;
        for (int c = 0; c < RankMetricsModel::ColumnCount; ++c) {
            const int w = widths[std::size_t(c)];
            const QRect cell(x, y, w, kTableRow);
            const QColor bg = RankMetricsModel::cellBackground(*m, ref, c);
            if (bg.isValid())
                p.fillRect(cell, bg);
            const QString text = RankMetricsModel::cellText(*m, c, m_full.begin);
            const bool hasValue = RankMetricsModel::value(*m, c).has_value();
            p.setFont(isRef ? bold : m_font);
            p.setPen(c == RankMetricsModel::RankColumn ? RankColors::textColor(m->rank) : hasValue ? FigureChrome::textColor() : kNoValue);
            const QRect textRect = cell.adjusted(kCellPadding / 2 + (c == RankMetricsModel::RankColumn ? 4 : 0), 0, -kCellPadding / 2, 0);
            p.drawText(textRect, alignOf(c), text);
            if (c == RankMetricsModel::RankColumn) {
                p.fillRect(QRect(x, y + 1, 4, kTableRow - 2), RankColors::color(m->rank));
                if (isRef) {
                    // The yardstick of every colour in the table, marked in words too.
                    const QString label = tr("reference");
                    const QRect badge(textRect.left() + fm.horizontalAdvance(text) + 8, y + (kTableRow - sm.height()) / 2,
                                      sm.horizontalAdvance(label) + 8, sm.height());
                    p.setPen(Qt::NoPen);
                    p.setBrush(kBadge);
                    p.drawRoundedRect(badge, 3, 3);
                    p.setFont(small);
                    p.setPen(Qt::white);
                    p.drawText(badge, Qt::AlignCenter, label);
                }
            }
            x += w;
        }
        y += kTableRow;
        p.setPen(kGrid);
        p.drawLine(0, y - 1, tableWidth - 1, y - 1);
    }
    p.setPen(FigureChrome::borderColor());
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRect(0, 0, tableWidth - 1, y));
    p.drawLine(0, kTableHeader - 1, tableWidth - 1, kTableHeader - 1);
    p.restore();
}

} // namespace rs
