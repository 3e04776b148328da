// rankscope summarize: a folder of summaries analyses like the folder of files it was written from
// (the same findings, story, metrics and spikes, evidence citing the original files), also when
// the counters were thinned hard; summaries are small, damaged ones are refused by name while the
// other files load, and a summary's counters keep what the analysis reads of them.

#include "clirunner.h"
#include "sourcesummarizer.h"
#include "summary/summaryfile.h"
#include "cache/sourcearchive.h"
#include "cache/sqlite.h"
#include "summarizer.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <cstring>

#include <filesystem>

using namespace rs;
using namespace rs::test;
using nlohmann::json;

class TestSummarize : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void summariesAnalyseLikeTheirFiles_data();
    void summariesAnalyseLikeTheirFiles();
    void summaryIsSmallAndSaysWhatItIs();
    void damagedSummaryIsRefusedByName();
    void summariesInTheInputsAreLeftAlone();
    void previousLayoutSummaryStillOpens_data();
    void previousLayoutSummaryStillOpens();
    void thinnedCounterKeepsWhatAnalysisReads_data();
    void thinnedCounterKeepsWhatAnalysisReads();
    void usageErrors();
};

namespace {

// analyze --json of `paths` with a fixed zone, parsed.
json analyzed(const QStringList &paths)
{
    QStringList args{QStringLiteral("analyze"), QStringLiteral("--json"), QStringLiteral("--time-zone=UTC")};
    args << paths;
    const CliResult r = runCli(args);
    return json::parse(r.out, nullptr, false);
}

// Files of `dir` (recursively) with the summary extension.
QStringList summariesIn(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, {QStringLiteral("*.rankscope-summary")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext())
        out << it.next();
    out.sort();
    return out;
}

} // namespace

void TestSummarize::summariesAnalyseLikeTheirFiles_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("counterSamples");
    // Every kind of input the project has; the demo again with counters thinned to 64 samples,
    // where every rise and peak must come from the facts and the thinning, not the samples.
    QTest::newRow("demo") << QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo") << QStringLiteral("65536");
    QTest::newRow("demo, thinned hard") << QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo") << QStringLiteral("64");
    for (const char *sub : {"kineto", "logs", "memorysummary", "nvidiasmi", "flightrecorder"})
        QTest::newRow(sub) << QStringLiteral(RANKSCOPE_FIXTURES_DIR "/") + QLatin1String(sub) << QStringLiteral("64");
    const QString samples = QStringLiteral(RANKSCOPE_SAMPLES_DIR);
    if (QDir(samples).exists())
        for (const QString &sub : QDir(samples).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            QTest::newRow(qPrintable(QStringLiteral("samples/") + sub)) << samples + QLatin1Char('/') + sub << QStringLiteral("64");
}

void TestSummarize::summariesAnalyseLikeTheirFiles()
{
    QFETCH(QString, path);
    QFETCH(QString, counterSamples);
    if (!QDir(path).exists())
        QSKIP("input not present");
    QTemporaryDir out;
    const CliResult s = runCli({QStringLiteral("summarize"), QStringLiteral("--time-zone=UTC"), QStringLiteral("--output"),
                                out.path(), QStringLiteral("--counter-samples"), counterSamples, path});
    QVERIFY2(s.status != 2, s.err.c_str());
    const QStringList summaries = summariesIn(out.path());
    QVERIFY(!summaries.isEmpty());

    const json files = analyzed({path});
    const json sums = analyzed({out.path()});
    QVERIFY(files.is_object() && sums.is_object());
    // The incident told the same way, from the same evidence (cited in the original files).
    QCOMPARE(QString::fromStdString(sums["summary"].dump(1)), QString::fromStdString(files["summary"].dump(1)));
    QCOMPARE(QString::fromStdString(sums["findings"].dump(1)), QString::fromStdString(files["findings"].dump(1)));
    QCOMPARE(QString::fromStdString(sums["spikes"].dump(1)), QString::fromStdString(files["spikes"].dump(1)));
    QCOMPARE(QString::fromStdString(sums["divergent_ranks"].dump(1)), QString::fromStdString(files["divergent_ranks"].dump(1)));
    QCOMPARE(QString::fromStdString(sums["ranks"].dump(1)), QString::fromStdString(files["ranks"].dump(1)));
}

void TestSummarize::summaryIsSmallAndSaysWhatItIs()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    QTemporaryDir out;
    const CliResult s = runCli({QStringLiteral("summarize"), QStringLiteral("--json"), QStringLiteral("--output"), out.path(), demo});
    QCOMPARE(s.status, 0);
    const json doc = json::parse(s.out);
    QCOMPARE(doc["schema"].get<std::string>(), std::string("rankscope.summarize/1"));
    bool sawTrace = false;
    for (const json &e : doc["summaries"]) {
        QVERIFY(e["output"].is_string());
        QVERIFY(e["error"].is_null());
        if (e["format"] == "pytorch-trace") {
            sawTrace = true;
            // A trace's summary is a small part of it: no per-op spans, no args.
            QVERIFY2(e["output_bytes"].get<double>() < 0.2 * e["input_bytes"].get<double>(), e.dump().c_str());
        }
    }
    QVERIFY(sawTrace);

    // inspect says what each summary is and which file it was written from.
    const CliResult in = runCli({QStringLiteral("inspect"), QStringLiteral("--json"), out.path()});
    const json inspected = json::parse(in.out);
    QCOMPARE(inspected["sources"].size(), doc["summaries"].size());
    for (const json &src : inspected["sources"]) {
        QCOMPARE(src["format"].get<std::string>(), std::string("summary"));
        QVERIFY2(src.contains("summary_of") && src["summary_of"]["path"].get<std::string>().starts_with(demo.toStdString()),
                 src.dump().c_str());
        QCOMPARE(src["summary_of"]["sha256"].get<std::string>().size(), std::size_t(64));
    }
}

void TestSummarize::damagedSummaryIsRefusedByName()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    QTemporaryDir out;
    QCOMPARE(runCli({QStringLiteral("summarize"), QStringLiteral("--output"), out.path(), demo}).status, 0);
    const QStringList summaries = summariesIn(out.path());
    QVERIFY(summaries.size() >= 2);
    // Flip bytes in the middle of one summary: its pages or its zstd blocks no longer check out.
    QFile f(summaries.front());
    QVERIFY(f.open(QIODevice::ReadWrite));
    QByteArray bytes = f.readAll();
    for (qsizetype i = bytes.size() / 2; i < bytes.size() / 2 + 4096 && i < bytes.size(); ++i)
        bytes[i] = char(bytes[i] ^ 0x5a);
    f.seek(0);
    f.write(bytes);
    f.close();
    const CliResult r = runCli({QStringLiteral("inspect"), out.path()});
    QCOMPARE(r.status, 1);
    QVERIFY2(r.err.find(QFileInfo(summaries.front()).fileName().toStdString()) != std::string::npos, r.err.c_str());
    // Every other summary still loads.
    for (qsizetype i = 1; i < summaries.size(); ++i)
        QVERIFY2(r.out.find(QFileInfo(summaries[i]).fileName().toStdString()) != std::string::npos, r.out.c_str());

    // Not a summary of this layout: refused with the reason, never half read.
    std::string why;
    QVERIFY(!SummaryFile::read(std::string(bytes.constData(), std::size_t(bytes.size())), &why));
    QVERIFY(!why.empty());
    QVERIFY(!SummaryFile::read(std::string("SQLite format 3"), &why));
}

void TestSummarize::summariesInTheInputsAreLeftAlone()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    QTemporaryDir out;
    QCOMPARE(runCli({QStringLiteral("summarize"), QStringLiteral("--output"), out.path(), demo}).status, 0);
    const QStringList first = summariesIn(out.path());
    // Summarising the folder of summaries again writes nothing new (and says so).
    const CliResult again = runCli({QStringLiteral("summarize"), out.path()});
    QCOMPARE(again.status, 2);
    QCOMPARE(summariesIn(out.path()), first);
    // One given by name is refused by name.
    const CliResult named = runCli({QStringLiteral("summarize"), first.front()});
    QVERIFY2(named.err.find("already a summary") != std::string::npos, named.err.c_str());
}

void TestSummarize::previousLayoutSummaryStillOpens_data()
{
    QTest::addColumn<int>("layout"); // index into SourceArchive::previousLayoutIds()
    QTest::addColumn<bool>("flows");
    // rankscope-source/3: each record's message inline in the meta document, no logs column.
    QTest::newRow("release before lazy log text") << 0 << true;
    // rankscope-source/2: that, and no flow counts and no flows column.
    QTest::newRow("release before flows") << 1 << false;
}

void TestSummarize::previousLayoutSummaryStillOpens()
{
    // A summary as an earlier release wrote it opens and analyses like one of this layout (the
    // findings quote log messages, so they are read back); a layout none knows is refused.
    QFETCH(int, layout);
    QFETCH(bool, flows);
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    QTemporaryDir out;
    QCOMPARE(runCli({QStringLiteral("summarize"), QStringLiteral("--time-zone=UTC"), QStringLiteral("--output"), out.path(), demo}).status, 0);
    const json before = analyzed({out.path()});
    using namespace rs::sqlite;
    // A column's bytes, its blocks decompressed in order.
    const auto column = [](sqlite3 *db, const char *name) {
        Stmt get(db, "SELECT raw, data FROM columns WHERE name = ?1 ORDER BY block");
        get.text(1, name);
        std::string bytes;
        while (get.step()) {
            const auto raw = static_cast<std::size_t>(sqlite3_column_int64(get.s, 0));
            const std::string frame = bytesOf(get.s, 1);
            const std::size_t at = bytes.size();
            bytes.resize(at + raw);
            if (ZSTD_decompress(bytes.data() + at, raw, frame.data(), frame.size()) != raw)
                return std::string();
        }
        return bytes;
    };
    const auto rewrite = [&](const QString &path, const std::string &id, bool keepFlows) {
        Db db;
        QCOMPARE(sqlite3_open_v2(path.toUtf8().constData(), &db.db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
        Stmt(db.db, "UPDATE meta SET value = ?1 WHERE key = 'layout'").text(1, id).step();
        json meta = json::from_cbor(column(db.db, "meta"));
        meta["layout"] = id;
        // Messages back inline, as before the logs column.
        const std::string lengths = column(db.db, "logs.len"), data = column(db.db, "logs.data");
        std::vector<std::string> messages;
        std::size_t at = 0;
        for (std::size_t i = 0; i + 4 <= lengths.size(); i += 4) {
            std::uint32_t n = 0;
            std::memcpy(&n, lengths.data() + i, 4);
            messages.push_back(data.substr(at, n));
            at += n;
        }
        QCOMPARE(at, data.size());
        // The records back into the document, field by field, each with its message.
        const std::string raw = column(db.db, "logs.records");
        if (!meta["logs"].contains("records")) {
            QCOMPARE(raw.size() % sizeof(LogRecord), std::size_t(0));
            json records = json::array();
            for (std::size_t i = 0; i < raw.size(); i += sizeof(LogRecord)) {
                LogRecord r;
                std::memcpy(&r, raw.data() + i, sizeof r);
                QVERIFY(r.text <= messages.size());
                records.push_back({{"time", r.time}, {"rank", r.rank}, {"line", r.line}, {"source", r.source}, {"level", r.level},
                                   {"kind", r.kind}, {"flags", r.flags}, {"process", r.process},
                                   {"text", r.text ? messages[r.text - 1] : std::string()}});
            }
            meta["logs"]["records"] = std::move(records);
        }
        // And the steps (32 bytes each: number, begin, end, track, fromLog, incomplete, 2 zero bytes).
        const std::string steps = column(db.db, "steps");
        if (!meta.contains("steps")) {
            json list = json::array();
            for (std::size_t i = 0; i + 32 <= steps.size(); i += 32) {
                std::int64_t number = 0, begin = 0, end = 0;
                std::uint32_t track = 0;
                std::memcpy(&number, steps.data() + i, 8);
                std::memcpy(&begin, steps.data() + i + 8, 8);
                std::memcpy(&end, steps.data() + i + 16, 8);
                std::memcpy(&track, steps.data() + i + 24, 4);
                list.push_back({{"number", number}, {"range", {{"begin", begin}, {"end", end}}}, {"track", track},
                                {"fromLog", steps[i + 28] != 0}, {"incomplete", steps[i + 29] != 0}});
            }
            meta["steps"] = std::move(list);
        }
        Stmt(db.db, "DELETE FROM columns WHERE name IN ('logs.records', 'logs.len', 'logs.data', 'steps')").step();
        if (!keepFlows) {
            meta["source"]["counts"].erase("flows");
            meta["source"]["counts"].erase("flowEndsUnpaired");
            Stmt(db.db, "DELETE FROM columns WHERE name = 'flows'").step();
        }
        const std::vector<std::uint8_t> bytes = json::to_cbor(meta);
        std::string packed(ZSTD_compressBound(bytes.size()), '\0');
        packed.resize(ZSTD_compress(packed.data(), packed.size(), bytes.data(), bytes.size(), 3));
        Stmt(db.db, "DELETE FROM columns WHERE name = 'meta' AND block > 0").step();
        Stmt put(db.db, "UPDATE columns SET raw = ?1, data = ?2 WHERE name = 'meta' AND block = 0");
        put.integer(1, std::int64_t(bytes.size())).blob(2, packed).step();
    };
    for (const QString &summary : summariesIn(out.path()))
        rewrite(summary, SourceArchive::previousLayoutIds().at(std::size_t(layout)), flows);
    const json after = analyzed({out.path()});
    QVERIFY(before.contains("findings") && !before["findings"].empty());
    QVERIFY2(after["findings"] == before["findings"], after.dump(1).substr(0, 2000).c_str());

    const QString one = summariesIn(out.path()).front();
    rewrite(one, "rankscope-source/1 span40 instant24 le", false);
    QFile f(one);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    std::string why;
    QVERIFY(!SummaryFile::read(std::string(bytes.constData(), std::size_t(bytes.size())), &why));
    QVERIFY2(why.find("another model layout") != std::string::npos, why.c_str());
}

void TestSummarize::thinnedCounterKeepsWhatAnalysisReads_data()
{
    QTest::addColumn<int>("samples");
    QTest::addColumn<int>("distinct"); // values repeat in runs of samples / distinct
    QTest::addColumn<int>("limit");
    QTest::newRow("fits: untouched") << 1000 << 1000 << 4096;
    QTest::newRow("few changes: lossless") << 100000 << 500 << 4096;
    QTest::newRow("many changes: buckets") << 100000 << 100000 << 4096;
    QTest::newRow("tiny limit") << 5000 << 5000 << 16;
}

void TestSummarize::thinnedCounterKeepsWhatAnalysisReads()
{
    QFETCH(int, samples);
    QFETCH(int, distinct);
    QFETCH(int, limit);
    CounterSeries full;
    std::uint64_t x = 88172645463325252ull;
    const int run = samples / distinct;
    double value = 0;
    for (int i = 0; i < samples; ++i) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (i % run == 0)
            value = double(x % 1000000);
        full.times.push_back(1000 + TimeNs(i) * 10 + TimeNs(x % 7));
        full.values.push_back(value);
    }
    // Step edges every 7,777 ns.
    std::vector<TimeNs> edges;
    for (TimeNs e = 1000; e < full.times.back(); e += 7777)
        edges.push_back(e);
    const CounterSeries thin = SourceSummarizer::thinCounter(full, edges, std::size_t(limit));
    QVERIFY(std::is_sorted(thin.times.begin(), thin.times.end()));
    QVERIFY(thin.size() <= std::max<std::size_t>(full.size(), std::size_t(limit)) + 2 * edges.size() + 4);
    if (full.size() > std::size_t(limit) && distinct > limit)
        QVERIFY(thin.size() < full.size());
    // Exact: first, last, the peak and its time, and the lowest and highest value of every step.
    QCOMPARE(thin.times.front(), full.times.front());
    QCOMPARE(thin.times.back(), full.times.back());
    const auto fm = std::max_element(full.values.begin(), full.values.end());
    const auto tm = std::max_element(thin.values.begin(), thin.values.end());
    QCOMPARE(*tm, *fm);
    QCOMPARE(thin.times[std::size_t(tm - thin.values.begin())], full.times[std::size_t(fm - full.values.begin())]);
    auto extremes = [](const CounterSeries &c, TimeNs b, TimeNs e) {
        double lo = 1e300, hi = -1e300;
        for (std::size_t i = 0; i < c.size(); ++i)
            if (c.times[i] >= b && c.times[i] < e)
                lo = std::min(lo, c.values[i]), hi = std::max(hi, c.values[i]);
        return std::pair{lo, hi};
    };
    for (std::size_t k = 0; k + 1 < edges.size(); ++k)
        QCOMPARE(extremes(thin, edges[k], edges[k + 1]), extremes(full, edges[k], edges[k + 1]));
    // When the changes fit, the value at every moment is the same.
    if (distinct + int(edges.size()) + 2 <= limit || samples <= limit) {
        for (std::size_t i = 0; i < full.size(); i += 97) {
            const TimeNs t = full.times[i];
            const auto it = std::upper_bound(thin.times.begin(), thin.times.end(), t);
            QCOMPARE(thin.values[std::size_t(it - thin.times.begin()) - 1], full.values[i]);
        }
    }
}

void TestSummarize::usageErrors()
{
    QCOMPARE(runCli({QStringLiteral("summarize")}).status, 2);
    QCOMPARE(runCli({QStringLiteral("summarize"), QStringLiteral("--counter-samples"), QStringLiteral("3"),
                     QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo")})
                 .status,
             2);
    QCOMPARE(runCli({QStringLiteral("summarize"), QStringLiteral("--bogus"), QStringLiteral("x")}).status, 2);
    const CliResult missing = runCli({QStringLiteral("summarize"), QStringLiteral("/nonexistent/rank-0.json")});
    QCOMPARE(missing.status, 2);
    QVERIFY2(missing.err.find("/nonexistent/rank-0.json") != std::string::npos, missing.err.c_str());
}

QTEST_GUILESS_MAIN(TestSummarize)
#include "test_summarize.moc"
