#pragma once
// The command-line subcommands of DESIGN.md §3 (a contract: scripts and tests depend on it).
// Each runs without a display and returns the process exit status.

#include "session.h"

#include <QStringList>

#include <cstdio>
#include <map>
#include <string>

namespace rs {

class Cli
{
public:
    /// Exit statuses of the contract.
    enum Exit { Ok = 0, SourceErrors = 1, Usage = 2 };

    /// True when `args` (without argv[0]) starts with a subcommand this class handles.
    static bool isSubcommand(const QStringList &args);
    /// Runs the subcommand in `args` (without argv[0]); writes to `out` and `err`.
    static int run(const QStringList &args, std::FILE *out = stdout, std::FILE *err = stderr);
    /// Parses one --assign-rank value "PATH=N"; false when malformed.
    static bool parseAssignRank(const QString &value, std::map<std::string, int> &into);
    /// The usage text.
    static QString usage();

    /// What the shared options (--assign-rank, --clock-offset, --time-zone) and the paths read.
    struct Inputs {
        SessionPtr session;                    ///< every source read (partial sources included)
        std::map<RankId, TimeNs> clockOffsets; ///< --clock-offset overrides
        std::string timeZone;                  ///< --time-zone, or "" (local)
        bool sourceErrors = false;             ///< some source had errors (already printed)
    };
    /// Parses the shared options and paths of `args` and reads the inputs, printing skipped files
    /// and source errors to `err` as path:line: message. Ok, or Usage when the arguments are
    /// malformed or nothing usable was read (the reason printed as "rankscope COMMAND: ...").
    static int loadInputs(const char *command, const QStringList &args, std::FILE *err, Inputs &inputs);

private:
    static int inspect(const QStringList &args, std::FILE *out, std::FILE *err);
    static int analyze(const QStringList &args, std::FILE *out, std::FILE *err);
};

} // namespace rs
