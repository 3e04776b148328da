#include "findingmarkerlayer.h"

#include "findingstyle.h"
#include "lanekind.h"
#include "timelineview.h"

namespace rs {

FindingMarkerLayer::FindingMarkerLayer(const TimelineView *view)
    : m_view(view)
{
}

const FindingMarkerLayer::Numbering &FindingMarkerLayer::numbering() const
{
    std::shared_ptr<const AnalysisResult> analysis = m_view->analysis();
    if (analysis != m_numbering.analysis) {
        m_numbering.numbers = analysis ? findingNumbers(*analysis) : FindingNumbers();
        m_numbering.order = analysis ? findingOrder(*analysis) : std::vector<int>();
        m_numbering.analysis = std::move(analysis);
    }
    return m_numbering;
}

bool FindingMarkerLayer::isMarker(const Annotation &a) const
{
    return a.origin == Annotation::Origin::Finding && a.kind != Annotation::Kind::Arrow && numberOf(a) > 0;
}

int FindingMarkerLayer::numberOf(const Annotation &a) const
{
    return findingNumber(numbering().numbers, a);
}

std::pair<const Finding *, int> FindingMarkerLayer::findingOf(const Annotation &a) const
{
    const Numbering &n = numbering();
    const int number = findingNumber(n.numbers, a);
    if (number <= 0 || number > static_cast<int>(n.order.size()))
        return {nullptr, -1};
    const int index = n.order[static_cast<std::size_t>(number - 1)];
    return {&n.analysis->findings[static_cast<std::size_t>(index)], index};
}

AnnotationStyle FindingMarkerLayer::style() const
{
    AnnotationStyle style;
    style.findings = FindingMarks::NumberedMarker;
    style.number = [this](const Annotation &a) { return numberOf(a); };
    return style;
}

QString FindingMarkerLayer::toolTip(const Annotation &a) const
{
    const Finding *f = findingOf(a).first;
    if (!f)
        return {};
    QString tip = QStringLiteral("<b style='color:%1'>%2 &nbsp;%3</b><br>%4")
                      .arg(FindingStyle::severityColor(f->severity).name(), QString::number(numberOf(a)),
                           FindingStyle::severityLabel(f->severity), QString::fromStdString(f->title).toHtmlEscaped());
    if (const QString title = QString::fromStdString(f->title); !a.text.isEmpty() && a.text != title)
        tip += QStringLiteral("<br><i>%1</i>").arg(a.text.toHtmlEscaped().replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    tip += QStringLiteral("<br><span style='color:#6b7280'>%1</span>").arg(tr("Click to select it in Findings, drag to move it."));
    return tip;
}

std::function<std::optional<QRectF>(RankId)> FindingMarkerLayer::rows(double width, double height, std::optional<QRectF> jobStrip) const
{
    const TimelineView *view = m_view;
    return [view, width, height, jobStrip](RankId rank) -> std::optional<QRectF> {
        const double left = view->gutterWidth();
        auto row = [&](const GroupEntry *group, bool header) -> std::optional<QRectF> {
            if (!group || group->hidden || group->layout.lanes().empty())
                return std::nullopt;
            const std::vector<Lane> &lanes = group->layout.lanes();
            const Lane *lane = &lanes.front();
            if (!header) {
                if (const Lane *findings = group->layout.findingsLane())
                    lane = findings;
                else if (lanes.size() > 1 && lanes[1].is(LaneId::Summary))
                    lane = &lanes[1];
            }
            // Less the lane's bottom separator, as the figure's strips.
            const int h = lane->is(LaneId::Findings) ? lane->height - 1 : lane->height;
            return QRectF(left, view->viewportY(*group) + lane->top, width - left, h);
        };
        if (rank != kNoRank)
            return row(view->groupStack().find(rank), false);
        if (jobStrip)
            return QRectF(left, jobStrip->top(), jobStrip->width() - left, jobStrip->height() - 1);
        // The first header wholly in view: only the groups in sight are looked at.
        const GroupStack &stack = view->groupStack();
        const int canvasTop = view->canvasTop();
        const auto [first, last] = stack.overlapping(-canvasTop, -canvasTop + static_cast<int>(height));
        for (std::size_t i = first; i < last; ++i)
            if (const auto r = row(&stack.entries()[i], true); r && r->top() >= 0 && r->bottom() <= height)
                return r;
        return std::nullopt;
    };
}

} // namespace rs
