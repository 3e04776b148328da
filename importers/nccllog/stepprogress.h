#pragma once
// The progress a training loop prints per step or iteration, in its own words, turned into Steps
// (Step::fromLog) with a span each on a "training loop (log)" lane, so a job that left only its log
// still has steps to time, compare and place its failure in.
//
// A line qualifies when it has a step number (`iteration 3/ 1000`, `step 120`, `iter 5:`) and a
// per-step duration: a label that says per step (`elapsed time per iteration (ms): 150891.7`,
// `time per step: 1.2 s`, `step_time=830ms`, `iter time 0.9s`) or a bare `time`/`dt` right after the
// step (`iter 100: loss 4.2, time 123.45ms`). The unit comes from the value (`ms`, `s`, `sec`,
// `min`) or from the label (`(ms)`, `[s]`); a duration without any unit is ambiguous and ignored.
// Cumulative times (`elapsed: 3600 s`, `total time`, `eta`) are not per-step durations.
//
// Placement: a timed line ends its step (the line is printed when the step is done); an untimed
// line continues from the step before it, the first one from the last timed record printed before
// it (Megatron's `[before the start of training step] datetime: …`). Loops that log every k-th
// step print an average: the step then covers the k iterations since the previous line. A log with
// no clock at all places its steps back to back from 0 (warned, step-progress-untimed).
//
// Ranks: a line with a launcher prefix belongs to its rank. A line with none in a log of several
// ranks is the job's: synchronous data/model-parallel ranks run the same iterations together, so
// its steps are given to every rank the log names (job-wide, said in the lane name).

#include "sourcebuilder.h"

#include <optional>
#include <set>
#include <string_view>
#include <vector>

namespace rs {

class StepProgress
{
public:
    /// What one line says.
    struct Reading {
        std::int64_t step = -1;      ///< the step or iteration number
        std::int64_t total = -1;     ///< planned steps (`3/ 1000`), -1 if not printed
        TimeNs durationNs = 0;       ///< time of one step as printed (an average when logged every k steps)
    };
    static std::optional<Reading> parse(std::string_view line);

    /// Remembers a reading of record `recordIndex`; its final rank and time are read in finish().
    void add(std::size_t recordIndex, const Reading &reading);
    /// Emits steps and lanes. `ranks` are the ranks the log names (for lines without a rank).
    /// Returns the ranks that received steps.
    std::set<RankId> finish(SourceBuilder &out, const std::set<RankId> &ranks);
    bool empty() const { return m_samples.empty(); }

private:
    struct Sample {
        std::size_t record;
        Reading reading;
    };
    std::vector<Sample> m_samples;
};

} // namespace rs
