#include "palette.h"

#include <QGuiApplication>
#include <QPalette>

namespace rs {

const Palette &Palette::paper()
{
    // The values every figure golden was made with: change them and the goldens change.
    static const Palette p(false, {
                                      QColor(0xff, 0xff, 0xff),     // Base
                                      QColor(0xf6, 0xf7, 0xf9),     // Gutter
                                      QColor(0xd3, 0xd6, 0xdd),     // GutterBorder
                                      QColor(0xe7, 0xe9, 0xee),     // Separator
                                      QColor(0x26, 0x2b, 0x35),     // Title
                                      QColor(0x6b, 0x72, 0x80),     // Muted
                                      QColor(0xee, 0xf0, 0xf3),     // GridMinor
                                      QColor(0xdc, 0xdf, 0xe5),     // GridMajor
                                      QColor(0xe9, 0xec, 0xf2),     // StepA
                                      QColor(0xdb, 0xdf, 0xe8),     // StepB
                                      QColor(0x39, 0x41, 0x4f),     // StepText
                                      QColor(0x10, 0x12, 0x18),     // Outline
                                      QColor(0xf6, 0xf7, 0xf9),     // Chrome
                                      QColor(0xc9, 0xcc, 0xd3),     // ChromeBorder
                                      QColor(0x1f, 0x23, 0x2b),     // ChromeText
                                      QColor(0x5c, 0x63, 0x70),     // ChromeMuted
                                      QColor(0, 0, 0, 60),          // Shadow
                                      QColor(0xe6, 0xe8, 0xec),     // ChartGrid
                                      QColor(255, 255, 255, 210),   // LegendBox
                                      QColor(0xf6, 0xf7, 0xf9),     // NoData
                                      QColor(0x9a, 0xa0, 0xab),     // ChromeTick
                                      QColor(0xfa, 0xfb, 0xfc),     // FaintRow
                                      QColor(0xfd, 0xf6, 0xe8),     // WarningRow
                                      QColor(0xfd, 0xee, 0xee),     // ErrorRow
                                      QColor(0xfb, 0xe3, 0xe8),     // OomRow
                                      QColor(0x1f, 0x4e, 0x8c),     // Link
                                      QColor(0x1f, 0x6f, 0x3f),     // FixText
                                      QColor(0xee, 0xf7, 0xf1),     // FixBox
                                      QColor(0xf8, 0xfa, 0xfc),     // Panel
                                      QColor(0x55, 0x5d, 0x68),     // Caption
                                      QColor(0xe3, 0xe6, 0xea),     // PlotEdge
                                      QColor(0xd5, 0xd9, 0xde),     // RowRule
                                      QColor(0x9a, 0xa0, 0xa6),     // AxisLine
                                      QColor(0x4b, 0x55, 0x63),     // AxisText
                                      QColor(0, 0, 0, 18),          // AxisGrid
                                      QColor(0x8a, 0x93, 0x9e),     // NoStack
                                      QColor(0xb8, 0xbe, 0xc6),     // SummedBand
                                      QColor(0x3b, 0x7d, 0xd8),     // BlockAllocated
                                      QColor(0xe0, 0xa1, 0x2b),     // BlockPending
                                      QColor(0xe4, 0xe7, 0xeb),     // BlockFree
                                  });
    return p;
}

const Palette &Palette::dark()
{
    static const Palette p(true, {
                                     QColor(0x1d, 0x20, 0x26),    // Base
                                     QColor(0x25, 0x29, 0x30),    // Gutter
                                     QColor(0x3a, 0x3f, 0x48),    // GutterBorder
                                     QColor(0x2e, 0x32, 0x39),    // Separator
                                     QColor(0xe6, 0xe8, 0xec),    // Title
                                     QColor(0x9a, 0xa3, 0xb0),    // Muted
                                     QColor(0x28, 0x2c, 0x33),    // GridMinor
                                     QColor(0x37, 0x3c, 0x45),    // GridMajor
                                     QColor(0x2b, 0x2f, 0x37),    // StepA
                                     QColor(0x34, 0x39, 0x42),    // StepB
                                     QColor(0xd0, 0xd4, 0xdc),    // StepText
                                     QColor(0xf2, 0xf4, 0xf7),    // Outline
                                     QColor(0x25, 0x29, 0x30),    // Chrome
                                     QColor(0x3a, 0x3f, 0x48),    // ChromeBorder
                                     QColor(0xe6, 0xe8, 0xec),    // ChromeText
                                     QColor(0xa3, 0xab, 0xb7),    // ChromeMuted
                                     QColor(0, 0, 0, 140),        // Shadow
                                     QColor(0x30, 0x34, 0x3b),    // ChartGrid
                                     QColor(0x1d, 0x20, 0x26, 210), // LegendBox
                                     QColor(0x2a, 0x2d, 0x33),    // NoData
                                     QColor(0x6b, 0x72, 0x80),    // ChromeTick
                                     QColor(0x22, 0x25, 0x2b),    // FaintRow
                                     QColor(0x3a, 0x31, 0x1d),    // WarningRow
                                     QColor(0x40, 0x24, 0x24),    // ErrorRow
                                     QColor(0x46, 0x20, 0x2b),    // OomRow
                                     QColor(0x8a, 0xb4, 0xf8),    // Link
                                     QColor(0x7f, 0xd1, 0xa0),    // FixText
                                     QColor(0x1e, 0x33, 0x27),    // FixBox
                                     QColor(0x25, 0x29, 0x30),    // Panel
                                     QColor(0xa2, 0xaa, 0xb6),    // Caption
                                     QColor(0x30, 0x34, 0x3b),    // PlotEdge
                                     QColor(0x3a, 0x3f, 0x48),    // RowRule
                                     QColor(0x6b, 0x72, 0x80),    // AxisLine
                                     QColor(0xb8, 0xbf, 0xca),    // AxisText
                                     QColor(255, 255, 255, 20),   // AxisGrid
                                     QColor(0x6b, 0x72, 0x80),    // NoStack
                                     QColor(0x55, 0x5b, 0x66),    // SummedBand
                                     QColor(0x4f, 0x8f, 0xe8),    // BlockAllocated
                                     QColor(0xe0, 0xa1, 0x2b),    // BlockPending
                                     QColor(0x34, 0x39, 0x42),    // BlockFree
                                 });
    return p;
}

const Palette &Palette::screen()
{
    // Read from the application each time, so no copy of the theme can go stale: a dark desktop
    // theme gives the application a dark window colour (Qt 6.4 has no colour-scheme hint yet).
    if (!qobject_cast<QGuiApplication *>(QCoreApplication::instance()))
        return paper();
    return QGuiApplication::palette().color(QPalette::Window).lightness() < 128 ? dark() : paper();
}

} // namespace rs
