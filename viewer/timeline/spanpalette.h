#pragma once
// Colours of spans: the family (CPU op, kernel, memcpy, collective, ...) picks a hue range so kinds
// of work are recognisable at a glance, and a hash of the name picks a shade inside it so repeated
// ops look the same across ranks and reloads, while neighbouring different ops still separate.

#include "session.h"

#include <QColor>

#include <array>
#include <string_view>
#include <vector>

namespace rs {

class SpanPalette
{
public:
    enum class Family : std::uint8_t {
        CpuOp,      ///< host-side ATen/torch ops and anything unclassified
        Python,     ///< python_function frames
        Annotation, ///< record_function / user annotations, CPU or GPU side
        Runtime,    ///< CUDA/HIP runtime and driver calls
        Kernel,     ///< compute kernels
        Memcpy,     ///< device memory copies
        Memset,     ///< device memory sets
        Collective, ///< NCCL/RCCL collectives and c10d comm ops
        Step,       ///< ProfilerStep#N
        Count
    };

    /// Drops cached colours and reads names from `session` (which must outlive the palette's use).
    void setSession(const Session *session);

    /// Family of a span from its flags, falling back to its category text.
    static Family family(std::uint16_t flags, std::string_view category);
    /// Human name of a family ("GPU kernel"), for legends and tooltips.
    static QString familyName(Family family);
    /// The family's base colour (the shade used for legends).
    static QColor familyColor(Family family);
    /// Black or white, whichever reads better on `background`.
    static QColor textOn(const QColor &background);

    /// Fill colour of a span; memoised per (family, name), so repeated calls cost an array read.
    QRgb color(const Span &span);

private:
    static QRgb shade(Family family, std::string_view name);

    const Session *m_session = nullptr;
    // Indexed by StringId of the name; 0 means "not computed yet" (no shade is pure black).
    std::array<std::vector<QRgb>, static_cast<std::size_t>(Family::Count)> m_cache;
};

} // namespace rs
