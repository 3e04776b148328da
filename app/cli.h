#pragma once
// The command-line subcommands of DESIGN.md §3 (a contract: scripts and tests depend on it).
// Each runs without a display and returns the process exit status.

#include "session.h"
#include "sessiondocument.h"

#include <QStringList>

#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
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
    /// "--max-decompressed" values: bytes with an optional K, M, G or T suffix (powers of 1024),
    /// at least 1 MiB and below 2^50; nullopt otherwise.
    static std::optional<std::int64_t> parseSize(const QString &value);
    /// The usage text.
    static QString usage();
    /// Whether a load uses the import cache: not with --no-cache, not when RANKSCOPE_NO_CACHE is set.
    static bool cacheEnabled(bool noCacheOption);

    /// What the shared options (--assign-rank, --clock-offset, --time-zone) and the paths read.
    /// One path may be a saved `.rankscope` session file: it stands for its sources, loaded with
    /// its rank choices, and brings its time zone and clock offsets (the command line's win).
    struct Inputs {
        SessionPtr session;                      ///< every source read (partial sources included)
        std::map<RankId, TimeNs> clockOffsets;   ///< --clock-offset overrides, then the session file's
        std::string timeZone;                    ///< --time-zone, else the session file's, or "" (local)
        bool sourceErrors = false;               ///< some source (or the session file) had errors, already printed
        std::optional<SessionDocument> document; ///< the session file among the paths, when one was given and read
        QString documentPath;                    ///< that file's path as given ("" without one)
    };
    /// Parses the shared options and paths of `args` and reads the inputs, printing skipped files
    /// and source errors to `err` as path:line: message (a session file's unreadable document and
    /// its missing, changed or moved sources as path: message). Ok, or Usage when the arguments
    /// are malformed or nothing usable was read (the reason printed as "rankscope COMMAND: ...").
    static int loadInputs(const char *command, const QStringList &args, std::FILE *err, Inputs &inputs);

private:
    static int inspect(const QStringList &args, std::FILE *out, std::FILE *err);
    static int analyze(const QStringList &args, std::FILE *out, std::FILE *err);
};

} // namespace rs
