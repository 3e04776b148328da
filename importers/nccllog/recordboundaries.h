#pragma once
// Where the records of a text log begin and end when the physical lines do not say so
// (FORMATS.md §7.3): records that start after other text on a line (several processes writing to
// one stream, a record glued onto a progress bar), and records that a terminal or collector
// hard-wrapped inside a token. Stateless; LogParser::feed() uses it on lines whose wrappers
// LineWrapper has already peeled, and LogImporter::sniff() to judge a line.

#include <string_view>
#include <vector>

namespace rs {

class RecordBoundaries
{
public:
    /// True when `text` starts with a record this reader knows: an NCCL line (with or without
    /// NCCL's own time stamp), a c10 or glog prefix, a Python `logging` line of torch, a
    /// traceback, the ChildFailedError banner, an allocator OOM or memory_summary rule, or a
    /// launcher line (launcherLine()).
    static bool startsRecord(std::string_view text);
    /// PyTorch's own records: c10 (new and old) and glog prefixes, `LEVEL:torch...:` lines.
    static bool pytorchRecord(std::string_view text);
    /// Lines written by the scheduler or MPI launcher around the job: `slurmstepd: `, `srun: `,
    /// `mpirun`/`mpiexec` messages, `<host>: rank N died from signal S`.
    static bool launcherLine(std::string_view text);

    /// Offsets (> 0, ascending) at which another record starts inside `line`: NCCL headers
    /// (logline::splicePoints), c10 headers (new `[E0909 09:55:35.2 file.cpp:1]` and old
    /// `[E file.cpp:737]`, with the `[rankN]:` in front of them when there is one), `[rankN]:` /
    /// `[defaultN]:` tags, glog agent lines and `LEVEL:torch...:` lines.
    static std::vector<std::size_t> splicePoints(std::string_view line);

    /// True when `text` holds the start of a record grammar that a wrap can cut (a watchdog
    /// timeout, an NCCL Init/Abort line, a COLL call, a c10 header) but not the end of it.
    static bool looksCut(std::string_view text);
    /// True when the last record of `first` followed directly by `second` matches a record
    /// grammar that neither matches alone (and `second` does not start a record itself).
    static bool completes(std::string_view first, std::string_view second);
    /// True when `second` may be a middle piece of a record that `first` (already `linesSoFar`
    /// physical lines) started: the grammar allows that many lines (an OOM message up to 8), the
    /// record is not complete yet, and `second` is not blank and starts no record. Only a later
    /// completes() makes the join stand; a reader holds such lines until then.
    static bool mayContinue(std::string_view first, std::string_view second, int linesSoFar);
};

} // namespace rs
