// The inspect subcommand is a contract (DESIGN.md §3): JSON shape, exit codes, error lines.

#include "cli.h"
#include "clirunner.h"
#include "testtrace.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <set>

using nlohmann::json;

namespace {

using Result = rs::test::CliResult;
using rs::test::runCli;
using rs::test::writeFile;

} // namespace

class TestCli : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void commandLineLinksNoWidgets();
    void inspectJsonShape();
    void unknownProcessesAreNamed();
    void compressedOffsetsSayDecompressed();
    void parseSize_data();
    void parseSize();
    void maxDecompressedOption();
    void farAwayTraceIsLeftOutOfTheAxis();
    void exitStatus_data();
    void exitStatus();
    void assignRankOverridesContent();
    void folderExpands();
    void invalidUtf8InMessagesStaysValidJson();
    void realSamples_data();
    void realSamples();
    void versionNamesBuildAndLibraries();
};

void TestCli::inspectJsonShape()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("trace.json"));
    writeFile(path, rs::test::kinetoTrace(3, 8, 2));
    const Result r = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), path});
    QCOMPARE(r.status, 0);
    const json doc = json::parse(r.out);
    QCOMPARE(doc.at("schema").get<std::string>(), std::string("rankscope.inspect/1"));
    QCOMPARE(doc.at("sources").size(), std::size_t(1));
    const json &s = doc["sources"][0];
    QCOMPARE(s.at("path").get<std::string>(), path.toStdString());
    QCOMPARE(s.at("format").get<std::string>(), std::string("pytorch-trace"));
    QCOMPARE(s.at("compression").get<std::string>(), std::string("none"));
    QVERIFY(s.at("ranks") == json::array({3}));
    const json &c = s.at("counts");
    for (const char *key : {"spans", "instants", "memory_events", "counter_samples", "steps", "collectives",
                            "log_lines", "warnings", "memory_summaries", "oom_messages", "gpu_samples",
                            "segments", "trace_entries"})
        QVERIFY2(c.contains(key) && c[key].is_number_integer(), key);
    QCOMPARE(c["spans"].get<int>(), 6);
    QCOMPARE(c["steps"].get<int>(), 2);
    QCOMPARE(c["memory_events"].get<int>(), 2);
    QCOMPARE(c["instants"].get<int>(), 1);
    // Relative ts plus baseTimeNanoseconds: the first span starts 1000 µs after the base.
    const json &range = s.at("time_range_ns");
    QVERIFY(range.is_array());
    QCOMPARE(range[0].get<long long>(), 1700000000000000000LL + 1000000LL);
    QVERIFY(s.at("diagnostics").empty());
    QVERIFY(r.err.empty());
}

void TestCli::exitStatus_data()
{
    QTest::addColumn<QStringList>("files"); // "good", "bad", "missing", "unknown"
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("stderrNeedle");
    QTest::newRow("good") << QStringList{QStringLiteral("good")} << 0 << QString();
    QTest::newRow("missing only") << QStringList{QStringLiteral("missing")} << 2 << QStringLiteral("missing.json: error: cannot open");
    QTest::newRow("unrecognised only") << QStringList{QStringLiteral("unknown")} << 2 << QStringLiteral("unknown.txt:1: error: unrecognised content");
    QTest::newRow("good plus missing") << QStringList{QStringLiteral("good"), QStringLiteral("missing")} << 1 << QStringLiteral("missing.json: error:");
    QTest::newRow("good plus truncated") << QStringList{QStringLiteral("good"), QStringLiteral("bad")} << 1 << QStringLiteral("bad.json");
    QTest::newRow("no paths") << QStringList{} << 2 << QStringLiteral("no input paths");
    // A FIFO would block a reader forever: refused at once, and the good file beside it loads.
    QTest::newRow("good plus fifo") << QStringList{QStringLiteral("good"), QStringLiteral("fifo")} << 1
                                    << QStringLiteral("fifo.json: error: not a regular file (FIFO)");
    QTest::newRow("fifo only") << QStringList{QStringLiteral("fifo")} << 2 << QStringLiteral("not a regular file (FIFO)");
    QTest::newRow("good plus empty folder") << QStringList{QStringLiteral("good"), QStringLiteral("empty")} << 1
                                            << QStringLiteral("empty: error: the folder holds no files");
}

void TestCli::exitStatus()
{
    QFETCH(QStringList, files);
    QFETCH(int, status);
    QFETCH(QString, stderrNeedle);
    QTemporaryDir dir;
    rs::test::writeExitStatusInputs(dir.path(), 1);
    QVERIFY(::mkfifo(dir.filePath(QStringLiteral("fifo.json")).toLocal8Bit().constData(), 0600) == 0);
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("empty")));
    QStringList args{QStringLiteral("inspect")};
    for (const QString &f : files)
        args << dir.filePath(f == QLatin1String("unknown") ? f + QStringLiteral(".txt")
                             : f == QLatin1String("empty") ? f
                                                           : f + QStringLiteral(".json"));
    const Result r = runCli(args);
    QCOMPARE(r.status, status);
    if (!stderrNeedle.isEmpty())
        QVERIFY2(QString::fromStdString(r.err).contains(stderrNeedle), r.err.c_str());
}

void TestCli::assignRankOverridesContent()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("rank-5.json"));
    writeFile(path, rs::test::kinetoTrace(1, 8, 1));
    const Result r = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), QStringLiteral("--assign-rank"),
                             path + QStringLiteral("=6"), path});
    QCOMPARE(r.status, 0);
    const json s = json::parse(r.out)["sources"][0];
    QVERIFY(s["ranks"] == json::array({6}));
    QCOMPARE(s["rank_origin"].get<std::string>(), std::string("user"));
    const Result bad = runCli({QStringLiteral("inspect"), QStringLiteral("--assign-rank"), QStringLiteral("x=y"), path});
    QCOMPARE(bad.status, 2);
}

void TestCli::folderExpands()
{
    QTemporaryDir dir;
    QDir(dir.path()).mkpath(QStringLiteral("sub"));
    writeFile(dir.filePath(QStringLiteral("a.json")), rs::test::kinetoTrace(0, 2, 1));
    writeFile(dir.filePath(QStringLiteral("sub/b.json")), rs::test::kinetoTrace(1, 2, 1));
    const Result r = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), dir.path()});
    QCOMPARE(r.status, 0);
    const json doc = json::parse(r.out);
    QCOMPARE(doc["sources"].size(), std::size_t(2));
    QVERIFY(doc["sources"][1]["ranks"] == json::array({1}));
}

void TestCli::invalidUtf8InMessagesStaysValidJson()
{
    // Diagnostics quote the bad input; a broken file's bytes must not break the JSON (this used to
    // abort in nlohmann's dump).
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("smi.csv"));
    writeFile(path, "timestamp, memory.used [MiB]\n2024/01/31 12:00:00.000, 5 MiB\n\x84\xff bad, 7 MiB\n");
    const Result r = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), path});
    QCOMPARE(r.status, 1);
    const json doc = json::parse(r.out);
    QCOMPARE(doc["sources"][0]["diagnostics"].size(), std::size_t(1));
    QVERIFY(doc["sources"][0]["diagnostics"][0]["message"].get<std::string>().find("bad") != std::string::npos);
}

void TestCli::realSamples_data()
{
    QTest::addColumn<QString>("relPath");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<QString>("compression");
    // Every real sample: the format and ranks inspect must report (counts are checked against an
    // independent reading in the importer tests).
    const QString trace = QStringLiteral("pytorch-trace");
    for (int r = 0; r < 8; ++r) {
        static const char *stamps[] = {"1694128201545", "1694128201556", "1694128201554", "1694128201557",
                                       "1694128201547", "1694128201549", "1694128201553", "1694128201553"};
        QTest::addRow("dlrm worker%d", r) << QStringLiteral("profiler/param_dlrm_8rank/worker%1_step_12.%2.pt.trace.json").arg(r).arg(QLatin1String(stamps[r]))
                                          << trace << QList<int>{r} << QStringLiteral("none");
    }
    QTest::newRow("hta sampled rank0") << QStringLiteral("profiler/hta_sampled_2rank/sampled_rank-0.json.gz") << trace << QList<int>{0} << QStringLiteral("gzip");
    QTest::newRow("resnet50 old schema") << QStringLiteral("profiler/kineto_tb_resnet50_mem/worker0.1623143089861.pt.trace.json.gz") << trace << QList<int>{0} << QStringLiteral("gzip");
    QTest::newRow("hta v100") << QStringLiteral("profiler/hta_v100_rank0/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz") << trace << QList<int>{0} << QStringLiteral("gzip");
    QTest::newRow("bert h100") << QStringLiteral("profiler/tracelens_h100_bert_mem/gaunernst_bert-small-uncased__1016001.json.gz") << trace << QList<int>{0} << QStringLiteral("gzip");
    QTest::newRow("rocm sglang") << QStringLiteral("profiler/tracelens_rocm_sglang_mem/bs_32_rank0.json.gz") << trace << QList<int>{0} << QStringLiteral("gzip");
    QTest::newRow("memory_summary 1.x") << QStringLiteral("memory_summary/fairseq_roberta_oom_58_ooms.txt") << QStringLiteral("memory-summary") << QList<int>{0} << QStringLiteral("none");
    QTest::newRow("memory_summary 2.x") << QStringLiteral("memory_summary/instructlab_l4_pytorch2x_after_model_load.txt") << QStringLiteral("memory-summary") << QList<int>{0} << QStringLiteral("none");
    QTest::newRow("nvidia-smi 1 gpu") << QStringLiteral("nvidia_smi/balance-budget_gpu_usage.csv") << QStringLiteral("nvidia-smi") << QList<int>{0} << QStringLiteral("none");
    QTest::newRow("nvidia-smi 8 gpus") << QStringLiteral("nvidia_smi/gpu_glasses_nvidia_smi_8gpu.csv") << QStringLiteral("nvidia-smi") << QList<int>{0, 1, 2, 3, 4, 5, 6, 7} << QStringLiteral("none");
    QTest::newRow("nccl-tests") << QStringLiteral("nccl/nccl-tests_all_reduce_2gpu_nccl2.27.7.log") << QStringLiteral("nccl-log") << QList<int>{0, 1} << QStringLiteral("none");
    QTest::newRow("nccl interleaved") << QStringLiteral("nccl/raddet_ddp_2rank_nccl_debug.log") << QStringLiteral("nccl-log") << QList<int>{0, 1} << QStringLiteral("none");
    QTest::newRow("snapshot ftcourse") << QStringLiteral("snapshot/ftcourse/memory_snapshot.pickle") << QStringLiteral("memory-snapshot") << QList<int>{0} << QStringLiteral("none");
    QTest::newRow("snapshot cs336") << QStringLiteral("snapshot/cs336_magma27/memory_snapshot.pickle") << QStringLiteral("memory-snapshot") << QList<int>{0} << QStringLiteral("none");
    QTest::newRow("snapshot no history") << QStringLiteral("snapshot/select_n_no_history/snapshot.pickle") << QStringLiteral("memory-snapshot") << QList<int>{0} << QStringLiteral("none");
    QTest::newRow("memory timeline") << QStringLiteral("snapshot/hta_memory_timeline/memory_timeline.raw.gz") << QStringLiteral("memory-timeline") << QList<int>{0} << QStringLiteral("gzip");
    QTest::newRow("hta sampled rank1") << QStringLiteral("profiler/hta_sampled_2rank/sampled_rank-1.json.gz") << trace << QList<int>{1} << QStringLiteral("gzip");
    QTest::newRow("cpu-only gloo") << QStringLiteral("profiler/hta_cpu_only_gloo/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz") << trace << QList<int>{34} << QStringLiteral("gzip");
}

void TestCli::realSamples()
{
    QFETCH(QString, relPath);
    QFETCH(QString, format);
    QFETCH(QList<int>, ranks);
    QFETCH(QString, compression);
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/") + relPath;
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    const Result r = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), path});
    QCOMPARE(r.status, 0);
    const json s = json::parse(r.out)["sources"][0];
    QCOMPARE(QString::fromStdString(s["format"].get<std::string>()), format);
    QCOMPARE(QString::fromStdString(s["compression"].get<std::string>()), compression);
    QCOMPARE(s["ranks"].get<std::vector<int>>(), std::vector<int>(ranks.begin(), ranks.end()));
    for (const auto &d : s["diagnostics"])
        QVERIFY2(d["severity"] != "error", d.dump().c_str());
}

// NCCL lines of two hosts with no rank anywhere are two processes, each shown as "rank unknown".
void TestCli::unknownProcessesAreNamed()
{
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("nccl.log"));
    writeFile(log, "hostA:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
                   "hostB:200:200 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n"
                   "hostA:100:100 [0] NCCL INFO NET/Socket : Using [0]eth0\n");
    const rs::test::CliResult r = rs::test::runCli({QStringLiteral("analyze"), log});
    QCOMPARE(r.status, 0);
    QVERIFY2(r.out.find("(rank unknown: process hostA:100)") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("(rank unknown: process hostB:200)") != std::string::npos, r.out.c_str());
    // The JSON names the process of each placeholder rank, and null for a rank the log named.
    const rs::test::CliResult j = rs::test::runCli({QStringLiteral("analyze"), QStringLiteral("--json"), log});
    QCOMPARE(j.status, 0);
    const auto doc = nlohmann::json::parse(j.out);
    std::set<std::string> processes;
    for (const auto &rank : doc["ranks"])
        if (!rank["unknown_process"].is_null())
            processes.insert(rank["unknown_process"].get<std::string>());
    QCOMPARE(processes, (std::set<std::string>{"hostA:100", "hostB:200"}));
    writeFile(log, "[rank0]:hostA:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n");
    const auto named = nlohmann::json::parse(rs::test::runCli({QStringLiteral("analyze"), QStringLiteral("--json"), log}).out);
    QVERIFY(named["ranks"][0]["unknown_process"].is_null());
}

// An offset inside a .gz counts decompressed bytes; the message says so (a plain file: bytes).
void TestCli::compressedOffsetsSayDecompressed()
{
    QTemporaryDir dir;
    const QString plain = dir.filePath(QStringLiteral("trace.json"));
    writeFile(plain, rs::test::kinetoTrace(0, 400, 4));
    // A gzip member (Debian's essential gzip) cut in half: the stream ends inside its compressed data.
    QByteArray packed;
    {
        const QString gz = dir.filePath(QStringLiteral("whole.json.gz"));
        QVERIFY(std::system(("gzip -c " + plain.toStdString() + " > " + gz.toStdString()).c_str()) == 0);
        QFile f(gz);
        QVERIFY(f.open(QIODevice::ReadOnly));
        packed = f.readAll();
    }
    const QString cut = dir.filePath(QStringLiteral("cut.json.gz"));
    writeFile(cut, packed.left(packed.size() / 2).toStdString());
    const rs::test::CliResult r = rs::test::runCli({QStringLiteral("inspect"), cut});
    QVERIFY2(r.err.find("(at decompressed offset ") != std::string::npos, r.err.c_str());
    QVERIFY2(r.err.find("at byte") == std::string::npos, r.err.c_str());
}

void TestCli::parseSize_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes"); // -1: rejected
    QTest::newRow("G") << QStringLiteral("64G") << (qint64(64) << 30);
    QTest::newRow("GiB") << QStringLiteral("2GiB") << (qint64(2) << 30);
    QTest::newRow("GB") << QStringLiteral("3gb") << (qint64(3) << 30);
    QTest::newRow("M") << QStringLiteral("16M") << (qint64(16) << 20);
    QTest::newRow("T") << QStringLiteral("1T") << (qint64(1) << 40);
    QTest::newRow("plain bytes") << QStringLiteral("2097152") << qint64(2097152);
    QTest::newRow("below 1 MiB") << QStringLiteral("512K") << qint64(-1);
    QTest::newRow("zero") << QStringLiteral("0") << qint64(-1);
    QTest::newRow("negative") << QStringLiteral("-5G") << qint64(-1);
    QTest::newRow("2^50 and more") << QStringLiteral("1024T") << qint64(-1);
    QTest::newRow("overflowing") << QStringLiteral("99999999999999999999G") << qint64(-1);
    QTest::newRow("unknown unit") << QStringLiteral("5X") << qint64(-1);
    QTest::newRow("empty") << QString() << qint64(-1);
}

void TestCli::parseSize()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    const auto got = rs::Cli::parseSize(text);
    QCOMPARE(got.has_value(), bytes >= 0);
    if (got)
        QCOMPARE(qint64(*got), bytes);
}

// The per-file decompression ceiling is a setting: a 3 MiB gzip bomb stops at --max-decompressed
// 1M with the limit's code and decompressed offset, and the good file beside it loads.
void TestCli::maxDecompressedOption()
{
    QTemporaryDir dir;
    const QString good = dir.filePath(QStringLiteral("good.json"));
    writeFile(good, rs::test::kinetoTrace(0, 1, 2));
    const QString plain = dir.filePath(QStringLiteral("bomb.json"));
    std::string bombText = rs::test::kinetoTrace(1, 2, 1);
    bombText.insert(bombText.find("\"traceEvents\": [") + 16, std::string(3 << 20, ' ')); // whitespace between events
    writeFile(plain, bombText);
    QVERIFY(std::system(("gzip -f " + plain.toStdString()).c_str()) == 0);
    const QString bomb = plain + QStringLiteral(".gz");
    const Result limited = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), QStringLiteral("--max-decompressed"),
                                   QStringLiteral("1M"), good, bomb});
    QCOMPARE(limited.status, int(rs::Cli::SourceErrors));
    QVERIFY2(limited.err.find("decompressed-limit") != std::string::npos, limited.err.c_str());
    QVERIFY2(limited.err.find("decompressed offset 1048576") != std::string::npos, limited.err.c_str());
    const json doc = json::parse(limited.out);
    QCOMPARE(doc["sources"].size(), std::size_t(2));
    QCOMPARE(doc["sources"][0]["counts"]["steps"].get<int>(), 2);
    // Without the option the default (64 GiB) lets the same file through.
    const Result unlimited = runCli({QStringLiteral("inspect"), bomb});
    QVERIFY2(unlimited.err.find("decompressed-limit") == std::string::npos, unlimited.err.c_str());
    QCOMPARE(runCli({QStringLiteral("inspect"), QStringLiteral("--max-decompressed=12Q"), good}).status, int(rs::Cli::Usage));
}

// A trace decades away from the others (a broken clock) is left out of the views' axis: analyze
// names it in left_out, with the distance, and the good ranks' findings are unchanged.
void TestCli::farAwayTraceIsLeftOutOfTheAxis()
{
    QTemporaryDir dir;
    for (int r = 0; r < 3; ++r)
        writeFile(dir.filePath(QStringLiteral("rank%1.json").arg(r)), rs::test::kinetoTrace(r, 4, 3));
    const long long twentyYears = 20LL * 365 * 86400 * 1000000000LL;
    writeFile(dir.filePath(QStringLiteral("rank3.json")), rs::test::kinetoTrace(3, 4, 3, 1700000000000000000LL + twentyYears));
    const Result r = runCli({QStringLiteral("analyze"), QStringLiteral("--json"), dir.path()});
    QCOMPARE(r.status, int(rs::Cli::Ok));
    const json doc = json::parse(r.out);
    QVERIFY(doc.contains("left_out"));
    QCOMPARE(doc["left_out"].size(), std::size_t(1));
    const json &o = doc["left_out"][0];
    QVERIFY2(o["source"].get<std::string>().find("rank3.json") != std::string::npos, o.dump().c_str());
    QCOMPARE(o["rank"].get<int>(), 3);
    QCOMPARE(o["code"].get<std::string>(), std::string("time-outside-incident"));
    QVERIFY2(o["message"].get<std::string>().find("20 years after") != std::string::npos, o.dump().c_str());
    // The text form lists it too.
    const Result text = runCli({QStringLiteral("analyze"), dir.path()});
    QVERIFY2(text.out.find("Left out of the time axis") != std::string::npos, text.out.c_str());
}

// The command line (rankscope_app, which this test links alone) exports figures through the render
// library: neither Qt Widgets nor QCustomPlot may be loaded into it (DESIGN.md §1).
void TestCli::commandLineLinksNoWidgets()
{
    QFile maps(QStringLiteral("/proc/self/maps"));
    if (!maps.open(QIODevice::ReadOnly))
        QSKIP("no /proc/self/maps on this system");
    const QByteArray loaded = maps.readAll();
    QVERIFY(loaded.contains("libQt6Core"));
    QVERIFY(loaded.contains("libQt6Gui"));
    QVERIFY2(!loaded.contains("libQt6Widgets"), "the CLI library pulls in Qt Widgets");
    QVERIFY2(!loaded.contains("libqcustomplot"), "the CLI library pulls in QCustomPlot");
}

void TestCli::versionNamesBuildAndLibraries()
{
    const Result r = runCli({QStringLiteral("--version")});
    QCOMPARE(r.status, 0);
    const QString out = QString::fromStdString(r.out);
    QVERIFY2(out.startsWith(QStringLiteral("rankscope " RANKSCOPE_VERSION)), r.out.c_str());
    // Each library with a version number, as loaded (Qt, zstd, SQLite) or built with.
    for (const char *lib : {"Qt 6.", "QCustomPlot 2.", "zstd 1.", "nlohmann_json 3.", "SQLite 3."})
        QVERIFY2(out.contains(QStringLiteral("\n  ") + QLatin1String(lib)), r.out.c_str());
    // Built from a git checkout: the commit it was built from is named, and it is this checkout's
    // HEAD or one before it (the tree may have moved on since the build).
    QProcess git;
    git.start(QStringLiteral("git"), {QStringLiteral("-C"), QStringLiteral(RANKSCOPE_SOURCE_DIR), QStringLiteral("rev-parse"), QStringLiteral("HEAD")});
    if (!git.waitForFinished(10000) || git.exitStatus() != QProcess::NormalExit || git.exitCode() != 0)
        return; // not a checkout, or no git: nothing to name
    static const QRegularExpression described(QStringLiteral("\\(git ([0-9a-f]{7,40})(-dirty)?\\)"));
    const QRegularExpressionMatch m = described.match(out);
    QVERIFY2(m.hasMatch(), r.out.c_str());
    QProcess ancestor;
    ancestor.start(QStringLiteral("git"), {QStringLiteral("-C"), QStringLiteral(RANKSCOPE_SOURCE_DIR), QStringLiteral("merge-base"),
                                           QStringLiteral("--is-ancestor"), m.captured(1), QStringLiteral("HEAD")});
    QVERIFY(ancestor.waitForFinished(10000));
    QVERIFY2(ancestor.exitCode() == 0, qPrintable(m.captured(1) + QStringLiteral(" is not HEAD or before it")));
}

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
