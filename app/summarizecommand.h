#pragma once
// `rankscope summarize [--output DIR] [--json] [--threads N] PATH...` (DESIGN.md §3): one summary
// file per input file (Summarizer), written into DIR (created when needed) or beside each input.
// Folders mean every recognised file below them; summaries among the inputs are left alone. Prints
// a line per file (or, --json, one object of schema "rankscope.summarize/1"); errors go to stderr
// as `path: message`. Exit status as the other subcommands: 0 all written, 1 some inputs had
// errors or could not be summarised, 2 usage error or nothing written.

#include <QStringList>

#include <cstdio>

namespace rs {

class SummarizeCommand
{
public:
    static int run(const QStringList &args, std::FILE *out, std::FILE *err);
};

} // namespace rs
