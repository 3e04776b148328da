#include "spanpalette.h"

#include <QCoreApplication>

namespace rs {

namespace {

struct FamilyStyle {
    int hue;        ///< centre hue in degrees
    int hueSpread;  ///< names vary the hue by ±hueSpread
    int saturation; ///< 0..255
    int lightness;  ///< centre lightness 0..255
};

// Hues chosen so the GPU families (green/teal, orange, amber, red) stand apart from the host
// families (blue, violet, sand) that sit right above them in a rank group.
FamilyStyle style(SpanPalette::Family f)
{
    using F = SpanPalette::Family;
    switch (f) {
    case F::CpuOp: return {212, 16, 120, 168};
    case F::Python: return {40, 10, 110, 178};
    case F::Annotation: return {276, 14, 90, 172};
    case F::Runtime: return {250, 8, 45, 176};
    case F::Kernel: return {158, 22, 115, 150};
    case F::Memcpy: return {26, 8, 180, 160};
    case F::Memset: return {48, 6, 170, 158};
    case F::Collective: return {356, 8, 150, 150};
    case F::Step: return {220, 0, 12, 196};
    case F::Count: break;
    }
    return {0, 0, 0, 160};
}

// FNV-1a: stable across runs and platforms, unlike std::hash.
std::uint32_t fnv1a(std::string_view s)
{
    std::uint32_t h = 2166136261u;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 16777619u;
    }
    return h;
}

} // namespace

void SpanPalette::setSession(const Session *session)
{
    m_session = session;
    for (auto &v : m_cache)
        v.clear();
}

SpanPalette::Family SpanPalette::family(std::uint16_t flags, std::string_view category)
{
    if (flags & SpanFlagStep)
        return Family::Step;
    if (flags & SpanFlagCollective)
        return Family::Collective;
    if (flags & SpanFlagMemcpy)
        return Family::Memcpy;
    if (flags & SpanFlagMemset)
        return Family::Memset;
    if (flags & SpanFlagKernel)
        return Family::Kernel;
    if (flags & SpanFlagAnnotation)
        return Family::Annotation;
    if (flags & SpanFlagRuntime)
        return Family::Runtime;
    if (category == "kernel")
        return Family::Kernel;
    if (category == "gpu_memcpy")
        return Family::Memcpy;
    if (category == "gpu_memset")
        return Family::Memset;
    if (category == "cuda_runtime" || category == "cuda_driver" || category == "hip_runtime")
        return Family::Runtime;
    if (category == "user_annotation" || category == "gpu_user_annotation")
        return Family::Annotation;
    if (category == "python_function")
        return Family::Python;
    return Family::CpuOp;
}

QString SpanPalette::familyName(Family f)
{
    switch (f) {
    case Family::CpuOp: return QCoreApplication::translate("SpanPalette", "CPU op");
    case Family::Python: return QCoreApplication::translate("SpanPalette", "Python");
    case Family::Annotation: return QCoreApplication::translate("SpanPalette", "Annotation");
    case Family::Runtime: return QCoreApplication::translate("SpanPalette", "CUDA runtime");
    case Family::Kernel: return QCoreApplication::translate("SpanPalette", "GPU kernel");
    case Family::Memcpy: return QCoreApplication::translate("SpanPalette", "Memcpy");
    case Family::Memset: return QCoreApplication::translate("SpanPalette", "Memset");
    case Family::Collective: return QCoreApplication::translate("SpanPalette", "Collective");
    case Family::Step: return QCoreApplication::translate("SpanPalette", "Profiler step");
    case Family::Count: break;
    }
    return {};
}

QColor SpanPalette::familyColor(Family f)
{
    const FamilyStyle s = style(f);
    return QColor::fromHsl(s.hue, s.saturation, s.lightness);
}

QColor SpanPalette::textOn(const QColor &background)
{
    // Relative luminance with the sRGB weights; 0.55 keeps white text off mid-tone greens.
    const double l = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
    return l > 0.55 ? QColor(0x1c, 0x1e, 0x24) : QColor(Qt::white);
}

QRgb SpanPalette::shade(Family f, std::string_view name)
{
    const FamilyStyle s = style(f);
    const std::uint32_t h = fnv1a(name);
    const int hue = (s.hue + (s.hueSpread ? static_cast<int>(h % (2u * s.hueSpread + 1)) - s.hueSpread : 0) + 360) % 360;
    const int lightness = s.lightness + static_cast<int>((h >> 12) % 29) - 14;
    return QColor::fromHsl(hue, s.saturation, lightness).rgb();
}

QRgb SpanPalette::color(const Span &span)
{
    const std::string_view category = m_session ? m_session->str(span.category) : std::string_view();
    const Family f = family(span.flags, category);
    auto &cache = m_cache[static_cast<std::size_t>(f)];
    if (span.name >= cache.size())
        cache.resize(std::max<std::size_t>(span.name + 1, m_session ? m_session->strings().size() : 0), 0);
    QRgb &c = cache[span.name];
    if (c == 0)
        c = shade(f, m_session ? m_session->str(span.name) : std::string_view());
    return c;
}

} // namespace rs
