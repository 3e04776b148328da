#pragma once
// Turns one imported file into what `rankscope summarize` writes (DESIGN.md §3): the answers the
// analysis needs from the detail (SummaryFacts), and the file's model thinned to the rest.
//
// What stays whole: the source's description and diagnostics, steps, collectives, OOMs, memory
// tables, log, allocator, GPU and flight-recorder evidence, flagged instants (OOM records).
// What is thinned: spans (only steps and collective calls and kernels stay: the analysis reads no
// other span once the facts are kept) and long counters: allocated memory to its value changes when
// those fit, otherwise to the first, last, lowest and highest sample of each time bucket (buckets
// split at step edges, so per-step minima stay exact); every other counter to its value changes,
// since the analysis reads them at arbitrary moments. Counters of at most
// `Limits::counterSamples` samples and every track's order and id are untouched, so a step's or
// collective's track stays valid.

#include "sourcebuilder.h"

#include <cstddef>
#include <string_view>
#include <vector>

namespace rs {

class SourceSummarizer
{
public:
    struct Limits {
        std::size_t counterSamples = 1u << 16; ///< most samples a thinned counter keeps (about)
        std::size_t instants = 4096;           ///< a track with more keeps only its flagged instants
    };

    /// The facts of every rank fed by `session`'s sources, computed on their full detail. The
    /// session holds the one file being summarised.
    static SummaryFacts facts(const Session &session);

    /// Thins `source` (the same file's finished builder) and counts what went into `facts`.
    static void thin(SourceBuilder &source, SummaryFacts &facts, const Limits &limits);
    static void thin(SourceBuilder &source, SummaryFacts &facts) { thin(source, facts, Limits{}); }

    /// True for the spans a summary keeps: steps, collective kernels and c10d calls.
    static bool keepsSpan(std::string_view name, std::uint16_t flags);

    /// `series` with at most about `maxSamples` samples: only value changes when they fit (the
    /// value at any time is unchanged), else first/last/min/max per bucket. `edges` (ascending)
    /// always separate buckets.
    static CounterSeries thinCounter(const CounterSeries &series, const std::vector<TimeNs> &edges, std::size_t maxSamples);
    /// `series` without the samples that repeat the value before them (first and last kept): the
    /// value at every moment is unchanged.
    static CounterSeries changesOf(const CounterSeries &series);
};

} // namespace rs
