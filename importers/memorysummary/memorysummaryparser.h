#pragma once
// Line-driven parser for torch.cuda.memory_summary() tables and CUDA OOM messages.
//
// Source records → model:
//   * a table (`|===|` line, "PyTorch CUDA memory summary, device ID n" header, rows, closing `|===|`)
//     → one MemorySummary with every row and pool sub-row in exact bytes (or counts);
//   * "CUDA out of memory. Tried to allocate ..." in every wording PyTorch used: the 1.0–1.3
//     "(GPU n; X total capacity; A already allocated; F free; C cached)", the 1.4–2.0
//     "... R reserved in total by PyTorch)" (with or without "X allowed;", the "(malloc at ...)"
//     frame and the max_split_size_mb hint), the 2.1+ "GPU n has a total capacity of ..." (2.1
//     spells it "capacty"), HIP/XPU builds, and the low-level "CUDA error: out of memory"; also a
//     bare "...Error: CUDA out of memory." exception line → one OomEvent; a table that follows an
//     OOM of the same rank belongs to it.
// It is fed one line at a time, so the job-log importer can reuse it for lines of many ranks
// (state is kept per rank).
//
// Pasted shapes it copes with: any prefix in front of the table's `|` frame (`# `, `> `, a log
// prefix; the opening rule's own prefix is stripped from every line of the table), a whole table
// on one line with literal `\n` between rows (a Python repr or JSON string), rows glued to each
// other or the title glued to the rule (`|====||  PyTorch CUDA memory summary ...|`), blank lines
// inside a table.
//
// Caveats it knows: values are integer-truncated by PyTorch, so bytes are lower bounds of the
// truth (a "14935 MB" cell means at least 14935 MiB); PyTorch 1.x prints MB/KB/GB with 1024 steps
// and no TB, so totals like "767743 GB" occur; sub-rows share the parent's unit; abbreviated tables
// have no sub-rows; Requested/Oversize rows may be missing. A table cut off (the input ends, a line
// that is not part of it comes, a row is cut mid-way, or a new table starts before the closing
// rule) keeps the complete rows read before the cut, is marked `partial`, reported as
// "summary-cut-off" and not counted in counts.memorySummaries.

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
    /// Closes tables left open at the end of the input.
    void finish();

    /// Parses an OOM message out of `line`; nullopt when the line holds none.
    static std::optional<OomEvent> parseOom(std::string_view line);
    /// "62.00 MiB", "0 bytes", "1.17 GiB" → bytes; -1 when unreadable.
    static std::int64_t parseSize(std::string_view text);
    /// A table cell: "14935 MB", " 307200 KiB", "1234 K", "728" → value; nullopt when unreadable.
    static std::optional<std::int64_t> parseCell(std::string_view cell, bool &isBytes);

private:
    struct TableState {
        // Closing: a `|===|` came after rows; it ends the table unless a title follows, in which
        // case the table was cut and that rule opened the next one.
        enum class Phase { None, SawRule, Header, Rows, Closing } phase = Phase::None;
        MemorySummary table;
        std::string lastMetric;
        std::string prefix;            // text before the opening rule's `|`
        std::string rulePrefix;        // prefix of the last rule seen (opening or closing)
        std::int32_t lastOom = -1;     // OOM of this rank not yet followed by a table
        std::int64_t ruleLine = 0;     // line of the last rule seen
        TimeNs ruleTime = kNoTime;
        std::int64_t lastLine = 0;     // last line that belonged to the table
        std::int64_t shortRow = 0;     // line of a row too short to read, judged by what follows
    };

    void piece(TableState &st, std::string_view text, std::int64_t lineNo, RankId rank, TimeNs time);
    void tableLine(TableState &st, std::string_view text, std::int64_t lineNo, RankId rank, TimeNs time);
    void begin(TableState &st, std::string_view body, RankId rank, TimeNs time);
    void row(TableState &st, std::string_view body, std::int64_t lineNo);
    void close(TableState &st);
    void flushShortRow(TableState &st);
    void cutOff(TableState &st, std::int64_t lineNo, const char *why);

    SourceBuilder &m_out;
    std::map<RankId, TableState> m_states;
};

} // namespace rs
