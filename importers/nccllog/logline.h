#pragma once
// The grammar of one log line, without state: launcher rank prefixes, time stamps, NCCL line
// headers, c10 and glog prefixes. LogParser strings these together.

#include "types.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rs::logline {

/// `[rank3]:`, `[default3]:`, `[3]:` or `3: ` at the start of a torchrun-captured line.
struct RankPrefix {
    RankId rank = kNoRank;   ///< the rank it names
    std::size_t length = 0;  ///< bytes to skip, including one following space
};
std::optional<RankPrefix> rankPrefix(std::string_view line);

/// A wall-clock stamp at the start: NCCL's `[2025-03-12 10:11:12.123456] ` or a bare
/// `2025-03-12 10:11:12,123 ` / ISO `2025-03-12T10:11:12.123` of logging modules.
struct Stamp {
    TimeNs time = 0;         ///< ns since the epoch (local time resolved in `zone`)
    std::size_t length = 0;  ///< bytes to skip
};
std::optional<Stamp> leadingStamp(std::string_view line, const std::string &zone);

/// A month-day stamp without a year (c10 `[E0321 02:07:08.408271257 file:line]`, glog
/// `E0801 13:23:20.000000 32974 file:line]`): resolved later with a reference year.
struct PartialStamp {
    int month = 0, day = 0;
    TimeNs timeOfDay = 0;    ///< ns since midnight
    char level = 'I';        ///< E, W or I
    std::size_t length = 0;  ///< bytes up to and including "] "
};
std::optional<PartialStamp> c10Prefix(std::string_view line);
std::optional<PartialStamp> glogPrefix(std::string_view line);
/// Old c10 prefix `[E ProcessGroupNCCL.cpp:475] ` (no time at all); returns its level letter.
std::optional<std::pair<char, std::size_t>> oldC10Prefix(std::string_view line);
/// ns since the epoch of a partial stamp in `year`, local time in `zone`.
std::optional<TimeNs> resolve(const PartialStamp &p, int year, const std::string &zone);

/// A time stamp inside a message, after a label that says it is the time of the line:
/// `[after dataloaders are built] datetime: 2021-05-27 21:42:48`, `timestamp=2024-05-01T12:00:00`.
/// Only `datetime`, `timestamp`, `time` and `date` labels followed by ':' or '=' count: a date
/// elsewhere in a message (a checkpoint's name, a log file's) is not when the line was printed.
std::optional<TimeNs> labelledStamp(std::string_view line, const std::string &zone);

/// The step a training loop's line is about: `step 120`, `Step 10/1000`, `iter 5`, `iteration:
/// 7`, `global_step=3`, `(after 10 iterations)`; first = the number (-1 if none), second = the
/// planned total printed as `N/TOTAL` (-1 if none).
std::pair<std::int64_t, std::int64_t> stepNumber(std::string_view line);

/// `host:pid:tid [dev] NCCL INFO msg`, `... [dev] file:line (func) NCCL WARN msg`, `NCCL version ...`.
struct NcclHeader {
    std::string_view host;
    std::int64_t pid = 0;
    std::int64_t tid = 0;
    std::int32_t dev = -1;
    char level = 'I';          ///< I (INFO), W (WARN), T (TRACE), C (CALL), V (bare version line)
    std::string_view message;  ///< what follows "NCCL LEVEL "
};
std::optional<NcclHeader> ncclHeader(std::string_view line);
/// Offsets (> 0) at which another NCCL header starts inside `line`: concurrent writers spliced it.
std::vector<std::size_t> splicePoints(std::string_view line);

} // namespace rs::logline
