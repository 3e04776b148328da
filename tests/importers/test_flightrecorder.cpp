// NCCL flight-recorder dumps: sniffing by content (pickle and JSON, never a memory snapshot), the
// values read from the fixtures that tests/fixtures/flightrecorder/make_fixtures.py writes (a hang,
// a desync, a size mismatch, a JSON dump, a dump without a rank in its name, a truncated one and one
// full of odd values), the lanes and spans, ranks through SessionBuilder, and the unpickler's
// partial load on every possible cut of a dump.

#include "flightrecorder/flightrecorderimporter.h"
#include "importerregistry.h"
#include "pickle/restrictedunpickler.h"
#include "sessionbuilder.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <algorithm>

using namespace rs;

namespace {

const QString kFixtures = QStringLiteral(RANKSCOPE_FIXTURES_DIR "/flightrecorder/");

std::string readFixture(const QString &name)
{
    QFile f(kFixtures + name);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = f.readAll();
    return std::string(bytes.constData(), std::size_t(bytes.size()));
}

SourceBuilder importFixture(const QString &name)
{
    ImportContext ctx;
    return ImporterRegistry::instance().importFile(QString(kFixtures + name).toStdString(), ctx);
}

SourceBuilder importBytes(const std::string &bytes, const std::string &name)
{
    ImportContext ctx;
    return ImporterRegistry::instance().importBytes(bytes, name, ctx);
}

const Diagnostic *diagnostic(const SourceBuilder &b, const std::string &code)
{
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == code)
            return &d;
    return nullptr;
}

QStringList codes(const SourceBuilder &b)
{
    QStringList out;
    for (const Diagnostic &d : b.source().diagnostics)
        out << QString::fromStdString(d.code);
    return out;
}

const FlightRecord *bySeq(const SourceBuilder &b, const std::string &pgId, std::int64_t seq)
{
    for (const FlightRecord &r : b.flightRecorder().entries)
        if (r.pgId == pgId && r.collectiveSeq == seq && !r.isP2p)
            return &r;
    return nullptr;
}

const Track *lane(const SourceBuilder &b, const std::string &title)
{
    for (const Track &t : b.tracks())
        if (b.str(t.name) == title)
            return &t;
    return nullptr;
}

// A string as protocol 2 writes it: BINUNICODE, its length in 4 little-endian bytes.
std::string binUnicode(const std::string &s)
{
    std::string out("X");
    for (int i = 0; i < 4; ++i)
        out += char((s.size() >> (8 * i)) & 0xff);
    return out + s;
}

// {key: [] for key in keys} pickled with `protocol` (2: BINUNICODE keys; 4: a FRAME and SHORT_BINUNICODE).
QByteArray dictPickle(const std::vector<std::string> &keys, int protocol)
{
    std::string body = "}(";
    for (const std::string &k : keys)
        body += (protocol >= 4 ? std::string("\x8c") + char(k.size()) + k : binUnicode(k)) + "]";
    body += "u.";
    std::string out = "\x80";
    out += char(protocol);
    if (protocol >= 4) {
        out += '\x95';
        for (int i = 0; i < 8; ++i)
            out += char((body.size() >> (8 * i)) & 0xff);
    }
    return QByteArray::fromStdString(out + body);
}

using Shapes = std::vector<std::vector<std::int64_t>>;
constexpr TimeNs kBase = 1725875700'000'000'000LL; // make_fixtures.py BASE_NS

} // namespace

class TestFlightRecorder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sniffing_data();
    void sniffing();
    void realSnapshotsStaySnapshots();
    void hangDumps_data();
    void hangDumps();
    void entryValues();
    void lanesAndSpans();
    void sessionRanks();
    void rankFromContent_data();
    void rankFromContent();
    void jsonMatchesPickle();
    void desyncAndSizes_data();
    void desyncAndSizes();
    void brokenDumps_data();
    void brokenDumps();
    void everyCutKeepsCompleteEntries();
};

void TestFlightRecorder::sniffing_data()
{
    QTest::addColumn<QString>("fixture");   // a fixture file, or empty to use `bytes`
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("format");    // expected format id ("" = not recognised)
    for (int r = 0; r < 4; ++r)
        QTest::newRow(qPrintable(QStringLiteral("hang rank %1").arg(r)))
            << QStringLiteral("hang/nccl_trace_rank_%1").arg(r) << QByteArray() << "flight-recorder";
    QTest::newRow("desync 2.4") << "desync/nccl_trace_rank_2" << QByteArray() << "flight-recorder";
    QTest::newRow("size mismatch 2.7") << "sizemismatch/nccl_trace_rank_1" << QByteArray() << "flight-recorder";
    QTest::newRow("json dump") << "json/nccl_trace_rank_2" << QByteArray() << "flight-recorder";
    QTest::newRow("no rank in name") << "p2p/dump_from_host_b" << QByteArray() << "flight-recorder";
    QTest::newRow("truncated") << "truncated/nccl_trace_rank_0" << QByteArray() << "flight-recorder";
    QTest::newRow("truncated protocol 4") << "truncated_p4/nccl_trace_rank_1" << QByteArray() << "flight-recorder";
    QTest::newRow("odd values") << "odd/flightrecorder_dump" << QByteArray() << "flight-recorder";
    // Protocol 4 (Python's default) writes keys as SHORT_BINUNICODE inside a FRAME.
    QTest::newRow("protocol 4 keys") << QString() << dictPickle({"version", "entries", "pg_config"}, 4) << "flight-recorder";
    QTest::newRow("json, empty ring buffer") << QString()
                                             << QByteArray(R"({"pg_config":{"0":{"desc":"default_pg","name":"0","ranks":"[0]"}},)"
                                                           R"("pg_status":{},"version":"2.10"})")
                                             << "flight-recorder";
    // Near misses: a memory snapshot, a profiler trace and dicts that only share a word.
    QTest::newRow("snapshot pickle") << QString() << dictPickle({"segments", "entries", "version"}, 2) << "memory-snapshot";
    QTest::newRow("snapshot pickle, protocol 4") << QString() << dictPickle({"segments", "device_traces", "entries", "pg_config"}, 4)
                                                 << "memory-snapshot";
    QTest::newRow("pickle with only entries") << QString() << dictPickle({"entries"}, 2) << "";
    QTest::newRow("words inside a string") << QString()
                                           << QByteArray::fromStdString("\x80\x02}(" + binUnicode("note")
                                                                        + binUnicode("entries pg_config version") + "u.")
                                           << "";
    QTest::newRow("profiler trace with pg_config")
        << QString()
        << QByteArray(R"({"schemaVersion": 1, "distributedInfo": {"pg_config": [], "entries": 1, "version": 2}, "traceEvents": []})")
        << "pytorch-trace";
    QTest::newRow("json with version only") << QString() << QByteArray(R"({"version": "2.4", "ranks": [0, 1]})") << "";
}

void TestFlightRecorder::sniffing()
{
    QFETCH(QString, fixture);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, format);
    std::string data = fixture.isEmpty() ? bytes.toStdString() : readFixture(fixture);
    QVERIFY(!data.empty());
    const Importer *picked = ImporterRegistry::instance().pick(data, "dump");
    QCOMPARE(picked ? QString::fromLatin1(picked->formatId()) : QString(), format);
}

void TestFlightRecorder::realSnapshotsStaySnapshots()
{
    const QDir dir(QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot"));
    if (!dir.exists())
        QSKIP("shared samples are not present");
    int pickles = 0;
    for (const QString &sub : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        for (const QFileInfo &f : QDir(dir.filePath(sub)).entryInfoList(QDir::Files)) {
            QFile file(f.filePath());
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray head = file.read(4 << 20);
            if (head.size() < 2 || static_cast<unsigned char>(head[0]) != 0x80)
                continue;
            ++pickles;
            const Importer *picked = ImporterRegistry::instance().pick(std::string_view(head.constData(), std::size_t(head.size())),
                                                                       f.filePath().toStdString());
            QVERIFY2(picked && picked->formatId() == "memory-snapshot", qPrintable(f.filePath()));
        }
    }
    QVERIFY(pickles >= 4);
}

void TestFlightRecorder::hangDumps_data()
{
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("entries");       // 8 all_reduce (7 for rank 1) + 1 send/recv
    QTest::addColumn<int>("lastSeq");       // last all_reduce in PG 0
    QTest::addColumn<QString>("lastState");
    QTest::addColumn<QString>("pipeName");  // pg_config name of the rank's pipeline group
    QTest::addColumn<QList<int>>("pipeRanks");
    QTest::addColumn<QList<qint64>>("status"); // PG 0 last enqueued, started, completed
    QTest::newRow("rank 0") << 0 << 9 << 67 << "started" << "1" << QList<int>{0, 1} << QList<qint64>{67, 67, 66};
    QTest::newRow("rank 1 (never reaches 67)") << 1 << 8 << 66 << "completed" << "1" << QList<int>{0, 1}
                                               << QList<qint64>{66, 66, 66};
    QTest::newRow("rank 2") << 2 << 9 << 67 << "started" << "2" << QList<int>{2, 3} << QList<qint64>{67, 67, 66};
    QTest::newRow("rank 3") << 3 << 9 << 67 << "started" << "2" << QList<int>{2, 3} << QList<qint64>{67, 67, 66};
}

void TestFlightRecorder::hangDumps()
{
    QFETCH(int, rank);
    QFETCH(int, entries);
    QFETCH(int, lastSeq);
    QFETCH(QString, lastState);
    QFETCH(QString, pipeName);
    QFETCH(QList<int>, pipeRanks);
    QFETCH(QList<qint64>, status);
    const SourceBuilder b = importFixture(QStringLiteral("hang/nccl_trace_rank_%1").arg(rank));
    QCOMPARE(b.source().format, std::string("flight-recorder"));
    QVERIFY2(b.source().diagnostics.empty(), qPrintable(codes(b).join(", ")));
    const FlightRecorderEvidence &fr = b.flightRecorder();
    QCOMPARE(int(fr.entries.size()), entries);
    QCOMPARE(b.source().counts.collectives, std::int64_t(entries));
    QCOMPARE(b.source().worldSize, 4);
    QCOMPARE(b.source().metadataValue("version"), std::string("2.10"));
    QCOMPARE(b.source().metadataValue("comm_lib_version"), std::string("2.21.5"));
    // Entries keep dump order and their index.
    for (std::size_t i = 0; i < fr.entries.size(); ++i)
        QCOMPARE(fr.entries[i].index, std::int64_t(i));
    const FlightRecord *last = nullptr;
    for (const FlightRecord &r : fr.entries)
        if (!r.isP2p)
            last = &r;
    QVERIFY(last);
    QCOMPARE(last->collectiveSeq, std::int64_t(lastSeq));
    QCOMPARE(QString::fromLatin1(last->state == FlightRecord::State::Started ? "started" : last->state == FlightRecord::State::Completed ? "completed" : "scheduled"),
             lastState);
    QCOMPARE(last->completed == kNoTime, lastState != "completed");
    QVERIFY(!bySeq(b, "0", 68));
    QCOMPARE(bySeq(b, "0", 67) != nullptr, lastSeq == 67);
    // pg_config: the default group and the rank's own pipeline group, ranks parsed from "[2, 3]".
    QCOMPARE(int(fr.groups.size()), 2);
    QCOMPARE(fr.groups[0].pgId, std::string("0"));
    QCOMPARE(fr.groups[0].desc, std::string("default_pg"));
    QCOMPARE(fr.groups[0].ranks, (std::vector<RankId>{0, 1, 2, 3}));
    QCOMPARE(QString::fromStdString(fr.groups[1].pgId), pipeName);
    QCOMPARE(QString::fromStdString(fr.groups[1].name), pipeName);
    QCOMPARE(fr.groups[1].desc, std::string("pipeline"));
    QCOMPARE(fr.groups[1].ranks, (std::vector<RankId>(pipeRanks.begin(), pipeRanks.end())));
    // pg_status is keyed by pg_id: "0" and the process-local "1".
    QCOMPARE(int(fr.status.size()), 2);
    QCOMPARE(fr.status[0].pgId, std::string("0"));
    QCOMPARE(fr.status[0].lastEnqueued, status[0]);
    QCOMPARE(fr.status[0].lastStarted, status[1]);
    QCOMPARE(fr.status[0].lastCompleted, status[2]);
    QCOMPARE(fr.status[1].pgId, std::string("1"));
    QCOMPARE(fr.status[1].lastCompleted, std::int64_t(0));
    // The content names the rank through its send/recv, and it agrees with the file name.
    QCOMPARE(b.source().ranks, (std::vector<RankId>{rank}));
    QVERIFY(b.source().hasClock);
}

void TestFlightRecorder::entryValues()
{
    const SourceBuilder b = importFixture("hang/nccl_trace_rank_2");
    const FlightRecord *e = bySeq(b, "0", 60);
    QVERIFY(e);
    QCOMPARE(e->index, std::int64_t(0));
    QCOMPARE(e->recordId, std::int64_t(120));
    QCOMPARE(e->pgName, std::string("0"));
    QCOMPARE(e->pgDesc, std::string("default_pg"));
    QCOMPARE(e->p2pSeq, std::int64_t(0));
    QCOMPARE(e->opId, std::int64_t(300));
    QCOMPARE(e->profilingName, std::string("nccl:all_reduce"));
    QVERIFY(!e->isP2p);
    QCOMPARE(e->inputSizes, (Shapes{{1024, 1024}}));
    QCOMPARE(e->outputSizes, (Shapes{{1024, 1024}}));
    QCOMPARE(e->inputDtypes, std::vector<std::string>{"Float"});
    QCOMPARE(e->outputDtypes, std::vector<std::string>{"Float"});
    QCOMPARE(e->state, FlightRecord::State::Completed);
    QCOMPARE(e->created, kBase + 2 * 150'000);
    QCOMPARE(e->started, e->created + 1'000'000);
    QCOMPARE(e->completed, e->created + 40'000'000);
    QCOMPARE(e->durationMs, 38.5);
    QCOMPARE(e->timeoutMs, std::int64_t(600000));
    QVERIFY(e->retired);
    // Frames: innermost first; the same call site shares one stack.
    QVERIFY(e->stack >= 0);
    const auto &frames = b.flightRecorder().stacks[std::size_t(e->stack)];
    QCOMPARE(int(frames.size()), 4);
    QCOMPARE(frames[0].name, std::string("all_reduce"));
    QVERIFY(frames[0].filename.ends_with("torch/distributed/distributed_c10d.py"));
    QCOMPARE(frames[0].line, 2501);
    QCOMPARE(frames[3].name, std::string("main"));
    QCOMPARE(bySeq(b, "0", 67)->stack, e->stack);
    QCOMPARE(int(b.flightRecorder().stacks.size()), 2); // all_reduce and send
    // The stuck one: started, not completed, not retired, no duration.
    const FlightRecord *stuck = bySeq(b, "0", 67);
    QCOMPARE(stuck->state, FlightRecord::State::Started);
    QCOMPARE(stuck->started, stuck->created + 1'000'000);
    QCOMPARE(stuck->completed, kNoTime);
    QCOMPARE(stuck->durationMs, -1.0);
    QVERIFY(!stuck->retired);
    // The pipeline send: pg_id 1 of group "2", its own sequence, bf16.
    const auto p2p = std::find_if(b.flightRecorder().entries.begin(), b.flightRecorder().entries.end(),
                                  [](const FlightRecord &r) { return r.isP2p; });
    QVERIFY(p2p != b.flightRecorder().entries.end());
    QCOMPARE(p2p->pgId, std::string("1"));
    QCOMPARE(p2p->pgName, std::string("2"));
    QCOMPARE(p2p->pgDesc, std::string("pipeline"));
    QCOMPARE(p2p->profilingName, std::string("nccl:send 0->1"));
    QCOMPARE(p2p->p2pSeq, std::int64_t(1));
    QCOMPARE(p2p->inputDtypes, std::vector<std::string>{"BFloat16"});
    QCOMPARE(p2p->inputSizes, (Shapes{{64, 512}}));
}

void TestFlightRecorder::lanesAndSpans()
{
    const SourceBuilder b = importFixture("hang/nccl_trace_rank_0");
    const Track *pg0 = lane(b, "NCCL PG 0 (default_pg)");
    const Track *pipe = lane(b, "NCCL PG 1 (pipeline)");
    QVERIFY(pg0);
    QVERIFY(pipe);
    QCOMPARE(pg0->kind, TrackKind::GpuStream);
    QCOMPARE(int(pg0->spans.size()), 8);
    QCOMPARE(int(pipe->spans.size()), 1);
    QCOMPARE(b.source().counts.spans, std::int64_t(9));
    QCOMPARE(int(b.tracks().size()), 2);
    TimeNs last = 0;
    for (const FlightRecord &r : b.flightRecorder().entries)
        last = std::max({last, r.created, r.started, r.completed});
    for (const Span &s : pg0->spans) {
        const std::string name(b.str(s.name));
        QVERIFY(s.flags & SpanFlagCollective);
        QCOMPARE(std::string(b.str(s.category)), std::string("flight_recorder"));
        if (name.starts_with("nccl:all_reduce #67")) {
            // Still running at the dump: it runs to the dump's last time stamp and says so.
            QCOMPARE(name, std::string("nccl:all_reduce #67 (started, not completed)"));
            QCOMPARE(s.end(), last);
        } else {
            QVERIFY2(name.size() == std::string("nccl:all_reduce #6x").size(), name.c_str());
            QCOMPARE(s.duration, TimeNs(39'000'000)); // started +1 ms, completed +40 ms
        }
    }
    QCOMPARE(std::string(b.str(pipe->spans[0].name)), std::string("nccl:send 0->1 p2p #1"));
    QCOMPARE(b.source().timeRange.begin, kBase + 1'000'000);
    QCOMPARE(b.source().timeRange.end, last + 1);
    QVERIFY(b.source().hasClock);
}

void TestFlightRecorder::sessionRanks()
{
    SessionBuilder sb;
    for (int r = 3; r >= 0; --r)
        sb.addSource(importFixture(QStringLiteral("hang/nccl_trace_rank_%1").arg(r)));
    const auto s = sb.freeze();
    QCOMPARE(int(s->ranks().size()), 4);
    QCOMPARE(int(s->flightRecorder().entries.size()), 9 + 8 + 9 + 9);
    QCOMPARE(int(s->flightRecorder().groups.size()), 8);
    QCOMPARE(int(s->flightRecorder().status.size()), 8);
    std::map<RankId, std::int64_t> lastSeq;
    for (const FlightRecord &r : s->flightRecorder().entries) {
        QVERIFY(r.rank >= 0 && r.rank < 4);
        QCOMPARE(s->sources()[r.source].ranks, std::vector<RankId>{r.rank});
        if (!r.isP2p)
            lastSeq[r.rank] = std::max(lastSeq[r.rank], r.collectiveSeq);
        // Stacks were rebased onto the session's list.
        QVERIFY(r.stack >= 0 && std::size_t(r.stack) < s->flightRecorder().stacks.size());
        QCOMPARE(s->flightRecorder().stacks[std::size_t(r.stack)][0].name,
                 r.isP2p ? std::string(r.profilingName.find("send") != std::string::npos ? "send" : "recv")
                         : std::string("all_reduce"));
    }
    QCOMPARE(lastSeq, (std::map<RankId, std::int64_t>{{0, 67}, {1, 66}, {2, 67}, {3, 67}}));
    for (const Rank &r : s->ranks()) {
        QCOMPARE(int(r.tracks.size()), 2);
        QVERIFY(!r.timeRange.isEmpty());
    }
    // The Details panel shows each span's args: the entry's values and whether it completed.
    int stuck = 0;
    for (TrackId id = 0; id < s->tracks().size(); ++id) {
        for (const Span &sp : s->tracks()[id].spans) {
            const std::string args(s->args(id, sp.args));
            QVERIFY2(args.find("\"collective_seq_id\":") != std::string::npos, args.c_str());
            QVERIFY(args.find("\"input_sizes\":[[") != std::string::npos);
            QVERIFY(args.find("\"input_dtypes\":[\"") != std::string::npos);
            QVERIFY(args.find("\"frames\":[\"") != std::string::npos);
            if (s->str(sp.name) == "nccl:all_reduce #67 (started, not completed)") {
                ++stuck;
                QVERIFY(args.find("\"state\":\"started\",\"completed\":false") != std::string::npos);
                QVERIFY(args.find("\"time_discovered_completed_ns\":null") != std::string::npos);
            } else {
                QVERIFY2(args.find("\"completed\":true") != std::string::npos, args.c_str());
            }
        }
    }
    QCOMPARE(stuck, 3);
    for (const Source &src : s->sources())
        QCOMPARE(src.rankOrigin, RankOrigin::Content);
}

void TestFlightRecorder::rankFromContent_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("name");      // name given to the bytes
    QTest::addColumn<int>("rank");          // importer's rank, -1 = none (the file name decides later)
    QTest::addColumn<int>("frozenRank");    // rank after SessionBuilder
    QTest::addColumn<QString>("origin");
    QTest::addColumn<QString>("code");      // expected diagnostic, "" = none at all
    QTest::newRow("recv names rank 3, no name") << "p2p/dump_from_host_b" << "dump_from_host_b" << 3 << 3 << "content" << "";
    QTest::newRow("name agrees") << "hang/nccl_trace_rank_3" << "nccl_trace_rank_3" << 3 << 3 << "content" << "";
    QTest::newRow("name disagrees") << "hang/nccl_trace_rank_3" << "/tmp/nccl_trace_rank_1" << 3 << 3 << "content"
                                    << "fr-rank-conflict";
    QTest::newRow("collectives only: the name decides") << "desync/nccl_trace_rank_2" << "/tmp/nccl_trace_rank_2" << -1 << 2
                                                         << "file-name" << "";
    QTest::newRow("neither") << "desync/nccl_trace_rank_2" << "dump.bin" << -1 << 0 << "assigned" << "fr-no-rank";
}

void TestFlightRecorder::rankFromContent()
{
    QFETCH(QString, fixture);
    QFETCH(QString, name);
    QFETCH(int, rank);
    QFETCH(int, frozenRank);
    QFETCH(QString, origin);
    QFETCH(QString, code);
    SourceBuilder b = importBytes(readFixture(fixture), name.toStdString());
    QCOMPARE(b.source().format, std::string("flight-recorder"));
    QCOMPARE(b.source().ranks, rank < 0 ? std::vector<RankId>{} : std::vector<RankId>{rank});
    if (code.isEmpty())
        QVERIFY2(b.source().diagnostics.empty(), qPrintable(codes(b).join(", ")));
    else
        QCOMPARE(codes(b), QStringList{code});
    SessionBuilder sb;
    sb.addSource(std::move(b));
    const auto s = sb.freeze();
    QCOMPARE(s->sources()[0].ranks, std::vector<RankId>{frozenRank});
    QCOMPARE(QString::fromLatin1(rankOriginName(s->sources()[0].rankOrigin)), origin);
    for (const FlightRecord &r : s->flightRecorder().entries)
        QCOMPARE(r.rank, frozenRank);
}

void TestFlightRecorder::jsonMatchesPickle()
{
    const SourceBuilder json = importFixture("json/nccl_trace_rank_2");
    const SourceBuilder pickle = importFixture("hang/nccl_trace_rank_2");
    QCOMPARE(json.source().format, std::string("flight-recorder"));
    QVERIFY2(json.source().diagnostics.empty(), qPrintable(codes(json).join(", ")));
    const auto &a = json.flightRecorder();
    const auto &b = pickle.flightRecorder();
    QCOMPARE(a.entries.size(), b.entries.size());
    for (std::size_t i = 0; i < a.entries.size(); ++i) {
        const FlightRecord &x = a.entries[i];
        const FlightRecord &y = b.entries[i];
        QCOMPARE(x.recordId, y.recordId);
        QCOMPARE(x.pgId, y.pgId);
        QCOMPARE(x.pgName, y.pgName);
        QCOMPARE(x.pgDesc, y.pgDesc);
        QCOMPARE(x.collectiveSeq, y.collectiveSeq);
        QCOMPARE(x.p2pSeq, y.p2pSeq);
        QCOMPARE(x.profilingName, y.profilingName);
        QCOMPARE(x.inputSizes, y.inputSizes);
        QCOMPARE(x.outputDtypes, y.outputDtypes);
        QCOMPARE(x.state, y.state);
        QCOMPARE(x.created, y.created);
        QCOMPARE(x.started, y.started);   // JSON writes 0 for "not yet": both are kNoTime
        QCOMPARE(x.completed, y.completed);
        QCOMPARE(x.durationMs, y.durationMs);
        QCOMPARE(x.retired, y.retired);
        QCOMPARE(x.stack, -1);            // dump_json has no frames
    }
    QCOMPARE(a.groups.size(), b.groups.size());
    for (std::size_t i = 0; i < a.groups.size(); ++i)
        QCOMPARE(a.groups[i].ranks, b.groups[i].ranks);
    QCOMPARE(a.status.size(), b.status.size());
    for (std::size_t i = 0; i < a.status.size(); ++i) { // JSON prints these as strings
        QCOMPARE(a.status[i].lastEnqueued, b.status[i].lastEnqueued);
        QCOMPARE(a.status[i].lastCompleted, b.status[i].lastCompleted);
    }
    QCOMPARE(json.source().ranks, pickle.source().ranks);
    QCOMPARE(json.source().timeRange, pickle.source().timeRange);
    QCOMPARE(json.source().counts.spans, pickle.source().counts.spans);
}

void TestFlightRecorder::desyncAndSizes_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<qint64>("seq");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("state");
    QTest::addColumn<qint64>("numel");   // first input's first dimension
    QTest::addColumn<QString>("dtype");
    QTest::addColumn<QString>("version");
    QTest::newRow("desync rank 0") << "desync/nccl_trace_rank_0" << qint64(67) << "nccl:all_reduce" << "started" << qint64(4096)
                                   << "Float" << "2.4";
    QTest::newRow("desync rank 2 broadcasts") << "desync/nccl_trace_rank_2" << qint64(67) << "nccl:broadcast" << "started"
                                              << qint64(4096) << "Float" << "2.4";
    QTest::newRow("desync rank 2 before") << "desync/nccl_trace_rank_2" << qint64(66) << "nccl:all_reduce" << "completed"
                                          << qint64(4096) << "Float" << "2.4";
    QTest::newRow("sizes rank 0") << "sizemismatch/nccl_trace_rank_0" << qint64(12) << "nccl:all_reduce" << "scheduled"
                                  << qint64(1024) << "Half" << "2.7";
    QTest::newRow("sizes rank 1 halves") << "sizemismatch/nccl_trace_rank_1" << qint64(12) << "nccl:all_reduce"
                                         << "scheduled" << qint64(512) << "Half" << "2.7";
    QTest::newRow("sizes rank 1 before") << "sizemismatch/nccl_trace_rank_1" << qint64(11) << "nccl:all_reduce"
                                         << "completed" << qint64(1024) << "Half" << "2.7";
}

void TestFlightRecorder::desyncAndSizes()
{
    QFETCH(QString, fixture);
    QFETCH(qint64, seq);
    QFETCH(QString, op);
    QFETCH(QString, state);
    QFETCH(qint64, numel);
    QFETCH(QString, dtype);
    QFETCH(QString, version);
    const SourceBuilder b = importFixture(fixture);
    QVERIFY2(b.source().diagnostics.empty(), qPrintable(codes(b).join(", ")));
    QCOMPARE(QString::fromStdString(b.source().metadataValue("version")), version);
    QCOMPARE(b.source().metadataValue("comm_lib_version").empty(), version == "2.4");
    const FlightRecord *e = bySeq(b, "0", seq);
    QVERIFY(e);
    QCOMPARE(QString::fromStdString(e->profilingName), op);
    const char *names[] = {"scheduled", "started", "completed"};
    QCOMPARE(QString::fromLatin1(names[int(e->state)]), state);
    QCOMPARE(e->inputSizes.size(), std::size_t(1));
    QCOMPARE(e->inputSizes[0][0], numel);
    QCOMPARE(e->inputDtypes, std::vector<std::string>{dtype.toStdString()});
    // A scheduled entry never started: its span starts when it was created and says so.
    if (state == "scheduled") {
        QCOMPARE(e->started, kNoTime);
        bool found = false;
        for (const Track &t : b.tracks())
            for (const Span &s : t.spans)
                found = found || b.str(s.name) == op.toStdString() + " #" + std::to_string(seq) + " (scheduled, not started)";
        QVERIFY(found);
    }
}

void TestFlightRecorder::brokenDumps_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QStringList>("expected");  // codes that must be reported
    QTest::addColumn<int>("entries");           // entries kept
    QTest::addColumn<bool>("hasErrors");
    QTest::newRow("truncated pickle") << "truncated/nccl_trace_rank_0" << QByteArray()
                                      << QStringList{"pickle-truncated", "fr-truncated-entry"} << 5 << true;
    // Re-saved by Python (protocol 4): the one FRAME announces more bytes than the cut file holds.
    QTest::newRow("truncated protocol 4") << "truncated_p4/nccl_trace_rank_1" << QByteArray()
                                          << QStringList{"pickle-truncated", "fr-truncated-entry"} << 5 << true;
    QTest::newRow("odd values") << "odd/flightrecorder_dump" << QByteArray()
                                << QStringList{"fr-unknown-version", "fr-bad-group", "fr-bad-status", "fr-entry-no-seq",
                                               "fr-bad-field", "fr-bad-state", "fr-entry-no-time", "fr-entry-not-dict",
                                               "fr-no-rank"}
                                << 5 << false;
    QTest::newRow("not a dict") << QString() << QByteArray(R"([{"entries":[],"pg_config":{}}])") << QStringList{"fr-not-dict"}
                                << 0 << true;
    QTest::newRow("truncated json") << QString() << QByteArray(R"({"entries":[{"collective_seq_id":1,"pg_id":0},{"coll)")
                                    << QStringList{"fr-json-invalid"} << 0 << true;
    QTest::newRow("newer minor version") << QString()
                                         << QByteArray(R"({"entries":[],"pg_config":{},"pg_status":{},"version":"2.11"})")
                                         << QStringList{"fr-newer-version", "fr-no-rank"} << 0 << false;
    QTest::newRow("pickle asks for a global")
        << QString()
        << QByteArray::fromStdString("\x80\x02}(" + binUnicode("entries") + binUnicode("pg_config") + "cos\nsystem\nu.")
        << QStringList{"pickle-forbidden"} << 0 << true;
    // Found fuzzing: a float past int64 in an integer field was converted (undefined behaviour).
    QTest::newRow("float seq past 2^63")
        << QString()
        << QByteArray(R"({"entries":[{"collective_seq_id":6.17259e19,"pg_id":0,"process_group":["0","default_pg"],)"
                      R"("profiling_name":"nccl:all_reduce","state":"completed","time_created_ns":1700000000000000000}],)"
                      R"("pg_config":{},"version":"2.4"})")
        << QStringList{"fr-bad-field", "fr-no-rank"} << 1 << false;
    QTest::newRow("times that are not epoch ns")
        << QString()
        << QByteArray(R"({"entries":[{"collective_seq_id":1,"pg_id":0,"process_group":["0","default_pg"],"profiling_name":"nccl:all_reduce",)"
                      R"("state":"completed","time_created_ns":5000,"time_discovered_started_ns":6000,"time_discovered_completed_ns":9000}],)"
                      R"("pg_config":{},"version":"2.4"})")
        << QStringList{"fr-time-not-epoch", "fr-no-rank"} << 1 << false;
}

void TestFlightRecorder::brokenDumps()
{
    QFETCH(QString, fixture);
    QFETCH(QByteArray, bytes);
    QFETCH(QStringList, expected);
    QFETCH(int, entries);
    QFETCH(bool, hasErrors);
    const std::string data = fixture.isEmpty() ? bytes.toStdString() : readFixture(fixture);
    const std::string name = fixture.isEmpty() ? "dump" : fixture.toStdString();
    ImportContext ctx;
    SourceBuilder b(name);
    std::string err;
    auto in = InputStream::fromMemory(data, &err);
    QVERIFY(in);
    FlightRecorderImporter().import(*in, b, ctx);
    QStringList got = codes(b);
    QStringList want = expected;
    got.sort();
    want.sort();
    QCOMPARE(got, want);
    QCOMPARE(int(b.flightRecorder().entries.size()), entries);
    QCOMPARE(b.source().hasErrors(), hasErrors);
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code.starts_with("pickle-") || d.code == "fr-json-invalid")
            QVERIFY2(d.offset > 0, d.code.c_str());
    if (fixture == "odd/flightrecorder_dump") {
        // Odd values still leave the good parts: the bad field is left out, the rest is kept.
        QCOMPARE(diagnostic(b, "fr-bad-field")->offset > 0, true);
        QCOMPARE(b.flightRecorder().entries[1].collectiveSeq, std::int64_t(-1));
        QVERIFY(b.flightRecorder().entries[2].inputSizes.empty());
        QCOMPARE(b.flightRecorder().entries[2].outputSizes, (Shapes{{8}}));
        QCOMPARE(b.flightRecorder().entries[3].state, FlightRecord::State::Completed);
        QCOMPARE(b.flightRecorder().entries[4].created, kNoTime);
        QCOMPARE(b.flightRecorder().groups.size(), std::size_t(1));
        QVERIFY(b.flightRecorder().groups[0].ranks.empty());
        QVERIFY(b.flightRecorder().status.empty());
        QCOMPARE(b.source().metadataValue("version"), std::string("3.1"));
    }
    if (fixture.startsWith("truncated")) {
        // What was kept is exactly what the whole dump says for those entries.
        const SourceBuilder whole = importFixture("hang/" + fixture.section('/', 1));
        for (const FlightRecord &r : b.flightRecorder().entries) {
            const FlightRecord &w = whole.flightRecorder().entries[std::size_t(r.index)];
            QCOMPARE(r.collectiveSeq, w.collectiveSeq);
            QCOMPARE(r.completed, w.completed);
            QCOMPARE(r.inputSizes, w.inputSizes);
        }
        QCOMPARE(b.flightRecorder().groups.size(), std::size_t(2));
        QCOMPARE(b.flightRecorder().status.size(), std::size_t(2));
        QVERIFY(b.source().counts.spans > 0);
    }
}

void TestFlightRecorder::everyCutKeepsCompleteEntries()
{
    const std::string whole = readFixture("hang/nccl_trace_rank_1");
    QVERIFY(!whole.empty());
    const SourceBuilder full = importBytes(whole, "nccl_trace_rank_1");
    const auto &all = full.flightRecorder().entries;
    std::size_t previous = 0;
    for (std::size_t n = 2; n < whole.size(); ++n) {
        const std::string cut = whole.substr(0, n);
        ImportContext ctx;
        SourceBuilder b("nccl_trace_rank_1");
        std::string err;
        auto in = InputStream::fromMemory(cut, &err);
        FlightRecorderImporter().import(*in, b, ctx);
        QVERIFY(b.source().hasErrors());
        const auto &kept = b.flightRecorder().entries;
        QVERIFY2(kept.size() >= previous, qPrintable(QStringLiteral("cut at %1").arg(n)));
        QVERIFY(kept.size() <= all.size());
        for (const FlightRecord &r : kept) {
            const FlightRecord &w = all[std::size_t(r.index)];
            QCOMPARE(r.collectiveSeq, w.collectiveSeq);
            QCOMPARE(r.profilingName, w.profilingName);
            QCOMPARE(r.state, w.state);
            QCOMPARE(r.completed, w.completed);
            QCOMPARE(r.stack >= 0, true);
        }
        previous = kept.size();
    }
    QCOMPARE(previous, all.size()); // cut before STOP only: every entry is complete
}

QTEST_GUILESS_MAIN(TestFlightRecorder)
#include "test_flightrecorder.moc"
