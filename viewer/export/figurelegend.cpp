#include "figurelegend.h"

#include "palette.h"

#include "timeline/lanekind.h"
#include "timeline/lanes/launchermarker.h"

#include "figurechrome.h"
#include "figurefindings.h"
#include "timeline/memorylanepainter.h"
#include "findingstyle.h"
#include "logstyle.h"
#include "rankcolors.h"
#include "timeline/analysisoverlay.h"

#include <QFontMetrics>
#include <QImage>
#include <QPainter>

#include <algorithm>
#include <functional>

namespace rs {

namespace {

const QColor kText = FigureChrome::textColor();
const QColor kMuted = FigureChrome::mutedColor();

} // namespace

void FigureLegend::addGroup(const Session &session, RankId rank, const LaneLayout &layout, const std::vector<Lane> &lanes, bool hasOom)
{
    // What is actually drawn decides what is explained.
    m_ranks.push_back(rank);
    const Rank &r = *session.rank(rank);
    for (const MemoryLanePainter::Curve &c : MemoryLanePainter::curvesOf(session, layout.memoryTracks(), rank, Palette::paper())) {
        m_used = m_used || c.style == MemoryLanePainter::Style::Dashed;
        m_reserved = m_reserved || c.style == MemoryLanePainter::Style::Line;
        m_snapshot = m_snapshot || c.style == MemoryLanePainter::Style::Dotted;
    }
    if (!layout.memoryTracks().empty())
        m_capacity = m_capacity || LaneLayout::deviceCapacity(r, session.tracks()[layout.memoryTracks().front()].device) > 0;
    for (const Lane &l : lanes) {
        m_logs = m_logs || l.is(LaneId::Log);
        m_launcher = m_launcher || l.is(LaneId::Launcher);
        if (l.is(LaneId::Spans)) {
            const Track &t = session.tracks()[l.track];
            m_gpu = m_gpu || t.kind == TrackKind::GpuStream;
            // A sample of spans is enough to know the families present.
            const std::size_t stride = std::max<std::size_t>(1, t.spans.size() / 2000);
            for (std::size_t i = 0; i < t.spans.size(); i += stride)
                m_families.insert(SpanPalette::family(t.spans[i].flags, session.str(t.spans[i].category)));
        }
    }
    m_memoryLane = m_memoryLane || !layout.memoryTracks().empty();
    m_oom = m_oom || hasOom;
}

void FigureLegend::addAnnotations(const std::vector<Annotation> &annotations, const AnalysisResult *analysis,
                                  const FigureFindings &findings)
{
    for (const Annotation &a : annotations) {
        if (a.origin == Annotation::Origin::Finding) {
            // Numbered markers are explained by the findings list; only callouts need swatches.
            if (analysis && findings.numberOf(a) == 0)
                for (const Finding &f : analysis->findings)
                    if (findingKey(f) == a.findingKey)
                        m_severities.insert(f.severity);
            continue;
        }
        m_note = m_note || a.kind == Annotation::Kind::Note;
        m_range = m_range || a.kind == Annotation::Kind::Range;
        m_arrow = m_arrow || a.kind == Annotation::Kind::Arrow;
    }
}

int FigureLegend::height(int width, const QFont &font) const
{
    // Measured by laying the legend out without drawing, so the figure is exactly as tall as needed.
    QImage probe(1, 1, QImage::Format_ARGB32);
    QPainter p(&probe);
    p.setFont(font);
    return paint(p, QRect(0, 0, width, 0), font, false);
}

int FigureLegend::paint(QPainter &p, const QRect &r, const QFont &font, bool draw) const
{
    QFont small = font;
    small.setPixelSize(11);
    QFont head = small;
    head.setWeight(QFont::DemiBold);
    const QFontMetrics fm(small);
    const int rowH = 18;
    const int swatchW = 22;
    int x = r.left();
    int y = r.top() + 4;
    auto item = [&](const QString &text, const std::function<void(const QRectF &)> &swatch) {
        const int w = swatchW + 4 + fm.horizontalAdvance(text) + 16;
        if (x + w > r.right() && x > r.left()) {
            x = r.left();
            y += rowH;
        }
        if (draw) {
            p.save();
            swatch(QRectF(x, y + 2, swatchW, rowH - 4));
            p.restore();
            p.setFont(small);
            p.setPen(kText);
            p.drawText(QRect(x + swatchW + 4, y, w, rowH), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    };
    auto section = [&](const QString &text) {
        const int w = QFontMetrics(head).horizontalAdvance(text) + 10;
        if (x + w + 120 > r.right() && x > r.left()) {
            x = r.left();
            y += rowH;
        }
        if (draw) {
            p.setFont(head);
            p.setPen(kMuted);
            p.drawText(QRect(x, y, w, rowH), Qt::AlignLeft | Qt::AlignVCenter, text);
        }
        x += w;
    };

    if (m_memoryLane) {
        section(tr("Memory"));
        item(tr("allocated (rank colour)"), [&](const QRectF &s) {
            const int n = std::min<int>(3, static_cast<int>(m_ranks.size()));
            for (int i = 0; i < n; ++i) {
                QColor c = RankColors::color(m_ranks[static_cast<std::size_t>(i)]);
                c.setAlpha(140);
                p.fillRect(QRectF(s.left() + s.width() * i / n, s.top() + 3, s.width() / n, s.height() - 6), c);
            }
        });
        if (m_reserved)
            item(tr("reserved"), [&](const QRectF &s) {
                p.setPen(MemoryLanePainter::pen(MemoryLanePainter::Style::Line, RankColors::textColor(m_ranks.front())));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (m_used)
            item(tr("used (nvidia-smi)"), [&](const QRectF &s) {
                p.setPen(MemoryLanePainter::pen(MemoryLanePainter::Style::Dashed, MemoryLanePainter::nvidiaSmiColor(Palette::paper())));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (m_snapshot)
            item(tr("allocator snapshot"), [&](const QRectF &s) {
                p.setPen(MemoryLanePainter::pen(MemoryLanePainter::Style::Dotted, RankColors::color(m_ranks.front())));
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (m_capacity)
            item(tr("GPU capacity"), [&](const QRectF &s) {
                p.setPen(MemoryLanePainter::capacityPen());
                p.drawLine(QPointF(s.left(), s.center().y()), QPointF(s.right(), s.center().y()));
            });
        if (m_spikes)
            item(tr("allocation spike"), [&](const QRectF &s) {
                QColor c = AnalysisOverlay::highlightColor();
                c.setAlpha(60);
                p.fillRect(s, c);
            });
    }
    if (m_oom) {
        if (!m_memoryLane)
            section(tr("Memory"));
        item(tr("CUDA OOM"), [&](const QRectF &s) {
            p.setPen(QPen(QColor(0xc9, 0x1d, 0x2e), 1.5));
            p.drawLine(QPointF(s.center().x(), s.top()), QPointF(s.center().x(), s.bottom()));
            LogStyle::paintMarker(p, s.center(), LogStyle::Mark::Oom, 5.0);
        });
    }
    if (m_gpu || !m_families.empty()) {
        x += 8;
        section(tr("Spans"));
        for (SpanPalette::Family f : m_families) {
            if (f == SpanPalette::Family::Step)
                continue;
            item(SpanPalette::familyName(f), [&, f](const QRectF &s) { p.fillRect(s.adjusted(2, 1, -2, -1), SpanPalette::familyColor(f)); });
        }
        item(tr("many short spans"), [&](const QRectF &s) {
            QColor base = SpanPalette::familyColor(SpanPalette::Family::Kernel);
            base.setHsl(base.hslHue(), base.hslSaturation() * 3 / 4, std::min(255, base.lightness() + 12));
            p.fillRect(s.adjusted(2, 1, -2, -1), base);
            QColor hatch = base.darker(135);
            hatch.setAlpha(150);
            p.fillRect(s.adjusted(2, 1, -2, -1), QBrush(hatch, Qt::BDiagPattern));
        });
    }
    if (m_logs) {
        x += 8;
        section(tr("Log"));
        for (const auto &[mark, name] : {std::pair{LogStyle::Mark::Warning, tr("warning")}, std::pair{LogStyle::Mark::Error, tr("error")},
                                         std::pair{LogStyle::Mark::Oom, tr("OOM message")}})
            item(name, [&, mark = mark](const QRectF &s) { LogStyle::paintMarker(p, s.center(), mark, 5.0); });
    }
    if (m_launcher) {
        x += 8;
        section(tr("Launcher"));
        item(tr("failed worker"), [&](const QRectF &s) { LauncherMarker::paint(p, s.center(), true, 5.0); });
        item(tr("job or step ended"), [&](const QRectF &s) { LauncherMarker::paint(p, s.center(), false, 5.0); });
    }
    if (!m_severities.empty()) {
        x += 8;
        section(tr("Findings"));
        for (auto it = m_severities.rbegin(); it != m_severities.rend(); ++it) {
            const Severity sev = *it;
            item(FindingStyle::severityLabel(sev), [&, sev](const QRectF &s) {
                QColor c = FindingStyle::severityColor(sev);
                p.fillRect(s.adjusted(2, 1, -2, -1), QColor(c.red(), c.green(), c.blue(), 50));
                p.fillRect(QRectF(s.left() + 2, s.top() + 1, 3, s.height() - 2), c);
            });
        }
    }
    if (m_note || m_range || m_arrow) {
        x += 8;
        section(tr("Annotations"));
        Annotation sample;
        if (m_note)
            item(tr("note"), [&](const QRectF &s) {
                sample.kind = Annotation::Kind::Note;
                p.setRenderHint(QPainter::Antialiasing, true);
                p.setPen(Qt::NoPen);
                p.setBrush(sample.effectiveColor());
                p.drawEllipse(s.center(), 4.5, 4.5);
            });
        if (m_range)
            item(tr("range"), [&](const QRectF &s) {
                sample.kind = Annotation::Kind::Range;
                QColor c = sample.effectiveColor();
                c.setAlpha(60);
                p.fillRect(s.adjusted(2, 1, -2, -1), c);
            });
        if (m_arrow)
            item(tr("arrow"), [&](const QRectF &s) {
                sample.kind = Annotation::Kind::Arrow;
                p.setPen(QPen(sample.effectiveColor(), 1.5));
                p.drawLine(QPointF(s.left() + 2, s.center().y()), QPointF(s.right() - 2, s.center().y()));
                p.drawLine(QPointF(s.right() - 6, s.center().y() - 3), QPointF(s.right() - 2, s.center().y()));
                p.drawLine(QPointF(s.right() - 6, s.center().y() + 3), QPointF(s.right() - 2, s.center().y()));
            });
    }
    return y + rowH + 2 - r.top();
}

} // namespace rs
