#include "rankcolors.h"

#include "palette.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace rs {

namespace {

// Tableau 10 reordered so the first eight (a typical node) are the most distinct, followed by
// deeper variants. Yellow-ish entries are used only past eight ranks, where contrast matters less
// than being distinguishable.
constexpr std::array<QRgb, 16> kFixed = {
    0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0xb07aa1, 0x76b7b2, 0x9c755f, 0xd37295,
    0x2f5d8a, 0xc15a00, 0x3b7a34, 0xa83235, 0x7b4d93, 0x3f8f8a, 0xb8a23a, 0x6b6b6b,
};

} // namespace

QColor RankColors::color(RankId rank)
{
    if (rank < 0)
        return QColor(0x88, 0x88, 0x88);
    if (rank < static_cast<RankId>(kFixed.size()))
        return QColor::fromRgb(kFixed[static_cast<std::size_t>(rank)]);
    const double golden = 137.50776405;
    const int hue = static_cast<int>(std::fmod(static_cast<double>(rank) * golden, 360.0));
    return QColor::fromHsl(hue, 150, 110);
}

QColor RankColors::textColor(RankId rank)
{
    QColor c = color(rank);
    // Lightness around 35% reads well on white for every hue in the list.
    return QColor::fromHslF(c.hslHueF() < 0 ? 0 : c.hslHueF(), std::min(1.0f, c.hslSaturationF()), 0.35f);
}

QColor RankColors::textColor(RankId rank, const Palette &palette)
{
    if (!palette.isDark())
        return textColor(rank);
    const QColor c = color(rank);
    return QColor::fromHslF(c.hslHueF() < 0 ? 0 : c.hslHueF(), std::min(1.0f, c.hslSaturationF()), 0.72f);
}

QColor RankColors::tint(RankId rank, int alpha)
{
    QColor c = color(rank);
    c.setAlpha(alpha);
    return c;
}

int RankColors::fixedCount()
{
    return static_cast<int>(kFixed.size());
}

} // namespace rs
