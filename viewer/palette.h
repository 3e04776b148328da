#pragma once
// The colours of the timeline and its chrome by role, in two sets: paper (the light screen and
// every exported figure, which is printed or pasted into tickets) and dark (the screen when the
// desktop's theme is dark). Painters ask for a role instead of writing a literal, so the screen
// follows the system while a figure stays on white.
//
// Colours that carry meaning on either background (rank colours, span families, severities, the
// OOM red, the spike amber) are not roles: they are the same in both sets.

#include <QColor>
#include <QString>

#include <array>
#include <cstdint>

namespace rs {

class Palette
{
public:
    enum class Role : std::uint8_t {
        Base,            ///< lane background
        Gutter,          ///< lane-name column
        GutterBorder,    ///< the gutter's right edge
        Separator,       ///< line under each lane
        Title,           ///< lane titles, strong text
        Muted,           ///< secondary text (counts, summaries, axis labels)
        GridMinor,       ///< the ruler's minor ticks across the lanes
        GridMajor,       ///< the ruler's major ticks across the lanes
        StepA,           ///< alternate step bands
        StepB,
        StepText,
        Outline,         ///< the selected event's outline
        Chrome,          ///< ruler and strip background
        ChromeBorder,    ///< their bottom edge
        ChromeText,      ///< the ruler's major labels
        ChromeMuted,     ///< its minor labels and ticks
        Shadow,          ///< the line under pinned rows (alpha)
        ChartGrid,       ///< a memory chart's value grid
        LegendBox,       ///< the box behind a chart's value labels (alpha)
        NoData,          ///< the ranks overview where a rank has no data
        ChromeTick,      ///< the ruler's tick marks
        FaintRow,        ///< a row of badges rather than data (the Findings row)
        WarningRow,      ///< behind a warning's row in a list (the Log)
        ErrorRow,        ///< behind an error's row
        OomRow,          ///< behind an out-of-memory row
        Link,            ///< a link in text
        FixText,         ///< the fix a finding names
        FixBox,          ///< behind it
        Panel,           ///< a text block set off from its panel (the incident story)
        Caption,         ///< small text beside a plot: a row's peak and steps, the shared scale
        PlotEdge,        ///< the top and bottom edge of a small plot
        RowRule,         ///< the line between rows of small plots
        AxisLine,        ///< a time axis' line and ticks; "no data" notes on a plot
        AxisText,        ///< a time axis' labels
        AxisGrid,        ///< the faint vertical lines of a time axis across small plots (alpha)
        NoStack,         ///< an allocation recorded without a stack (Active memory)
        SummedBand,      ///< the smaller allocations summed in one band (Active memory)
        BlockAllocated,  ///< a segment's allocated block (Segment map)
        BlockPending,    ///< a block freed by the program, awaiting its stream
        BlockFree,       ///< a free (inactive) block
        Count_
    };

    /// White paper: figures always, the screen on a light desktop.
    static const Palette &paper();
    /// The screen on a dark desktop.
    static const Palette &dark();
    /// What the screen uses now: dark when the application palette's window colour is dark (the
    /// desktop's theme), else paper (also without a GUI application: a command line draws figures).
    static const Palette &screen();

    QColor color(Role role) const { return m_colors[static_cast<std::size_t>(role)]; }
    /// The colour as a style sheet or HTML writes it ("#rrggbb").
    QString css(Role role) const { return color(role).name(); }
    bool isDark() const { return m_dark; }

private:
    Palette(bool dark, std::array<QColor, static_cast<std::size_t>(Role::Count_)> colors)
        : m_colors(colors)
        , m_dark(dark)
    {
    }
    std::array<QColor, static_cast<std::size_t>(Role::Count_)> m_colors;
    bool m_dark;
};

} // namespace rs
