// Hand-written traces for the version splits and quirks of FORMATS.md §1: both timestamp styles
// (base before or after traceEvents), B/E matching, unescaped quotes, string pids/tids, truncated
// files, a broken event in the middle, legacy bare-array traces, CPU-only and ROCm traces, and
// JSON that is not a trace.

#include "kineto/kinetoimporter.h"
#include "kinetotesthelpers.h"
#include "sessionbuilder.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace rs;
using namespace rs::test;

namespace {

const char *const kOneSpan = R"("traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": %TS%, "dur": %DUR%}
  ])";

std::string oneSpan(const std::string &before, const std::string &ts, const std::string &dur, const std::string &after)
{
    std::string events = kOneSpan;
    events.replace(events.find("%TS%"), 4, ts);
    events.replace(events.find("%DUR%"), 5, dur);
    return "{" + before + events + after + "}";
}

// Three plain events followed by a fourth, for truncation tests.
std::string fourEvents()
{
    std::string s = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (int i = 0; i < 4; ++i)
        s += R"(  {"ph": "X", "cat": "cpu_op", "name": "op)" + std::to_string(i) + R"(", "pid": 1, "tid": 1, "ts": )"
             + std::to_string(10 * i) + ", \"dur\": 5},\n";
    s += R"(  {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 100})" "\n], \"baseTimeNanoseconds\": 1000000000}";
    return s;
}

} // namespace

class TestKinetoFixtures : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void timestamps_data();
    void timestamps();
    void beginEndMatching();
    void unescapedQuotes();
    void stringPidTid();
    void truncatedKeepsEarlierEvents();
    void truncatedGzip();
    void garbageEventInTheMiddle();
    void bareArrayChromeTrace();
    void cpuOnlyTrace();
    void rocmNames();
    void compressedFixtures_data();
    void compressedFixtures();
    void notATrace_data();
    void notATrace();
    void sniffScores_data();
    void sniffScores();
    void fixtureFiles_data();
    void fixtureFiles();
};

void TestKinetoFixtures::timestamps_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<qint64>("start");
    QTest::addColumn<qint64>("duration");
    QTest::addColumn<bool>("hasClock");
    const std::string base = R"("baseTimeNanoseconds": 1700000000000000000, )";
    QTest::newRow("base before events")
        << QString::fromStdString(oneSpan(R"("schemaVersion": 1, )" + base, "1000.500", "2.250", ""))
        << qint64(1700000000001000500) << qint64(2250) << true;
    QTest::newRow("base after events (kineto < #1054)")
        << QString::fromStdString(oneSpan(R"("schemaVersion": 1, )", "1000.500", "2.250",
                                          R"(, "traceName": "t.json", "baseTimeNanoseconds": 1700000000000000000)"))
        << qint64(1700000000001000500) << qint64(2250) << true;
    QTest::newRow("base as a string")
        << QString::fromStdString(oneSpan(R"("baseTimeNanoseconds": "1700000000000000000", )", "1000.500", "2.250", ""))
        << qint64(1700000000001000500) << qint64(2250) << true;
    QTest::newRow("absolute epoch us")
        << QString::fromStdString(oneSpan(R"("schemaVersion": 1, )", "1698770201469520", "5", ""))
        << qint64(1698770201469520000) << qint64(5000) << true;
    QTest::newRow("absolute epoch with ns digits")
        << QString::fromStdString(oneSpan(R"("schemaVersion": 1, )", "1711650000123456.789", "0.001", ""))
        << qint64(1711650000123456789) << qint64(1) << true;
    QTest::newRow("relative without base")
        << QString::fromStdString(oneSpan(R"("schemaVersion": 1, )", "5000.001", "1", "")) << qint64(5000001)
        << qint64(1000) << false;
    QTest::newRow("legacy object, no schemaVersion")
        << QString::fromStdString(oneSpan("", "12", "3", "")) << qint64(12000) << qint64(3000) << false;
}

void TestKinetoFixtures::timestamps()
{
    QFETCH(QString, json);
    QFETCH(qint64, start);
    QFETCH(qint64, duration);
    QFETCH(bool, hasClock);
    const SourceBuilder b = importText(json.toStdString());
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    const Span *s = findSpan(b, "a");
    QVERIFY(s);
    QCOMPARE(qint64(s->start), start);
    QCOMPARE(qint64(s->duration), duration);
    QCOMPARE(b.source().hasClock, hasClock);
    QCOMPARE(b.source().timeRange, (TimeRange{start, start + duration}));
}

void TestKinetoFixtures::beginEndMatching()
{
    const SourceBuilder b = importText(R"([
      {"ph": "B", "cat": "cpu_op", "name": "outer", "pid": 1, "tid": 1, "ts": 10, "args": {"k": 1}},
      {"ph": "B", "cat": "cpu_op", "name": "inner", "pid": 1, "tid": 1, "ts": 12},
      {"ph": "E", "pid": 1, "tid": 1, "ts": 15},
      {"ph": "B", "cat": "kernel", "name": "gpu", "pid": 0, "tid": 7, "ts": 11},
      {"ph": "E", "pid": 0, "tid": 7, "ts": 14},
      {"ph": "E", "pid": 1, "tid": 1, "ts": 20},
      {"ph": "E", "pid": 1, "tid": 2, "ts": 21},
      {"ph": "B", "cat": "cpu_op", "name": "open", "pid": 1, "tid": 1, "ts": 30},
      {"ph": "X", "cat": "cpu_op", "name": "x", "pid": 1, "tid": 1, "ts": 40, "dur": 10}
    ])");
    QCOMPARE(countDiagnostics(b, Diagnostic::Severity::Error), 0);
    QCOMPARE(b.source().counts.spans, std::int64_t(4)); // 3 matched pairs + 1 X; the open B is not counted
    const Track *cpu = nullptr;
    const Span *outer = findSpan(b, "outer", &cpu);
    const Span *inner = findSpan(b, "inner");
    QVERIFY(outer && inner);
    QCOMPARE(outer->start, TimeNs(10000));
    QCOMPARE(outer->duration, TimeNs(10000));
    QCOMPARE(outer->depth, std::uint16_t(0));
    QCOMPARE(inner->duration, TimeNs(3000));
    QCOMPARE(inner->depth, std::uint16_t(1));
    QVERIFY(outer->args != kNoArgs);
    const Track *gpuTrack = nullptr;
    const Span *gpu = findSpan(b, "gpu", &gpuTrack);
    QVERIFY(gpu);
    QCOMPARE(gpuTrack->kind, TrackKind::GpuStream); // its E had no category; the B chose the track
    QCOMPARE(gpu->duration, TimeNs(3000));
    const Span *open = findSpan(b, "open");
    QVERIFY(open);
    QVERIFY(open->flags & SpanFlagUnmatched);
    QCOMPARE(open->end(), TimeNs(50000)); // closed at the end of the trace
    QVERIFY(findDiagnostic(b, "no matching 'E'"));
    QVERIFY(findDiagnostic(b, "1 'E' events have no open 'B'"));
    QCOMPARE(cpu->kind, TrackKind::CpuThread);
}

void TestKinetoFixtures::unescapedQuotes()
{
    SourceBuilder b = importText(R"J({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::index(x, "mask")", "pid": 1, "tid": 1, "ts": 1, "dur": 1,
       "args": {"Concrete Inputs": ["", "a"b"], "n": 2}},
      {"ph": "X", "cat": "cpu_op", "name": "next", "pid": 1, "tid": 1, "ts": 3, "dur": 1}
    ]})J");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QCOMPARE(b.source().counts.spans, std::int64_t(2));
    const Span *s = findSpan(b, "aten::index(x, \"mask\")");
    QVERIFY(s);
    const ArgsId args = s->args;
    SessionBuilder sb;
    sb.addSource(std::move(b));
    const auto session = sb.freeze();
    const std::string_view text = session->args(0, args);
    QCOMPARE(qs(text), QStringLiteral(R"({"Concrete Inputs":["","a\"b"],"n":2})"));
    QVERIFY(!nlohmann::json::parse(text, nullptr, false).is_discarded());
}

void TestKinetoFixtures::stringPidTid()
{
    const SourceBuilder b = importText(R"J({"schemaVersion": 1, "traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "a", "pid": "123", "tid": "456", "ts": 1, "dur": 1},
      {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 123, "tid": 456, "ts": 3, "dur": 1},
      {"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 10},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": "stream 7", "ts": 2, "dur": 1},
      {"ph": "i", "s": "g", "name": "Record Window End", "pid": "", "tid": "", "ts": 10}
    ]})J");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    const Track *thread = findTrack(b, TrackKind::CpuThread, "thread 456");
    QVERIFY(thread);
    QCOMPARE(thread->spans.size(), std::size_t(2)); // "456" and 456 are the same thread
    QCOMPARE(thread->pid, std::int64_t(123));
    const Track *spans = findTrack(b, TrackKind::CpuThread, "PyTorch Profiler");
    QVERIFY(spans);
    QCOMPARE(spans->spans.size(), std::size_t(1));
    const Track *stream = findTrack(b, TrackKind::GpuStream, "stream 7");
    QVERIFY(stream);
    QCOMPARE(stream->tid, std::int64_t(7));
    QCOMPARE(stream->device, 0);
    const Track *markers = findTrack(b, TrackKind::Markers, "markers");
    QVERIFY(markers);
    QCOMPARE(markers->instants.size(), std::size_t(1));
    QCOMPARE(b.tracks().size(), std::size_t(4));
}

void TestKinetoFixtures::truncatedKeepsEarlierEvents()
{
    const std::string full = fourEvents();
    const std::string cut = full.substr(0, full.find("\"op3\"") + 3);
    const SourceBuilder b = importText(cut);
    QCOMPARE(countDiagnostics(b, Diagnostic::Severity::Error), 1);
    const Diagnostic *d = findDiagnostic(b, "truncated");
    QVERIFY(d);
    QVERIFY(d->isError());
    QCOMPARE(d->offset, std::int64_t(cut.size()));
    QCOMPARE(d->line, std::int64_t(5));
    QCOMPARE(b.source().counts.spans, std::int64_t(3));
    QVERIFY(findSpan(b, "op2"));
    QVERIFY(!b.source().hasClock); // the base came after the cut
    // The complete file, for contrast.
    const SourceBuilder whole = importText(full);
    QVERIFY(whole.source().diagnostics.empty());
    QCOMPARE(whole.source().counts.spans, std::int64_t(4));
    QCOMPARE(whole.source().counts.instants, std::int64_t(1));
    QVERIFY(whole.source().hasClock);
}

void TestKinetoFixtures::truncatedGzip()
{
    std::string big = "{\"traceEvents\": [\n";
    for (int i = 0; i < 20000; ++i)
        big += R"({"ph": "X", "cat": "cpu_op", "name": "op)" + std::to_string(i % 50) + R"(", "pid": 1, "tid": 1, "ts": )"
               + std::to_string(i) + ", \"dur\": 1},\n";
    big += "{}]}";
    std::string packed = gzip(big);
    packed.resize(packed.size() / 2);
    const SourceBuilder b = importText(packed, "cut.json.gz");
    QVERIFY(findDiagnostic(b, "gzip data is truncated"));
    QVERIFY(findDiagnostic(b, "the file ends inside the event array"));
    QVERIFY(b.source().counts.spans > 1000);
    QVERIFY(b.source().counts.spans < 20000);
    QCOMPARE(b.source().compression, Compression::Gzip);
}

void TestKinetoFixtures::garbageEventInTheMiddle()
{
    const std::string text = "{\n"
                             "  \"traceEvents\": [\n"
                             "  {\n"
                             "    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"before\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1\n"
                             "  },\n"
                             "  {\n"
                             "    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"broken\", \"pid\": 1, \"tid\": 1,\n"
                             "    \"ts\": 2 \"dur\": 1\n"
                             "  },\n"
                             "  {\n"
                             "    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"after\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": 1\n"
                             "  }\n"
                             "  ]\n"
                             "}\n";
    const SourceBuilder b = importText(text);
    QCOMPARE(countDiagnostics(b, Diagnostic::Severity::Error), 1);
    const Diagnostic *d = findDiagnostic(b, "cannot read an event");
    QVERIFY(d);
    QCOMPARE(d->line, std::int64_t(8));
    QCOMPARE(d->offset, std::int64_t(text.find("2 \"dur\"") + 2));
    QCOMPARE(b.source().counts.spans, std::int64_t(2));
    QVERIFY(findSpan(b, "before"));
    QVERIFY(findSpan(b, "after"));
    QVERIFY(!findSpan(b, "broken"));
}

void TestKinetoFixtures::bareArrayChromeTrace()
{
    const SourceBuilder b = importText(R"([{"name": "a", "ph": "X", "ts": 10, "dur": 5, "pid": 1, "tid": 1},
                                         {"name": "b", "ph": "i", "ts": 12, "pid": 1, "tid": 1, "s": "t"}])",
                                       "chrome.json");
    QCOMPARE(QString::fromStdString(b.source().format), QStringLiteral("pytorch-trace"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.spans, std::int64_t(1));
    QCOMPARE(b.source().counts.instants, std::int64_t(1));
    QVERIFY(!b.source().hasClock);
    QCOMPARE(b.source().timeRange, (TimeRange{10000, 15000}));
    const Track *t = findTrack(b, TrackKind::CpuThread, "thread 1");
    QVERIFY(t);
    QCOMPARE(t->instants.size(), std::size_t(1));
}

void TestKinetoFixtures::cpuOnlyTrace()
{
    const SourceBuilder b = importText(R"({"schemaVersion": 1, "deviceProperties": [],
      "distributedInfo": {"backend": "gloo", "rank": 2, "world_size": 4},
      "traceEvents": [
        {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 5, "tid": 5, "ts": 100, "dur": 50},
        {"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 5, "tid": 5, "ts": 110, "dur": 5}
      ], "baseTimeNanoseconds": 1700000000000000000})");
    QVERIFY(b.source().diagnostics.empty());
    for (const Track &t : b.tracks())
        QCOMPARE(t.kind, TrackKind::CpuThread);
    QCOMPARE(b.source().ranks, (std::vector<RankId>{2}));
    QCOMPARE(b.source().worldSize, 4);
    QVERIFY(b.source().devices.empty());
    QCOMPARE(b.steps().size(), std::size_t(1));
    QCOMPARE(b.steps()[0].number, std::int64_t(3));
    QCOMPARE(b.steps()[0].range, (TimeRange{1700000000000100000, 1700000000000150000}));
}

void TestKinetoFixtures::rocmNames()
{
    const SourceBuilder b = importText(R"J({"schemaVersion": 1,
      "deviceProperties": [{"id": 0, "name": "AMD Instinct MI300X", "totalGlobalMem": 206141652992, "computeMajor": 9, "computeMinor": 4, "numSms": 304}],
      "roctracer_version": "4.1",
      "traceEvents": [
        {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 10, "tid": 10, "ts": 1, "dur": 2},
        {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)", "pid": 2, "tid": 1, "ts": 3, "dur": 10,
         "args": {"Collective name": "allreduce", "dtype": "BFloat16", "In msg nelems": 1024, "Out msg nelems": 1024, "Group size": 8, "Process Group Name": "0"}},
        {"ph": "X", "cat": "kernel", "name": "rcclGenericKernel", "pid": 2, "tid": 1, "ts": 20, "dur": 1},
        {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 10, "ts": 5,
         "args": {"Total Reserved": 2048, "Total Allocated": 1024, "Bytes": 1024, "Addr": 1, "Device Type": 6, "Device Id": 2}}
      ]})J");
    QVERIFY2(b.source().diagnostics.empty(), diagnosticsText(b).constData());
    QVERIFY(findSpan(b, "hipLaunchKernel")->flags & SpanFlagRuntime);
    QCOMPARE(b.collectives().size(), std::size_t(2));
    const Collective &c = b.collectives()[0];
    QCOMPARE(qs(b.str(c.op)), QStringLiteral("allreduce"));
    QCOMPARE(qs(b.str(c.dtype)), QStringLiteral("BFloat16"));
    QCOMPARE(c.groupSize, 8);
    QCOMPARE(c.inNelems, std::int64_t(1024));
    QCOMPARE(qs(b.str(b.collectives()[1].op)), QStringLiteral("rcclGenericKernel"));
    const Track *alloc = findTrack(b, TrackKind::MemoryAllocated, "GPU 2 memory allocated");
    const Track *reserved = findTrack(b, TrackKind::MemoryReserved, "GPU 2 memory reserved");
    QVERIFY(alloc && reserved);
    QCOMPARE(alloc->device, 2);
    QCOMPARE(alloc->counter.values, (std::vector<double>{1024.0}));
    QCOMPARE(reserved->counter.values, (std::vector<double>{2048.0}));
    QCOMPARE(b.source().devices.at(0).numSms, 304);
    QCOMPARE(b.source().devices.at(0).computeMajor, 9);
    QCOMPARE(b.source().metadataValue("roctracer_version"), std::string("\"4.1\""));
}

void TestKinetoFixtures::compressedFixtures_data()
{
    QTest::addColumn<QString>("codec");
    QTest::newRow("gzip") << "gzip";
    QTest::newRow("zstd") << "zstd";
}

void TestKinetoFixtures::compressedFixtures()
{
    QFETCH(QString, codec);
    const std::string text = fourEvents();
    const SourceBuilder b = importText(codec == "gzip" ? gzip(text) : zstd(text), "x.pt.trace.json.gz");
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().compression, codec == "gzip" ? Compression::Gzip : Compression::Zstd);
    QCOMPARE(b.source().counts.spans, std::int64_t(4));
}

void TestKinetoFixtures::notATrace_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("other object") << R"({"foo": 1, "bar": [1, 2]})";
    QTest::newRow("memory timeline") << R"([[1.0, 2.0], [[0, 1, 2, 3, 4, 5, 6, 7]]])";
    QTest::newRow("array of numbers") << "[1, 2, 3]";
    QTest::newRow("flight recorder json") << R"({"version": "2.2", "pg_config": {}, "entries": []})";
    QTest::newRow("empty array") << "[]";
    QTest::newRow("prose") << "hello world";
}

void TestKinetoFixtures::notATrace()
{
    QFETCH(QString, text);
    QCOMPARE(KinetoImporter().sniff(text.toStdString(), "x.json"), 0);
    // Other importers may claim some of these (the memory timeline has its own); this one must not.
    const SourceBuilder b = importText(text.toStdString());
    QVERIFY(b.source().format != "pytorch-trace");
    QCOMPARE(b.source().counts.spans, std::int64_t(0));
}

void TestKinetoFixtures::sniffScores_data()
{
    QTest::addColumn<QString>("head");
    QTest::addColumn<int>("score");
    QTest::newRow("kineto") << "\n {\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [],\n  \"traceEvents\": [" << 95;
    QTest::newRow("kineto, events beyond head") << "{\"schemaVersion\": 1, \"deviceProperties\": [" << 85;
    QTest::newRow("legacy object") << "{\"traceEvents\": [{\"ph\": \"X\"" << 70;
    QTest::newRow("events later") << "{\"otherData\": {}, \"traceEvents\": [{\"ph\": \"X\"" << 60;
    QTest::newRow("bare array") << "[{\"name\": \"a\", \"ph\": \"X\"" << 50;
    QTest::newRow("memory timeline") << "[[1, 2], [[0]]]" << 0;
}

void TestKinetoFixtures::sniffScores()
{
    QFETCH(QString, head);
    QFETCH(int, score);
    QCOMPARE(KinetoImporter().sniff(head.toStdString(), "t.json"), score);
}

void TestKinetoFixtures::fixtureFiles_data()
{
    // The files under tests/fixtures/kineto double as fuzzing seeds; here they go through importFile
    // and SessionBuilder like a user's files.
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("errors");
    QTest::addColumn<int>("warnings");
    QTest::addColumn<QList<qint64>>("counts"); // spans, instants, memory, counters, steps, collectives
    QTest::addColumn<bool>("hasClock");
    QTest::addColumn<int>("rank");
    QTest::addColumn<RankOrigin>("origin");
    QTest::newRow("kineto 2.4+, base after events") << "relative_base_after.pt.trace.json" << 0 << 0
                                                   << QList<qint64>{6, 2, 1, 0, 1, 1} << true << 1 << RankOrigin::Content;
    QTest::newRow("legacy chrome array") << "legacy_chrome_array.json" << 0 << 0 << QList<qint64>{2, 1, 0, 1, 0, 0} << false
                                         << 0 << RankOrigin::Assigned;
    QTest::newRow("quirks") << "quirks_rank-2.json" << 1 << 0 << QList<qint64>{3, 1, 0, 0, 0, 0} << false << 2
                            << RankOrigin::FileName;
    QTest::newRow("pytorch 1.9") << "old_absolute_1_9.pt.trace.json" << 0 << 1 << QList<qint64>{4, 0, 2, 0, 1, 0} << true << 0
                                 << RankOrigin::Assigned;
}

void TestKinetoFixtures::fixtureFiles()
{
    QFETCH(QString, file);
    QFETCH(int, errors);
    QFETCH(int, warnings);
    QFETCH(QList<qint64>, counts);
    QFETCH(bool, hasClock);
    QFETCH(int, rank);
    QFETCH(RankOrigin, origin);
    ImportContext ctx;
    SourceBuilder b = ImporterRegistry::instance().importFile(QStringLiteral(RANKSCOPE_FIXTURES_DIR "/kineto/%1").arg(file).toStdString(), ctx);
    QCOMPARE(countDiagnostics(b, Diagnostic::Severity::Error), errors);
    QVERIFY2(countDiagnostics(b, Diagnostic::Severity::Warning) == warnings, diagnosticsText(b).constData());
    const SourceCounts &c = b.source().counts;
    QCOMPARE((QList<qint64>{c.spans, c.instants, c.memoryEvents, c.counterSamples, c.steps, c.collectives}), counts);
    QCOMPARE(b.source().hasClock, hasClock);
    SessionBuilder sb;
    sb.addSource(std::move(b));
    const auto session = sb.freeze();
    QCOMPARE(session->sources()[0].ranks, (std::vector<RankId>{rank}));
    QCOMPARE(session->sources()[0].rankOrigin, origin);
}

QTEST_GUILESS_MAIN(TestKinetoFixtures)
#include "test_kineto_fixtures.moc"
