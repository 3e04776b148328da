#pragma once
// Peels the wrappers that terminals, launchers and log collectors put in front of a record on one
// physical line (FORMATS.md §7.2): ANSI colour and control sequences (also their remains when the
// ESC byte was lost in a copy), launcher rank tags (`[rank3]:`, `[default3]:`, `[1,3]<stdout>:`,
// srun's `3: `), process tags (`(RayWorkerWrapper pid=4009) `, `name.nolog [stderr] `,
// docker-compose's `svc_1  | `), collector time stamps (`2024-05-01T12:00:00.123456789Z `) and the
// `# ` / `> ` of a log pasted as comments or a quote.
//
// Wrappers are recognised by shape, not by a list of names. Shapes that cannot be mistaken for
// prose (ANSI, `[rankN]:`, RFC 3339 stamps) are always peeled. The others are peeled only when
// what follows them is a known record (the caller's recogniser says so), or when the same shape is
// established in this file: it recurs and either was seen in front of a record or covers most lines.
// learn() judges that over the head of the input before the first line is peeled; peel() keeps
// the statistics up to date after it.
//
// Used by the log importer; the memory_summary and nvidia-smi importers can use it the same way.

#include "records.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rs {

/// The wrapper shapes peel() knows, as bits of PeeledLine::shapes.
enum WrapperShape : std::uint32_t {
    WrapAnsi = 1u << 0,       ///< ESC sequences, or `[36m` / `[0m` whose ESC was lost
    WrapRankTag = 1u << 1,    ///< `[rank3]:`, `[default3]:`, `[3]:`, `[1,3]<stdout>:`
    WrapRankLabel = 1u << 2,  ///< srun's `3: ` (optionally padded), `rank3: `, `[rank3] `, `[3] `
    WrapStamp = 1u << 3,      ///< an ISO 8601 / RFC 3339 date-`T`-time stamp and its space
    WrapParenTag = 1u << 4,   ///< `(RayWorkerWrapper pid=4009) `, `(pid=4009, ip=10.0.0.1) `
    WrapStreamTag = 1u << 5,  ///< `name.nolog [stderr] `: a token and a bracketed stream name
    WrapPipeTag = 1u << 6,    ///< docker-compose's `svc_1  | `
    WrapBracketTag = 1u << 7, ///< any other one-word `[tag] ` / `[tag]: ` (not a level word)
    WrapComment = 1u << 8,    ///< `# ` or `> ` of a pasted log
};

/// One physical line with its wrappers peeled.
struct PeeledLine {
    /// The record: the line after its leading wrappers, with ANSI sequences removed anywhere in
    /// it. Points into the original line, or into the LineWrapper when sequences were removed;
    /// valid until the next peel() on the same LineWrapper.
    std::string_view text;
    /// The rank a wrapper named (the one closest to the record when several do); kNoRank if none.
    RankId rank = kNoRank;
    /// The time a stamp wrapper named, ns since the epoch: UTC for `Z` / `+hh:mm` stamps, local
    /// time in the LineWrapper's zone for stamps without an offset. kNoTime if none.
    TimeNs time = kNoTime;
    /// Bytes of the original line in front of `text` (wrappers and the sequences among them).
    std::size_t peeledBytes = 0;
    /// The process or container a tag named ("RayWorkerWrapper pid=4009", "svc_1",
    /// "name.nolog"); empty if none. Same lifetime as `text`.
    std::string_view origin;
    /// WrapperShape bits of what was peeled (WrapAnsi also when sequences were removed mid-line).
    std::uint32_t shapes = 0;
    /// A launcher tag was peeled whose number is no rank (`[rank999999999]:`, 2^20 or more): its
    /// records have no rank (`rank` stays kNoRank) and the caller reports the line.
    bool implausibleRank = false;
};

class LineWrapper
{
public:
    /// Tells whether a text (a line with its wrappers peeled) starts with a known record.
    using Recogniser = std::function<bool(std::string_view)>;

    /// `zone`: IANA zone for stamps without an offset (empty = the system's zone).
    explicit LineWrapper(Recogniser isRecord = {}, std::string zone = {});

    /// Learns which weak shapes this file uses from the complete lines of `head` (linear in its
    /// size). Call once, before the first peel(), with the start of the same input.
    void learn(std::string_view head);
    /// Peels one physical line (without its newline).
    PeeledLine peel(std::string_view line);

    /// A launcher rank tag or label at the very start of `line` (no ANSI, no other wrapper).
    struct RankTag {
        RankId rank = kNoRank;
        std::size_t length = 0; ///< bytes to skip, including one following space
        bool weak = false;      ///< a label (`3: `, `rank3: `, `[3] `) that prose could also write
        bool implausible = false; ///< `[rankN]:` / `[defaultN]:` with N of 7 to 19 digits: a tag, but no rank
    };
    static std::optional<RankTag> rankTag(std::string_view line);

    /// Length of the ANSI sequence (or its ESC-less remains) at the start of `s`; 0 if none.
    /// `front`: also accept ESC-less cursor/erase sequences (`[2K`, `[H`), which are plausible
    /// only at the start of a line.
    static std::size_t ansiLength(std::string_view s, bool front);

private:
    struct Shape;
    std::optional<Shape> shapeAt(std::string_view s) const;
    std::string_view stripAnsi(std::string_view line, bool &changed);
    std::size_t originalOffset(std::string_view original, std::size_t cleanOffset) const;
    std::size_t chain(std::string_view clean, Shape *out, std::size_t &restAt) const;
    void observe(const Shape *shapes, std::size_t n, bool record);
    bool established(const std::string &key) const;

    Recogniser m_isRecord;
    std::string m_zone;
    std::string m_clean; // the current line without ANSI sequences, when it had any

    struct Stats {
        std::int64_t seen = 0;      // lines that start with this shape
        std::int64_t confirmed = 0; // ... followed by a known record
    };
    std::map<std::string, Stats> m_stats;
    std::int64_t m_lines = 0;         // lines observed
    std::int64_t m_learnedLines = 0;  // lines of the head that learn() already observed
    std::int64_t m_peeled = 0;        // lines peel() has seen
};

} // namespace rs
