// The profiler memory-timeline export read as a stream (issue 11): the counters must be the ones
// the former whole-document reader gave (kept below as the reference, `documentImport`), on
// generated files of both shapes and on the real sample; a 200 MB gzip export must import in
// memory far below its size; implausible values are warnings naming the row; errors keep their
// byte offsets; cancel and progress still work.

#include "importerregistry.h"
#include "kinetotesthelpers.h"
#include "peakmemory.h"

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <random>

using namespace rs;
using namespace rs::test;

namespace {

// The reader this importer had before it streamed: the document parsed whole with nlohmann, both
// shapes summed exactly as it did. It is the reference for "the same counters as before".
SourceBuilder documentImport(const std::string &text)
{
    SourceBuilder out("reference");
    const auto doc = nlohmann::json::parse(text);
    std::map<std::size_t, TrackId> tracks;
    TrackId totalId = kNoTrack;
    const auto track = [&](std::size_t c) {
        if (auto it = tracks.find(c); it != tracks.end())
            return it->second;
        static const std::array<const char *, 8> kNames = {"parameter", "optimizer state", "input", "temporary",
                                                           "activation", "gradient", "autograd detail", "unknown"};
        const TrackId id = out.track(TrackKind::Counter, 0, std::int64_t(c) + 1);
        out.trackAt(id).name = out.intern(std::string("Memory timeline: ") + (c < 8 ? kNames[c] : "category " + std::to_string(c)));
        out.trackAt(id).sortIndex = int(c) + 1;
        tracks.emplace(c, id);
        return id;
    };
    const auto total = [&] {
        if (totalId == kNoTrack) {
            totalId = out.track(TrackKind::Counter, 0, 0);
            out.trackAt(totalId).name = out.intern("Memory timeline: total");
        }
        return totalId;
    };
    bool clock = false;
    const auto toNs = [&](const nlohmann::json &v) -> TimeNs {
        if (v.is_number_integer() && v.get<std::int64_t>() > 100000000000000000LL) {
            clock = true;
            return v.get<std::int64_t>();
        }
        const double t = v.get<double>();
        if (t > 1e17) {
            clock = true;
            return TimeNs(t);
        }
        if (t > 1e14)
            clock = true;
        return TimeNs(t * 1000.0);
    };
    const bool plain = doc.size() == 2 && doc[0].is_array() && doc[1].is_array() && !doc[1].empty() && doc[1][0].is_array();
    if (plain) {
        const std::size_t n = std::min(doc[0].size(), doc[1].size());
        for (std::size_t i = 0; i < n; ++i) {
            const TimeNs t = toNs(doc[0][i]);
            double sum = 0;
            for (std::size_t c = 0; c < doc[1][i].size(); ++c) {
                const double v = doc[1][i][c].is_number() ? doc[1][i][c].get<double>() : 0.0;
                sum += v;
                out.addCounterSample(track(c), t, v);
            }
            out.addCounterSample(total(), t, sum);
            ++out.source().counts.traceEntries;
        }
    } else {
        double first = -1;
        nlohmann::json firstRow;
        for (const auto &row : doc)
            if (row[0].get<double>() >= 0 && (first < 0 || row[0].get<double>() < first)) {
                first = row[0].get<double>();
                firstRow = row[0];
            }
        std::map<std::size_t, double> level;
        double sum = 0;
        std::optional<TimeNs> pending;
        const auto flush = [&](TimeNs t) {
            for (const auto &[c, v] : level)
                out.addCounterSample(track(c), t, v);
            out.addCounterSample(total(), t, sum);
        };
        for (const auto &row : doc) {
            ++out.source().counts.traceEntries;
            const TimeNs t = row[0].get<double>() < 0 ? toNs(first < 0 ? nlohmann::json(0) : firstRow) : toNs(row[0]);
            const std::size_t c = row.size() > 3 && row[3].is_number_integer() ? row[3].get<std::size_t>() : 7;
            if (pending && t != *pending)
                flush(*pending);
            pending = t;
            level[c] += row[2].get<double>();
            sum += row[2].get<double>();
        }
        if (pending)
            flush(*pending);
    }
    out.source().hasClock = clock;
    out.finish();
    return out;
}

void compareWithReference(const SourceBuilder &b, const std::string &text)
{
    const SourceBuilder ref = documentImport(text);
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().format, std::string("memory-timeline"));
    QCOMPARE(b.source().counts.traceEntries, ref.source().counts.traceEntries);
    QCOMPARE(b.source().hasClock, ref.source().hasClock);
    QCOMPARE(b.source().timeRange.begin, ref.source().timeRange.begin);
    QCOMPARE(b.source().timeRange.end, ref.source().timeRange.end);
    QCOMPARE(b.tracks().size(), ref.tracks().size());
    for (std::size_t i = 0; i < b.tracks().size(); ++i) {
        const Track &got = b.tracks()[i];
        const Track &want = ref.tracks()[i];
        QCOMPARE(b.str(got.name), ref.str(want.name));
        QCOMPARE(got.sortIndex, want.sortIndex);
        QVERIFY2(got.counter.times == want.counter.times, qPrintable(qs(b.str(got.name))));
        QVERIFY2(got.counter.values == want.counter.values, qPrintable(qs(b.str(got.name))));
    }
}

// Raw rows in time order, led by pre-existing tensors, in one of several time spellings.
std::string rawTimeline(std::mt19937 &rng, int style)
{
    std::uniform_int_distribution<int> pick(0, 99);
    std::string s = style == 1 ? "[\n  " : "[";
    std::int64_t t = 1700000000000000000LL;
    double micros = 123.5;
    const int pre = pick(rng) % 5;
    const int rows = 50 + pick(rng);
    for (int i = 0; i < pre + rows; ++i) {
        if (i)
            s += style == 1 ? ",\n  " : ", ";
        std::string time;
        if (i < pre) {
            time = "-1";
        } else {
            if (pick(rng) < 40) {
                t += 1 + pick(rng) * 1000;
                micros += 0.25 * (1 + pick(rng));
            }
            time = style == 2 ? std::to_string(micros) : style == 3 ? std::to_string((t / 1000) * 1.0) : std::to_string(t);
        }
        const int c = pick(rng);
        const std::string category = c < 80 ? std::to_string(c % 8) : c < 88 ? "null" : c < 94 ? "9" : "2.0";
        const long long bytes = (pick(rng) < 30 ? -1 : 1) * 512LL * (1 + pick(rng));
        s += "[" + time + ", " + std::to_string(pick(rng) % 4) + ", " + std::to_string(bytes) + (pick(rng) < 3 ? "" : ", " + category) + "]";
    }
    return s + (style == 1 ? "\n]" : "]");
}

std::string plainTimeline(std::mt19937 &rng, int n, int categories)
{
    std::uniform_int_distribution<int> pick(0, 999);
    std::string times = "[", sizes = "[";
    for (int i = 0; i < n; ++i) {
        times += (i ? ", " : "") + std::to_string(1700000000000000000LL + std::int64_t(i) * 1000000);
        sizes += i ? ", [" : "[";
        for (int c = 0; c < categories; ++c)
            sizes += (c ? ", " : "") + std::to_string(pick(rng) * 4096) + (c == 3 ? ".5" : "");
        sizes += "]";
    }
    return "[" + times + "], " + sizes + "]]";
}

SourceBuilder importTimeline(const std::string &text)
{
    return importText(text, "timeline.raw.json");
}

const Diagnostic *diagnostic(const SourceBuilder &b, std::string_view code)
{
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == code)
            return &d;
    return nullptr;
}

const Track *totalTrack(const SourceBuilder &b)
{
    return findTrack(b, TrackKind::Counter, "Memory timeline: total");
}

// A gzip file of `rows` raw rows written chunk by chunk, 1000 rows per time step; returns the
// final total the rows sum to.
double writeBigTimeline(const QString &path, std::int64_t rows, std::int64_t &bytesWritten)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return -1;
    z_stream z{};
    deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(1 << 20, '\0');
    const auto put = [&](const std::string &text, int flush) {
        z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
        z.avail_in = uInt(text.size());
        do {
            z.next_out = reinterpret_cast<Bytef *>(out.data());
            z.avail_out = uInt(out.size());
            deflate(&z, flush);
            file.write(out.data(), qint64(out.size() - z.avail_out));
        } while (z.avail_out == 0);
    };
    double total = 0;
    bytesWritten = 0;
    std::string chunk = "[";
    for (std::int64_t i = 0; i < rows; ++i) {
        const std::int64_t bytes = (i % 3 == 2 ? -1 : 1) * 4096 * (1 + i % 97);
        total += double(bytes);
        chunk += (i ? ", [" : "[") + std::to_string(1700000000000000000LL + (i / 1000) * 1000) + ", " + std::to_string(i % 4) + ", "
            + std::to_string(bytes) + ", " + std::to_string(i % 8) + "]";
        if (chunk.size() > (1 << 20)) {
            bytesWritten += std::int64_t(chunk.size());
            put(chunk, Z_NO_FLUSH);
            chunk.clear();
        }
    }
    chunk += "]";
    bytesWritten += std::int64_t(chunk.size());
    put(chunk, Z_FINISH);
    deflateEnd(&z);
    return total;
}

} // namespace

class TestMemoryTimeline : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // First, while the process has not yet needed much memory of its own.
    void bigGzipTimelineStreams();
    void rawSameAsDocumentReader_data();
    void rawSameAsDocumentReader();
    void plainSameAsDocumentReader_data();
    void plainSameAsDocumentReader();
    void preexistingRows();
    void sampleSameAsDocumentReader();
    void implausibleValuesAreWarnings_data();
    void implausibleValuesAreWarnings();
    void errorsKeepOffsets_data();
    void errorsKeepOffsets();
    void longStringIsSkipped();
    void cancelAndProgress();
};

void TestMemoryTimeline::bigGzipTimelineStreams()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big.raw.json.gz"));
    std::int64_t size = 0;
    const std::int64_t rows = 6000000;
    const double total = writeBigTimeline(path, rows, size);
    QVERIFY(size > (std::int64_t(200) << 20));

    const bool reset = resetPeakRss();
    const std::int64_t before = peakRssBytes();
    QElapsedTimer timer;
    timer.start();
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    const qint64 ms = timer.elapsed();
    const std::int64_t growth = peakRssBytes() - before;
    qInfo("%lld MB of rows (%lld KB gzip): %lld ms, peak RSS growth %lld MiB (peak reset: %s)", static_cast<long long>(size >> 20),
          static_cast<long long>(QFileInfo(path).size() >> 10), ms, static_cast<long long>(growth >> 20), reset ? "yes" : "no");

    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().compression, Compression::Gzip);
    QCOMPARE(b.source().counts.traceEntries, rows);
    const Track *sum = totalTrack(b);
    QVERIFY(sum);
    QCOMPARE(sum->counter.values.size(), std::size_t(rows / 1000));
    QCOMPARE(sum->counter.values.back(), total);
    // The samples take 6000 x 9 x 16 bytes; the file is read a megabyte at a time.
    QVERIFY2(growth < size / 8 + kSanitizerSlackBytes, qPrintable(QString::number(growth >> 20) + " MiB"));
}

void TestMemoryTimeline::rawSameAsDocumentReader_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("style");
    for (int seed = 1; seed <= 6; ++seed)
        for (int style = 0; style < 4; ++style)
            QTest::addRow("seed %d style %d", seed, style) << seed << style;
}

void TestMemoryTimeline::rawSameAsDocumentReader()
{
    QFETCH(int, seed);
    QFETCH(int, style);
    std::mt19937 rng(std::uint32_t(seed * 31 + style));
    const std::string text = rawTimeline(rng, style);
    compareWithReference(importTimeline(text), text);
}

void TestMemoryTimeline::plainSameAsDocumentReader_data()
{
    QTest::addColumn<int>("times");
    QTest::addColumn<int>("categories");
    QTest::newRow("1 time") << 1 << 8;
    QTest::newRow("2 times") << 2 << 8;
    QTest::newRow("100 times") << 100 << 8;
    QTest::newRow("extra categories") << 20 << 10;
    QTest::newRow("few categories") << 20 << 3;
}

void TestMemoryTimeline::plainSameAsDocumentReader()
{
    QFETCH(int, times);
    QFETCH(int, categories);
    std::mt19937 rng(std::uint32_t(times * 7 + categories));
    const std::string text = plainTimeline(rng, times, categories);
    compareWithReference(importText(text, "timeline.json"), text);
}

void TestMemoryTimeline::preexistingRows()
{
    // Held until the first real time, then part of its sample; alone they sit at time 0.
    const std::string text = "[[-1, 0, 100, 0], [-1, 0, 50, 1], [2000000000000000000, 1, 7, 0], [2000000000000000001, 1, 1, 0]]";
    compareWithReference(importTimeline(text), text);
    const SourceBuilder b = importTimeline(text);
    QCOMPARE(totalTrack(b)->counter.values, std::vector<double>({157, 158}));
    const std::string onlyPre = "[[-1, 0, 100, 0], [-1, 0, 50, 1]]";
    compareWithReference(importTimeline(onlyPre), onlyPre);
    QCOMPARE(totalTrack(importTimeline(onlyPre))->counter.times, std::vector<TimeNs>({0}));
}

void TestMemoryTimeline::sampleSameAsDocumentReader()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/hta_memory_timeline/memory_timeline.raw.gz");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    std::string err;
    auto in = InputStream::open(path.toStdString(), &err);
    QVERIFY2(in, err.c_str());
    std::string text, buf(1 << 16, '\0');
    while (const std::size_t n = in->read(buf.data(), buf.size()))
        text.append(buf.data(), n);
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    compareWithReference(b, text);
    QCOMPARE(b.source().counts.traceEntries, 16845);
}

void TestMemoryTimeline::implausibleValuesAreWarnings_data()
{
    QTest::addColumn<QString>("row");
    QTest::addColumn<QString>("says");
    QTest::newRow("epoch ns in 2200") << QStringLiteral("[7258118400000000000, 1, 64, 0]") << QStringLiteral("the time 7258118400000000000");
    QTest::newRow("epoch µs before 1990") << QStringLiteral("[200000000000000, 1, 64, 0]") << QStringLiteral("the time 200000000000000");
    QTest::newRow("float past int64") << QStringLiteral("[1e30, 1, 64, 0]") << QStringLiteral("the time 1e+30");
    QTest::newRow("past double range") << QStringLiteral("[1e999, 1, 64, 0]") << QStringLiteral("the time inf");
    QTest::newRow("Python's NaN") << QStringLiteral("[NaN, 1, 64, 0]") << QStringLiteral("the time nan");
    QTest::newRow("Python's Infinity") << QStringLiteral("[1700000000000000500, 1, -Infinity, 0]") << QStringLiteral("byte count -inf");
    QTest::newRow("2^50 bytes") << QStringLiteral("[1700000000000000500, 1, 1125899906842624, 0]") << QStringLiteral("byte count 1125899906842624");
    QTest::newRow("negative 2^50 bytes") << QStringLiteral("[1700000000000000500, 1, -1125899906842624, 0]") << QStringLiteral("byte count -1125899906842624");
}

void TestMemoryTimeline::implausibleValuesAreWarnings()
{
    QFETCH(QString, row);
    QFETCH(QString, says);
    const std::string bad = row.toStdString();
    const std::string text = "[[1700000000000000000, 1, 100, 0], " + bad + ", [1700000000000001000, 1, 1, 0]]";
    const SourceBuilder b = importTimeline(text);
    const Diagnostic *d = diagnostic(b, "timeline-implausible");
    QVERIFY2(d, diagnosticsText(b).constData());
    QVERIFY(!d->isError());
    QVERIFY2(d->message.starts_with("row 1: ") && d->message.find(says.toStdString()) != std::string::npos, d->message.c_str());
    QVERIFY(d->message.find("not used") != std::string::npos);
    QCOMPARE(d->offset, std::int64_t(text.find(bad)));
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1));
    // The row is left out; the others are summed as if it were not there.
    QCOMPARE(totalTrack(b)->counter.values, std::vector<double>({100, 101}));
    QVERIFY(b.source().hasClock);
    QCOMPARE(b.source().counts.traceEntries, 3);
}

void TestMemoryTimeline::errorsKeepOffsets_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("code");
    QTest::addColumn<int>("offset");
    QTest::addColumn<int>("rowsKept");
    QTest::newRow("bad row") << QStringLiteral("[[1, 2, 3, 4], [5, \"x\", 6], [\"t\", 1, 2, 3], [7, 1, 2, 3]]") << QStringLiteral("timeline-bad-row") << 28 << 3;
    QTest::newRow("syntax") << QStringLiteral("[[1, 2, 3, 4], [5, 6, 7, x]]") << QStringLiteral("json-syntax") << 25 << 1;
    QTest::newRow("truncated") << QStringLiteral("[[1, 2, 3, 4], [5, 6, 7") << QStringLiteral("json-syntax") << 23 << 1;
    QTest::newRow("not a value") << QStringLiteral("[[1, 2, 3, 4], [5, 6, 7, .5]]") << QStringLiteral("json-syntax") << 25 << 1;
    QTest::newRow("missing comma") << QStringLiteral("[[1, 2, 3, 4], [5, 6 7, 8]]") << QStringLiteral("json-syntax") << 21 << 1;
    QTest::newRow("wrong bracket") << QStringLiteral("[[1, 2, 3, 4}, [5, 6, 7, 8]]") << QStringLiteral("json-syntax") << 12 << 0; // the row never closed
    QTest::newRow("trailing text") << QStringLiteral("[[1, 2, 3, 4]] trailing") << QStringLiteral("json-syntax") << 15 << 1;
    QTest::newRow("too deep") << QStringLiteral("[[1, 2, 3, 4], [5, 6, 7, 8], ") + QString(70, '[') << QStringLiteral("json-too-deep") << 29 + 63 << 2;
    QTest::newRow("long number") << QStringLiteral("[[1, 2, 3, 4], [1") + QString(5000, '0') + QStringLiteral(", 1, 2, 3]]") << QStringLiteral("value-too-long") << 16 << 1;
}

void TestMemoryTimeline::errorsKeepOffsets()
{
    QFETCH(QString, text);
    QFETCH(QString, code);
    QFETCH(int, offset);
    QFETCH(int, rowsKept);
    const SourceBuilder b = importTimeline(text.toStdString());
    const Diagnostic *d = diagnostic(b, code.toStdString());
    QVERIFY2(d, diagnosticsText(b).constData());
    QVERIFY(d->isError());
    QCOMPARE(d->offset, std::int64_t(offset));
    QCOMPARE(d->count, std::int64_t(1));
    // What came before the problem is kept.
    const Track *sum = totalTrack(b);
    QCOMPARE(sum ? int(sum->counter.values.size()) : 0, rowsKept);
}

void TestMemoryTimeline::longStringIsSkipped()
{
    // A string is no row value, so it is read past, never kept: the row is bad, the rest is read.
    const std::string text = "[[1, 2, 3, 4], [\"" + std::string(3 << 20, 'a') + "\\\"\", 1, 2, 3], [5, 1, 2, 3]]";
    const SourceBuilder b = importTimeline(text);
    const Diagnostic *d = diagnostic(b, "timeline-bad-row");
    QVERIFY2(d, diagnosticsText(b).constData());
    QCOMPARE(d->offset, std::int64_t(15));
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1));
    QCOMPARE(totalTrack(b)->counter.values, std::vector<double>({3, 5}));
}

void TestMemoryTimeline::cancelAndProgress()
{
    std::string text = "[";
    for (int i = 0; i < 400000; ++i)
        text += (i ? ", [" : "[") + std::to_string(1700000000000000000LL + i * 1000LL) + ", 1, 512, 4]";
    text += "]";
    const std::string packed = gzip(text);
    std::atomic<bool> cancel{false};
    int calls = 0;
    ImportContext ctx(&cancel, [&](std::int64_t done, std::int64_t total) {
        ++calls;
        QVERIFY(done <= total);
        cancel = true;
    }, std::chrono::milliseconds(0));
    const SourceBuilder b = ImporterRegistry::instance().importBytes(packed, "timeline.raw.json.gz", ctx);
    QVERIFY(calls >= 1);
    QVERIFY(diagnostic(b, "cancelled"));
    QVERIFY(!diagnostic(b, "json-syntax"));
    QVERIFY(b.source().counts.traceEntries < 400000);

    int progress = 0;
    ImportContext whole(nullptr, [&](std::int64_t, std::int64_t) { ++progress; }, std::chrono::milliseconds(0));
    const SourceBuilder all = ImporterRegistry::instance().importBytes(packed, "timeline.raw.json.gz", whole);
    QCOMPARE(all.source().counts.traceEntries, 400000);
    QVERIFY(progress >= 2);
}

QTEST_GUILESS_MAIN(TestMemoryTimeline)
#include "test_memorytimeline.moc"
