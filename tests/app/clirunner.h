#pragma once
// Runs a subcommand in-process with its stdout and stderr captured, for the CLI contract tests.

#include "cli.h"

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

} // namespace rs::test
