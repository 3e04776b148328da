#pragma once
// What a parsed number may be before the model takes it (issue: checked arithmetic). Real inputs
// never come near these bounds; a value past them is a corrupt or hostile file, reported by the
// importer and not used, so no wrapped or saturated number travels downstream.

#include "types.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace rs::plausible {

/// Bytes of one GPU's memory, an allocation or a file: below 2^50 (1 PiB).
inline constexpr std::int64_t kMaxBytes = std::int64_t(1) << 50;
/// Ranks of a job: below 2^20.
inline constexpr std::int64_t kMaxRank = std::int64_t(1) << 20;
/// Wall-clock times: 1990-01-01 .. 2100-01-01 (ns since the epoch).
inline constexpr TimeNs kMinEpochNs = TimeNs(631152000) * 1000000000;
inline constexpr TimeNs kMaxEpochNs = TimeNs(4102444800) * 1000000000;

inline bool bytes(double v) { return std::isfinite(v) && v >= 0 && v < double(kMaxBytes); }
inline bool bytes(std::int64_t v) { return v >= 0 && v < kMaxBytes; }
inline bool rank(std::int64_t v) { return v >= 0 && v < kMaxRank; }
inline bool year(int y) { return y >= 1990 && y < 2100; }
inline bool epochNs(TimeNs t) { return t >= kMinEpochNs && t < kMaxEpochNs; }

/// ms since the epoch → ns, when the time is plausible; nullopt otherwise (never an overflow).
inline std::optional<TimeNs> epochMsToNs(std::int64_t ms)
{
    if (ms < kMinEpochNs / 1000000 || ms >= kMaxEpochNs / 1000000)
        return std::nullopt;
    return ms * 1000000;
}

} // namespace rs::plausible
