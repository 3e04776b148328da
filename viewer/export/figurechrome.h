#pragma once
// What every exported figure has around its picture, shared by the timeline figure
// (FigureRenderer) and the compare figure (CompareFigure) so the two read as one family: the title
// block (headline, the window as wall-clock start–end and duration, a line of what is shown, the
// RankScope version), the default headline, and the footer (the aligned clock's t = 0, the clock
// offsets applied, "made with RankScope"). Plain QPainter: no widget involved.

#include "analysisresult.h"
#include "figureoptions.h"
#include "session.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QRect>
#include <QString>
#include <QTimeZone>

#include <map>
#include <vector>

class QPainter;

namespace rs {

class FigureChrome
{
    Q_DECLARE_TR_FUNCTIONS(FigureRenderer)

public:
    static constexpr int kMargin = 20;       ///< white border around a figure
    static constexpr int kTitleHeight = 76;  ///< the title block
    static constexpr int kFooterHeight = 26; ///< the footer line

    static QColor textColor() { return {0x1f, 0x23, 0x2b}; }
    static QColor mutedColor() { return {0x5c, 0x63, 0x70}; }
    static QColor borderColor() { return {0xc9, 0xcc, 0xd3}; }

    /// The base font of the figures: DejaVu Sans, 11 pixels (pixel sized, so PNG, SVG and PDF agree).
    static QFont baseFont();
    /// Wall clock of aligned ns `t` in `zone`, to the millisecond; the date left out unless `withDate`.
    static QString wallClock(TimeNs t, const QTimeZone &zone, bool withDate = true);
    /// "UTC", the zone's abbreviation at `t`, or its id.
    static QString zoneName(TimeNs t, const QTimeZone &zone);
    /// "2023-09-07 23:10:01.545 – 23:10:03.112 UTC · 1.57 s".
    static QString rangeText(TimeRange range, const QTimeZone &zone);
    /// The window a figure draws for the `requested` one (empty: all) over data spanning `full`:
    /// clipped to the data; a window outside the data is drawn empty rather than refused; never
    /// shorter than ViewState::kMinVisibleNs.
    static TimeRange window(TimeRange requested, TimeRange full);
    /// The headline of a figure without one: the first sentence of the incident's story (the most
    /// severe finding's title when the analysis has none), else "RankScope · <first input's folder>",
    /// else `fallback`.
    /// Each rank's clock offset: the options' override, else the analysis' estimate, else 0.
    static std::map<RankId, TimeNs> offsets(const Session &session, const AnalysisResult *analysis,
                                            const FigureOptions &options);
    /// The ranks to draw, top to bottom: options.ranks (unknown and repeated ones dropped), or
    /// every rank of the session in its order when that is empty.
    static std::vector<RankId> rankOrder(const Session &session, const FigureOptions &options);
    static QString defaultTitle(const Session *session, const AnalysisResult *analysis, const QString &fallback);
    /// "4 ranks: 0–3 · 5 input files · 3 findings" (or "ranks 0, 2 (2 of 4) · …") for `ranks` drawn.
    static QString shownLine(const Session *session, const AnalysisResult *analysis, const std::vector<RankId> &ranks);
    /// Draws the title block into `r`: `title` large, `range` under it, `info` muted, the version top right.
    static void paintTitle(QPainter &p, const QRect &r, const QFont &base, const QString &title, const QString &range,
                           const QString &info);
    /// Draws the footer into `r`: t = 0 of the aligned clock (`origin`) in `zone`, the non-zero
    /// offsets of `ranks` (from `offsets`), and the version.
    static void paintFooter(QPainter &p, const QRect &r, const QFont &base, TimeNs origin, const QTimeZone &zone,
                            const std::vector<RankId> &ranks, const std::map<RankId, TimeNs> &offsets);
};

} // namespace rs
