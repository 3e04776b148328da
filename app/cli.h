#pragma once
// The command-line subcommands of DESIGN.md §3 (a contract: scripts and tests depend on it).
// Each runs without a display and returns the process exit status.

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

private:
    static int inspect(const QStringList &args, std::FILE *out, std::FILE *err);
    static int analyze(const QStringList &args, std::FILE *out, std::FILE *err);
};

} // namespace rs
