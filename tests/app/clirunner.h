#pragma once
// Runs a subcommand in-process with its stdout and stderr captured, for the CLI contract tests.

#include "cli.h"
#include "testtrace.h"

#include <QFile>
#include <QTest>

#include <cstdio>
#include <string>

namespace rs::test {

struct CliResult {
    int status = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(std::FILE *f)
{
    std::rewind(f);
    std::string s;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        s.append(buf, n);
    std::fclose(f);
    return s;
}

inline CliResult runCli(const QStringList &args)
{
    std::FILE *out = std::tmpfile();
    std::FILE *err = std::tmpfile();
    CliResult r;
    r.status = rs::Cli::run(args, out, err);
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
}

inline void writeFile(const QString &path, const std::string &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes.data(), qint64(bytes.size()));
}

/// The three inputs of the exit-status rows: a good trace (rank 0, `goodSteps` steps), a trace cut
/// in half (rank 1) and a text file no importer reads.
inline void writeExitStatusInputs(const QString &dir, int goodSteps)
{
    writeFile(dir + QStringLiteral("/good.json"), rs::test::kinetoTrace(0, 2, goodSteps));
    const std::string full = rs::test::kinetoTrace(1, 2, 3);
    writeFile(dir + QStringLiteral("/bad.json"), full.substr(0, full.size() / 2));
    writeFile(dir + QStringLiteral("/unknown.txt"), "hello, this is not a trace\n");
}

} // namespace rs::test
