#include "figurefindings.h"

#include "annotations/annotationpainter.h"
#include "findingstyle.h"
#include "timeformat.h"

#include <QFontMetrics>
#include <QPainter>
#include <QTextLayout>

#include <algorithm>
#include <set>

namespace rs {

namespace {

const QColor kText(0x1f, 0x23, 0x2b);
const QColor kMuted(0x5c, 0x63, 0x70);
const QColor kBorder(0xc9, 0xcc, 0xd3);
constexpr int kBadgeColumn = 28; // the badge, then the text
constexpr int kEntryGap = 7;

// Wraps `text` (paragraphs split at '\n') into lines, the first `firstWidth` wide, the rest
// `width`: nothing is elided, the block grows instead.
QStringList wrap(const QString &text, const QFont &font, int firstWidth, int width)
{
    QStringList out;
    for (const QString &para : text.split(QLatin1Char('\n'))) {
        const QString simple = para.simplified();
        if (simple.isEmpty())
            continue;
        QTextLayout layout(simple, font);
        layout.beginLayout();
        while (true) {
            QTextLine line = layout.createLine();
            if (!line.isValid())
                break;
            line.setLineWidth(std::max(40, out.isEmpty() ? firstWidth : width));
            out << simple.mid(line.textStart(), line.textLength()).trimmed();
        }
        layout.endLayout();
    }
    return out;
}

// "+63.6 s", "+2.45 s", "−12.0 ms": relative to t = 0, in seconds like the ruler's labels (not
// "1 min 3.6 s", which the reader would convert to find it on the ruler).
QString relative(TimeNs t)
{
    const TimeNs magnitude = t < 0 ? -t : t;
    const QString sign = t < 0 ? QStringLiteral("−") : QStringLiteral("+");
    if (magnitude < 1'000'000'000LL)
        return sign + TimeFormat::duration(magnitude);
    const double seconds = static_cast<double>(magnitude) / 1e9;
    return sign + QStringLiteral("%1 s").arg(seconds, 0, 'f', seconds < 10 ? 2 : 1);
}

} // namespace

QString foldedRanks(const std::vector<RankId> &ranks)
{
    std::vector<RankId> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    QStringList parts;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        parts << (j > i + 1 ? QStringLiteral("%1–%2").arg(sorted[i]).arg(sorted[j])
                  : j == i  ? QString::number(sorted[i])
                            : QStringLiteral("%1, %2").arg(sorted[i]).arg(sorted[j]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

FigureFindings::FigureFindings(const AnalysisResult *analysis, const FigureOptions &options,
                               const std::function<bool(const Annotation &)> &onLanes)
{
    if (!analysis || !options.findings)
        return;
    std::set<std::string> annotated, drawn;
    for (const Annotation &a : options.annotations)
        if (a.origin == Annotation::Origin::Finding) {
            annotated.insert(a.findingKey);
            if (!onLanes || onLanes(a))
                drawn.insert(a.findingKey);
        }
    const bool anyTimed = std::any_of(analysis->findings.begin(), analysis->findings.end(), [](const Finding &f) { return f.timeNs.has_value(); });
    // Timeless findings have no annotation to hide: they follow the timed ones. A view without any
    // finding annotation hid them as a group, unless there were none to show in the first place.
    const bool timeless = !annotated.empty() || !anyTimed;
    // Numbered as on screen and in the findings panel (findingNumbers()): a finding left out leaves
    // a gap rather than renumbering the rest, so ③ here is ③ in the viewer and the report.
    const FindingNumbers numbers = findingNumbers(*analysis);
    for (const int index : findingOrder(*analysis)) {
        const Finding &f = analysis->findings[static_cast<std::size_t>(index)];
        const std::string key = findingKey(f);
        const bool hasAnnotation = annotated.count(key) > 0;
        if (!hasAnnotation && !(timeless && !f.timeNs))
            continue;
        const int number = numbers.at(key);
        if (!m_numbers.emplace(key, number).second)
            continue; // the same finding twice: the first is listed
        m_entries.push_back({number, &f, drawn.count(key) > 0});
    }
}

int FigureFindings::numberOf(const Annotation &annotation) const
{
    return findingNumber(m_numbers, annotation);
}

int FigureFindings::paint(QPainter &p, const QRect &r, const QFont &font, TimeNs origin, bool draw) const
{
    if (m_entries.empty())
        return 0;
    QFont body = font;
    body.setPixelSize(11);
    QFont strong = body;
    strong.setWeight(QFont::DemiBold);
    QFont heading = body;
    heading.setPixelSize(12);
    heading.setWeight(QFont::Bold);
    const QFontMetrics fm(body), fmStrong(strong);
    const int lineH = fm.height() + 3;
    const int left = r.left();
    const int textX = left + kBadgeColumn;
    const int textW = std::max(80, r.width() - kBadgeColumn);
    int y = r.top() + 6;

    if (draw) {
        p.setPen(kBorder);
        p.drawLine(left, y, r.right(), y);
        p.setFont(heading);
        p.setPen(kText);
        p.drawText(QRect(left, y + 4, r.width(), 18), Qt::AlignLeft | Qt::AlignVCenter, tr("Findings"));
    }
    y += 26;

    auto text = [&](int x, int top, const QString &s, const QFont &f, const QColor &c) {
        if (!draw)
            return;
        p.setFont(f);
        p.setPen(c);
        p.drawText(QPointF(x, top + fm.ascent() + 1), s);
    };

    for (const Entry &e : m_entries) {
        const Finding &f = *e.finding;
        const QColor color = FindingStyle::severityColor(f.severity);
        if (draw)
            AnnotationPainter::paintNumberBadge(p, QPointF(left + kBadgeColumn / 2.0 - 2, y + lineH / 2.0), e.number, color);

        // "High  Rank 2 ran out of GPU memory …  ·  rank 2 · t = +63.6 s"
        const QString severity = FindingStyle::severityLabel(f.severity);
        text(textX, y, severity, strong, color);
        const int titleX = textX + fmStrong.horizontalAdvance(severity) + 10;
        const int titleW = textW - (titleX - textX);
        const QStringList title = wrap(QString::fromStdString(f.title), strong, titleW, titleW);
        int lastRight = titleX;
        for (qsizetype i = 0; i < title.size(); ++i) {
            text(titleX, y, title[i], strong, kText);
            lastRight = titleX + fmStrong.horizontalAdvance(title[i]);
            if (i + 1 < title.size())
                y += lineH;
        }
        QStringList meta;
        meta << (f.ranks.empty() ? tr("job-wide") : (f.ranks.size() == 1 ? tr("rank %1") : tr("ranks %1")).arg(foldedRanks(f.ranks)));
        if (f.timeNs && f.endNs && *f.endNs > *f.timeNs)
            meta << tr("t = %1 to %2 (%3)").arg(relative(*f.timeNs - origin), relative(*f.endNs - origin), TimeFormat::duration(*f.endNs - *f.timeNs));
        else if (f.timeNs)
            meta << tr("t = %1").arg(relative(*f.timeNs - origin));
        if (!f.timeNs)
            meta << tr("no time, not marked on the lanes");
        else if (!e.marked)
            meta << tr("outside the ranks and window shown");
        const QString metaText = meta.join(QStringLiteral("  ·  "));
        const int metaW = fm.horizontalAdvance(metaText);
        if (lastRight + 16 + metaW <= textX + textW) {
            text(lastRight + 16, y, metaText, body, kMuted);
        } else {
            y += lineH;
            for (const QString &line : wrap(metaText, body, titleW, titleW)) {
                text(titleX, y, line, body, kMuted);
                y += lineH;
            }
            y -= lineH;
        }
        y += lineH;

        if (!f.fix.empty()) {
            // "Fix:" hangs left of the wrapped text, so a long fix reads as one paragraph.
            const QString label = tr("Fix:");
            const int labelW = fmStrong.horizontalAdvance(label) + 6;
            text(titleX, y, label, strong, kText);
            const QStringList fix = wrap(QString::fromStdString(f.fix), body, titleW - labelW, titleW - labelW);
            for (const QString &line : fix) {
                text(titleX + labelW, y, line, body, kText);
                y += lineH;
            }
        }
        y += kEntryGap;
    }
    return y - r.top();
}

} // namespace rs
