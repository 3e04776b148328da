// The import cache: a file read back from it gives the session a fresh import gives (inspect and
// analyze print the same), a damaged or stale entry is never used, the limit evicts, and
// --no-cache / RANKSCOPE_NO_CACHE keep the cache out of a run.

#include "cache/sourcearchive.h"
#include "cache/sourcecache.h"
#include "clirunner.h"
#include "analyzer.h"
#include "importerregistry.h"
#include "sessionloader.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

using namespace rs;
using namespace rs::test;

class TestImportCache : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void readBackEqualsImport_data();
    void readBackEqualsImport();
    void archiveRoundTripIsExact();
    void argsStayInTheCacheUntilViewed();
    void logMessagesLoadByTheBlockWhenRead();
    void damagedEntryIsImportedAgain();
    void changedFileIsImportedAgain();
    void settingsAreInTheKey();
    void limitEvictsLeastRecentlyUsed();
    void noCacheKeepsItOut();
    void notADatabaseIsReplaced();

private:
    QTemporaryDir m_cacheHome;
};

namespace {

SessionLoader::Options cached(const QString &dir)
{
    SessionLoader::Options o;
    o.cache = true;
    o.cacheDir = dir.toStdString();
    o.threads = 2;
    return o;
}

} // namespace

void TestImportCache::init()
{
    // Each test gets an empty cache folder of its own, used by the command line too.
    QVERIFY(m_cacheHome.isValid());
    qputenv("XDG_CACHE_HOME", m_cacheHome.path().toLocal8Bit());
    qunsetenv("RANKSCOPE_NO_CACHE");
    SourceCache(SourceCache::defaultDir()).clear();
}

void TestImportCache::cleanup()
{
    qputenv("RANKSCOPE_NO_CACHE", "1");
}

void TestImportCache::readBackEqualsImport_data()
{
    QTest::addColumn<QString>("path");
    // Every kind of input the project has: the demo incident and each fixture folder, plus the
    // real samples when they are present.
    QTest::newRow("demo") << QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    for (const char *sub : {"kineto", "logs", "memorysummary", "nvidiasmi", "flightrecorder"})
        QTest::newRow(sub) << QStringLiteral(RANKSCOPE_FIXTURES_DIR "/") + QLatin1String(sub);
    const QString samples = QStringLiteral(RANKSCOPE_SAMPLES_DIR);
    if (QDir(samples).exists())
        for (const QString &sub : QDir(samples).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            QTest::newRow(qPrintable(QStringLiteral("samples/") + sub)) << samples + QLatin1Char('/') + sub;
}

void TestImportCache::readBackEqualsImport()
{
    QFETCH(QString, path);
    if (!QDir(path).exists())
        QSKIP("input not present");
    qputenv("RANKSCOPE_NO_CACHE", "1");
    const CliResult inspectFresh = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC"), path});
    const CliResult analyzeFresh = runCli({QStringLiteral("analyze"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC"), path});
    qunsetenv("RANKSCOPE_NO_CACHE");
    // The first cached run fills the cache, the second reads every file back from it.
    const CliResult inspectFill = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC"), path});
    const SourceCache::Stats filled = SourceCache(SourceCache::defaultDir()).stats();
    QVERIFY(filled.entries > 0);
    const CliResult inspectHit = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC"), path});
    const CliResult analyzeHit = runCli({QStringLiteral("analyze"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC"), path});
    QCOMPARE(SourceCache(SourceCache::defaultDir()).stats().entries, filled.entries); // nothing imported anew
    QCOMPARE(inspectFill.out, inspectFresh.out);
    QCOMPARE(inspectHit.out, inspectFresh.out);
    QCOMPARE(inspectHit.status, inspectFresh.status);
    QCOMPARE(analyzeHit.out, analyzeFresh.out);
    QCOMPARE(analyzeHit.err, analyzeFresh.err);
}

void TestImportCache::archiveRoundTripIsExact()
{
    // Written, read back and written again, every column is byte for byte the same: nothing that
    // is stored is lost or changed on the way.
    QDirIterator it(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"), QDir::Files);
    int files = 0;
    std::size_t flows = 0;
    while (it.hasNext()) {
        const std::string path = it.next().toStdString();
        ImportContext ctx;
        SourceBuilder first = ImporterRegistry::instance().importFile(path, ctx);
        if (first.source().format.empty())
            continue;
        const auto columns = SourceArchive::write(first);
        std::string error;
        auto back = SourceArchive::read(columns, &error);
        QVERIFY2(back, error.c_str());
        QCOMPARE(back->flows().size(), first.flows().size());
        flows += first.flows().size();
        const auto again = SourceArchive::write(*back);
        QCOMPARE(again.size(), columns.size());
        for (std::size_t i = 0; i < columns.size(); ++i) {
            QCOMPARE(again[i].name, columns[i].name);
            QCOMPARE(again[i].rawBytes, columns[i].rawBytes);
            QVERIFY2(again[i].blocks == columns[i].blocks, columns[i].name.c_str());
        }
        ++files;
    }
    QVERIFY(files >= 5);
    QVERIFY(flows > 100); // the demo's launch → kernel arrows are among what is stored
}

void TestImportCache::argsStayInTheCacheUntilViewed()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("rank-0.json"));
    writeFile(trace, kinetoTrace(0, 4, 50));
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    SessionLoader::Options plain = cached(cacheDir);
    plain.cache = false;
    const SessionPtr fresh = SessionLoader({trace.toStdString()}, plain).run();
    // The run that fills the cache lets go of its args once kept; the next reads them back lazily.
    SessionLoader filling({trace.toStdString()}, cached(cacheDir));
    const SessionPtr filled = filling.run();
    QCOMPARE(filling.cacheUse().stored.load(), 1);
    SessionLoader loader({trace.toStdString()}, cached(cacheDir));
    const SessionPtr back = loader.run();
    QCOMPARE(loader.cacheUse().hits.load(), 1);
    // Every span's args read back equal, loaded on first view.
    int withArgs = 0;
    for (TrackId t = 0; t < fresh->tracks().size(); ++t)
        for (std::size_t i = 0; i < fresh->tracks()[t].spans.size(); ++i) {
            const ArgsId a = fresh->tracks()[t].spans[i].args;
            QCOMPARE(back->tracks()[t].spans[i].args, a);
            QCOMPARE(back->args(t, a), fresh->args(t, a));
            QCOMPARE(filled->args(t, a), fresh->args(t, a));
            withArgs += a != kNoArgs;
        }
    QVERIFY(withArgs > 50);
    // Cleared behind the session's back: args not loaded yet view as empty, nothing breaks.
    SessionLoader again({trace.toStdString()}, cached(cacheDir));
    const SessionPtr third = again.run();
    QVERIFY(SourceCache(cacheDir.toStdString()).clear());
    for (TrackId t = 0; t < third->tracks().size(); ++t)
        for (const Span &s : third->tracks()[t].spans)
            QVERIFY(third->args(t, s.args).empty());
}

void TestImportCache::logMessagesLoadByTheBlockWhenRead()
{
    // A long job log whose failure is at its end: reopened from the cache, the messages stay there
    // until read. The analysis reads the records its rules select (the traceback's exception, the
    // launcher's lines), so it loads a block or two, not the log, and finds what a fresh import finds.
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("job.log"));
    // Each rank's NCCL start-up (its driver, two ranks on different drivers), then NCCL channel
    // lines spread through the whole log, as NCCL_DEBUG=INFO writes them.
    std::string text;
    for (int k = 0; k < 2; ++k) {
        const std::string p = "[rank" + std::to_string(k) + "]:node-a:100" + std::to_string(k) + ":100" + std::to_string(k) + " [" + std::to_string(k) + "] ";
        text += p + "NCCL INFO cudaDriverVersion " + (k ? "12040" : "12020") + "\n";
        text += p + "NCCL INFO comm 0xa" + std::to_string(k) + " rank " + std::to_string(k) + " nranks 2 cudaDev " + std::to_string(k)
            + " busId " + (k ? "8000" : "7000") + " commId 0xbeef - Init COMPLETE\n";
    }
    for (int i = 0; i < 60000; ++i) {
        if (i % 500 == 0)
            text += "[rank" + std::to_string(i % 2) + "]:node-a:100" + std::to_string(i % 2) + ":100" + std::to_string(i % 2) + " ["
                + std::to_string(i % 2) + "] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n";
        const int ms = (i / 2) * 100; // a step every 100 ms from 06:00
        char stamp[32];
        std::snprintf(stamp, sizeof stamp, "%02d:%02d:%02d,%03d", 6 + ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
        text += "[rank" + std::to_string(i % 2) + "]:2025-06-01 " + stamp + " - INFO - step " + std::to_string(i / 2)
            + " loss 2.3456 lr 0.0003 grad_norm 1.234 tokens/s 123456\n";
    }
    QFile incident(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/logs/incidents/torchrun_rank0_filenotfound.log"));
    QVERIFY(incident.open(QIODevice::ReadOnly));
    text += incident.readAll().toStdString();
    writeFile(log, text);
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    SessionLoader::Options plain = cached(cacheDir);
    plain.cache = false;
    const SessionPtr fresh = SessionLoader({log.toStdString()}, plain).run();
    QVERIFY(!fresh->logs().texts.front().isLazy());
    SessionLoader filling({log.toStdString()}, cached(cacheDir));
    const SessionPtr filled = filling.run();
    QCOMPARE(filling.cacheUse().stored.load(), 1);
    QVERIFY(filled->logs().texts.front().isLazy()); // let go once kept
    SessionLoader loader({log.toStdString()}, cached(cacheDir));
    const SessionPtr back = loader.run();
    QCOMPARE(loader.cacheUse().hits.load(), 1);

    const TextArena &messages = back->logs().texts.front();
    QVERIFY(messages.isLazy());
    std::size_t total = 0;
    for (const LogRecord &r : fresh->logs().records)
        total += fresh->logs().text(r).size();
    QVERIFY(total > 4 * SourceArchive::kLogBlockBytes);
    const std::size_t idle = messages.memoryBytes(); // the entries' places only
    QVERIFY2(idle < total / 4, qPrintable(QStringLiteral("%1 of %2").arg(idle).arg(total)));

    const AnalysisResult a = Analyzer::run(*fresh), b = Analyzer::run(*back);
    QVERIFY(!a.findings.empty());
    QCOMPARE(b.findings.size(), a.findings.size());
    for (std::size_t i = 0; i < a.findings.size(); ++i) {
        QCOMPARE(b.findings[i].title, a.findings[i].title);
        QCOMPARE(b.findings[i].evidence.size(), a.findings[i].evidence.size());
        for (std::size_t k = 0; k < a.findings[i].evidence.size(); ++k)
            QCOMPARE(b.findings[i].evidence[k].text, a.findings[i].evidence[k].text);
    }
    QVERIFY2(a.findings.front().title.find("FileNotFoundError") != std::string::npos, a.findings.front().title.c_str());
    // The drivers are read from the start-up lines, the channel lines after them are not read.
    QVERIFY(std::any_of(b.findings.begin(), b.findings.end(), [](const Finding &f) { return f.id == "driver-mismatch"; }));
    const std::size_t analysed = messages.memoryBytes() - idle;
    qInfo("messages: %zu bytes; held after reopen %zu, loaded by the analysis %zu", total, idle, analysed);
    QVERIFY2(analysed <= 2 * SourceArchive::kLogBlockBytes, qPrintable(QStringLiteral("%1 of %2").arg(analysed).arg(total)));

    // Read whole (a search, an export), every message equals the fresh import's.
    QCOMPARE(back->logs().records.size(), fresh->logs().records.size());
    for (std::size_t i = 0; i < fresh->logs().records.size(); ++i)
        QVERIFY(back->logs().text(back->logs().records[i]) == fresh->logs().text(fresh->logs().records[i]));
    QVERIFY(messages.memoryBytes() - idle >= total);

    // Cleared behind an open session's back: the messages not loaded yet say they are lost.
    SessionLoader again({log.toStdString()}, cached(cacheDir));
    const SessionPtr third = again.run();
    QVERIFY(SourceCache(cacheDir.toStdString()).clear());
    const LogRecord &last = third->logs().records.back();
    QVERIFY(third->logs().text(last).empty());
    QVERIFY(third->logs().lost(last));
    QVERIFY(!fresh->logs().lost(fresh->logs().records.back()));
}

void TestImportCache::damagedEntryIsImportedAgain()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("rank-0.json"));
    writeFile(trace, kinetoTrace(0, 4, 3));
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    SessionLoader({trace.toStdString()}, cached(cacheDir)).run();
    // Flip bytes in the middle of every stored block: zstd's frame checksum catches it.
    {
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open((cacheDir + QStringLiteral("/sources.sqlite")).toUtf8().constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "UPDATE columns SET data = CAST(substr(data, 1, length(data) / 2) || X'00FF00FF' || substr(data, length(data) / 2 + 5) AS BLOB)",
                              nullptr, nullptr, nullptr),
                 SQLITE_OK);
        sqlite3_close(db);
    }
    SessionLoader loader({trace.toStdString()}, cached(cacheDir));
    const SessionPtr s = loader.run();
    QCOMPARE(loader.cacheUse().hits.load(), 0);
    QCOMPARE(loader.cacheUse().rejected.load(), 1);
    QCOMPARE(loader.cacheUse().stored.load(), 1); // imported again and rewritten
    QCOMPARE(s->sources().front().counts.steps, std::int64_t(3));
    SessionLoader third({trace.toStdString()}, cached(cacheDir));
    third.run();
    QCOMPARE(third.cacheUse().hits.load(), 1);
}

void TestImportCache::changedFileIsImportedAgain()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("rank-0.json"));
    writeFile(trace, kinetoTrace(0, 4, 3));
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    SessionLoader({trace.toStdString()}, cached(cacheDir)).run();
    // Same size, other content (one more step would change the size: rewrite the rank instead).
    writeFile(trace, kinetoTrace(1, 4, 3));
    SessionLoader loader({trace.toStdString()}, cached(cacheDir));
    const SessionPtr s = loader.run();
    QCOMPARE(loader.cacheUse().hits.load(), 0);
    QCOMPARE(s->ranks().front().id, RankId(1));
}

void TestImportCache::settingsAreInTheKey()
{
    QTemporaryDir dir;
    const QString log = dir.filePath(QStringLiteral("job.log"));
    writeFile(log, "[2024-08-14 03:12:04,248] torch.distributed.run: [WARNING] hello\n"
                   "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    SessionLoader::Options utc = cached(cacheDir);
    utc.timeZone = "UTC";
    SessionLoader({log.toStdString()}, utc).run();
    SessionLoader::Options tokyo = cached(cacheDir);
    tokyo.timeZone = "Asia/Tokyo";
    SessionLoader other({log.toStdString()}, tokyo);
    other.run();
    QCOMPARE(other.cacheUse().hits.load(), 0); // another zone reads the stamps differently
    SessionLoader same({log.toStdString()}, utc);
    same.run();
    QCOMPARE(same.cacheUse().hits.load(), 1);
}

void TestImportCache::limitEvictsLeastRecentlyUsed()
{
    QTemporaryDir dir;
    std::vector<std::string> traces;
    for (int r = 0; r < 3; ++r) {
        const QString t = dir.filePath(QStringLiteral("rank-%1.json").arg(r));
        writeFile(t, kinetoTrace(r, 40, 6));
        traces.push_back(t.toStdString());
    }
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    SessionLoader::Options o = cached(cacheDir);
    o.threads = 1;
    SessionLoader({traces[0]}, o).run();
    const std::int64_t one = SourceCache(cacheDir.toStdString()).stats().bytes;
    QVERIFY(one > 0);
    // Room for about two entries: the third evicts the least recently used, rank 1 (rank 0 was read again).
    o.cacheMaxBytes = one * 2 + one / 2;
    SessionLoader({traces[1]}, o).run();
    QTest::qWait(1100); // the use stamps have a resolution of a second
    SessionLoader reread({traces[0]}, o);
    reread.run();
    QCOMPARE(reread.cacheUse().hits.load(), 1);
    QTest::qWait(1100);
    SessionLoader({traces[2]}, o).run();
    QCOMPARE(SourceCache(cacheDir.toStdString()).stats().entries, std::int64_t(2));
    SessionLoader r0({traces[0]}, o), r1({traces[1]}, o);
    r0.run();
    r1.run();
    QCOMPARE(r0.cacheUse().hits.load(), 1);
    QCOMPARE(r1.cacheUse().hits.load(), 0);
    // A lowered limit evicts at once, least recently used first.
    QVERIFY(SourceCache(cacheDir.toStdString(), one + one / 2).trim());
    QCOMPARE(SourceCache(cacheDir.toStdString()).stats().entries, std::int64_t(1));
}

void TestImportCache::noCacheKeepsItOut()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("rank-0.json"));
    writeFile(trace, kinetoTrace(0, 4, 3));
    QCOMPARE(runCli({QStringLiteral("inspect"), QStringLiteral("--no-cache"), trace}).status, 0);
    QCOMPARE(SourceCache(SourceCache::defaultDir()).stats().entries, std::int64_t(0));
    qputenv("RANKSCOPE_NO_CACHE", "1");
    QCOMPARE(runCli({QStringLiteral("inspect"), trace}).status, 0);
    QCOMPARE(SourceCache(SourceCache::defaultDir()).stats().entries, std::int64_t(0));
    qunsetenv("RANKSCOPE_NO_CACHE");
    QCOMPARE(runCli({QStringLiteral("inspect"), trace}).status, 0);
    QCOMPARE(SourceCache(SourceCache::defaultDir()).stats().entries, std::int64_t(1));
    QVERIFY(SourceCache(SourceCache::defaultDir()).clear());
    QCOMPARE(SourceCache(SourceCache::defaultDir()).stats().entries, std::int64_t(0));
}

void TestImportCache::notADatabaseIsReplaced()
{
    QTemporaryDir dir;
    const QString trace = dir.filePath(QStringLiteral("rank-0.json"));
    writeFile(trace, kinetoTrace(0, 4, 3));
    const QString cacheDir = dir.filePath(QStringLiteral("cache"));
    QDir().mkpath(cacheDir);
    writeFile(cacheDir + QStringLiteral("/sources.sqlite"), std::string(8192, 'x'));
    SessionLoader loader({trace.toStdString()}, cached(cacheDir));
    const SessionPtr s = loader.run();
    QCOMPARE(s->sources().front().counts.steps, std::int64_t(3));
    QCOMPARE(loader.cacheUse().stored.load(), 1);
    SessionLoader again({trace.toStdString()}, cached(cacheDir));
    again.run();
    QCOMPARE(again.cacheUse().hits.load(), 1);
}

QTEST_GUILESS_MAIN(TestImportCache)
#include "test_importcache.moc"
