#pragma once
// Draws the timeline of a session as a self-contained figure onto any QPainter: a title block (the
// title, the window as wall-clock start–end and duration, the ranks shown, the RankScope version;
// FigureChrome), the time ruler (FigureRuler), one group per rank painted by the screen's
// RankGroupPainter and lane kinds (the memory lane through the installed MemoryChartEngine: the
// screen's QCustomPlot chart, rendered to a picture), the annotations on top (AnnotationPainter; findings as
// numbered markers in rows of their own, FigureMarkerStrips), a legend (FigureLegend), the
// findings in full (FigureFindings) and a footer; this class builds the groups and lays the parts
// out. This class needs QtGui only; the chart engine is the application's (a widget never shown), so
// `rankscope export` runs without a display; SVG and PDF keep text as text.

#include "figure.h"
#include "figurelegend.h"
#include "figuremarkerstrips.h"
#include "figureoptions.h"
#include "timeline/lanekind.h"
#include "timeline/lanelayout.h"
#include "timeline/rulerticks.h"
#include "timeline/timescale.h"

#include <QCoreApplication>
#include <QFont>
#include <QRect>
#include <QSize>

#include <memory>
#include <vector>

class QPainter;

namespace rs {

class FigureFindings;
struct TimelineContext;

class FigureRenderer : public Figure
{
    Q_DECLARE_TR_FUNCTIONS(FigureRenderer)

public:
    /// Lays the figure out; `analysis` may be null (no offsets, findings or spikes then).
    FigureRenderer(SessionPtr session, std::shared_ptr<const AnalysisResult> analysis, FigureOptions options);
    ~FigureRenderer() override;
    FigureRenderer(const FigureRenderer &) = delete;
    FigureRenderer &operator=(const FigureRenderer &) = delete;

    /// Logical size of the figure: options' width, and options' height or the content's.
    QSize size() const override { return m_size; }
    /// The aligned window drawn (the options' range clamped to the data, or all of it).
    TimeRange range() const { return m_range; }
    /// The ranks drawn, top to bottom (unknown ranks of the options dropped).
    const std::vector<RankId> &ranks() const { return m_rankOrder; }
    /// The clock offset applied to `rank`'s data.
    TimeNs offsetOf(RankId rank) const;
    /// The title drawn (the options' or the default one).
    QString title() const override { return m_title; }
    /// "2023-09-07 23:10:01.545 – 23:10:03.112 UTC · 1.57 s", in the options' time zone.
    QString rangeText() const override;

    /// Paints the whole figure with its top-left at (0, 0) of `painter`, in logical pixels.
    void paint(QPainter &painter) override;

    /// Where the session's data lies on the aligned axis (every rank's data and timed evidence
    /// shifted by its offset); t = 0 of the ruler and of relative times. `offsets` override the
    /// analysis' per rank.
    static TimeRange alignedDataRange(const Session &session, const AnalysisResult *analysis,
                                      const std::map<RankId, TimeNs> &offsets = {});

private:
    struct Group {
        RankId rank = 0;
        LaneLayout layout;        // lanes kept for the detail level, restacked (findings row included)
        int top = 0;              // figure y of the group's first row
        int height = 0;           // rows, gap included
        GroupHeader header;       // summary, red and amber badges
    };

    void layout();
    void buildGroup(Group &g, const Rank &rank, bool collapsed);
    bool onFigure(const Annotation &a) const;
    int findingsHeight(int width) const;
    void paintTitle(QPainter &p, const QRect &r) const;
    void paintGroup(QPainter &p, Group &g);
    void paintAnnotations(QPainter &p) const;
    void paintFooter(QPainter &p, const QRect &r) const;
    TimeScale viewScale() const; // aligned ns → x in group coordinates

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    FigureOptions m_opt;
    std::unique_ptr<TimelineContext> m_ctx;
    std::unique_ptr<FigureFindings> m_findings; // the numbered list under the legend
    FigureMarkerStrips m_markers;                // which ranks get a row of finding markers
    FigureLegend m_legend;                       // what the groups and annotations draw, explained
    RulerTicks m_ticks;
    TimeRange m_full;
    TimeRange m_range;
    std::vector<RankId> m_rankOrder;
    std::map<RankId, TimeNs> m_offsets;
    std::vector<Group> m_groups;
    QString m_title;
    QFont m_font;
    QSize m_size;
    double m_scale = 1.0;  // < 1 when a fixed height is smaller than the content
    int m_contentWidth = 0; // logical width laid out before m_scale
    int m_groupWidth = 0;
    int m_titleTop = 0, m_titleHeight = 0, m_rulerTop = 0, m_groupsTop = 0, m_groupsBottom = 0;
    int m_jobMarkersTop = -1; // the strip of job-wide finding markers under the ruler; -1: none
    int m_legendTop = 0, m_legendHeight = 0, m_findingsTop = 0, m_findingsHeight = 0, m_footerTop = 0, m_contentHeight = 0;
};

} // namespace rs
