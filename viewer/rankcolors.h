#pragma once
// One colour per rank, the same in every view (timeline header, memory curves, charts, exports), so
// "the orange rank" means the same thing everywhere an engineer looks.

#include "types.h"

#include <QColor>

namespace rs {

class RankColors
{
public:
    /// The rank's colour: a fixed, colour-blind-aware list for the first ranks, then hues spaced by
    /// the golden angle so neighbouring ranks never look alike. Negative ranks get neutral grey.
    static QColor color(RankId rank);
    /// A darker variant with enough contrast for text and thin lines on a white background.
    static QColor textColor(RankId rank);
    /// The same, readable on `palette`'s background (lighter on a dark one).
    static QColor textColor(RankId rank, const class Palette &palette);
    /// A light tint for backgrounds and area fills.
    static QColor tint(RankId rank, int alpha = 48);
    /// Size of the fixed list before generated hues take over.
    static int fixedCount();
};

} // namespace rs
