#pragma once
// Line-driven parser for torch.cuda.memory_summary() tables and CUDA OOM messages.
//
// Source records → model:
//   * a table (`|===|` line, "PyTorch CUDA memory summary, device ID n" header, rows, closing `|===|`)
//     → one MemorySummary with every row and pool sub-row in exact bytes (or counts);
//   * "CUDA out of memory. Tried to allocate ..." (old "(GPU n; X total capacity; ...)" and new
//     "GPU n has a total capacity of ..." forms) and the low-level "CUDA error: out of memory"
//     → one OomEvent; a table that follows an OOM of the same rank belongs to it.
// It is fed one line at a time, so the job-log importer can reuse it for lines of many ranks
// (state is kept per rank).
//
// Caveats it knows: values are integer-truncated by PyTorch, so bytes are lower bounds of the
// truth (a "14935 MB" cell means at least 14935 MiB); PyTorch 1.x prints MB/KB/GB with 1024 steps;
// sub-rows share the parent's unit; abbreviated tables have no sub-rows; Requested/Oversize rows
// may be missing. A table cut off by the end of the input is reported and not counted.

#include "sourcebuilder.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rs {

class MemorySummaryParser
{
public:
    explicit MemorySummaryParser(SourceBuilder &out) : m_out(out) {}

    /// Feeds one line (without its newline). `rank` is kNoRank for single-rank inputs.
    void feed(std::string_view line, std::int64_t lineNo, RankId rank = kNoRank, TimeNs time = kNoTime);
    /// Reports tables left open at the end of the input.
    void finish();

    /// Parses an OOM message out of `line`; nullopt when the line holds none.
    static std::optional<OomEvent> parseOom(std::string_view line);
    /// "62.00 MiB", "0 bytes", "1.17 GiB" → bytes; -1 when unreadable.
    static std::int64_t parseSize(std::string_view text);
    /// A table cell: "14935 MB", " 307200 KiB", "1234 K", "728" → value; nullopt when unreadable.
    static std::optional<std::int64_t> parseCell(std::string_view cell, bool &isBytes);

private:
    struct TableState {
        enum class Phase { None, SawRule, Header, Rows } phase = Phase::None;
        MemorySummary table;
        std::string lastMetric;
        std::int32_t lastOom = -1;     // OOM of this rank not yet followed by a table
        std::int64_t ruleLine = 0;
        TimeNs ruleTime = kNoTime;
    };

    void row(TableState &st, std::string_view body, std::int64_t lineNo);
    void close(TableState &st);

    SourceBuilder &m_out;
    std::map<RankId, TableState> m_states;
};

} // namespace rs
