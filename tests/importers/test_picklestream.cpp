// Pickles and flight-recorder dumps are decoded as they are read: hostile lengths fail before
// anything is allocated, peak memory stays bounded (measured with getrusage's high-water mark),
// chunk boundaries change nothing, and errors carry the same code and offset as from memory.
// Fixtures are built here: a few KiB of concatenated zstd frames or gzip members that inflate to
// gigabytes.

#include "flightrecorder/flightrecorderimporter.h"
#include "kinetotesthelpers.h"
#include "peakmemory.h"
#include "pickle/restrictedunpickler.h"
#include "snapshot/snapshotimporter.h"

#include <QFile>

#include <QTest>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>

using namespace rs;

namespace {

constexpr std::uint64_t MiB = std::uint64_t(1) << 20;
constexpr std::uint64_t GiB = std::uint64_t(1) << 30;

// Start of an allocator snapshot: PROTO 2, EMPTY_DICT, BINUNICODE "segments" (16 bytes).
const std::string kSnapshotHead("\x80\x02}X\x08\x00\x00\x00segments", 16);

std::string le(std::uint64_t v, int n)
{
    std::string s;
    for (int i = 0; i < n; ++i)
        s += char((v >> (8 * i)) & 0xff);
    return s;
}

std::string binUnicode(const std::string &s)
{
    return "X" + le(s.size(), 4) + s;
}

// Start of a flight-recorder dump: {(entries: [], pg_config: {}, version: ... (the value follows).
const std::string kDumpHead = std::string("\x80\x02}(", 4) + binUnicode("entries") + "]" + binUnicode("pg_config") + "}"
    + binUnicode("version");

enum class Pack { Zstd, Gzip };

// `head`, `count` bytes of `fill`, then `tail`, as concatenated zstd frames or gzip members.
std::string inflating(Pack pack, const std::string &head, std::uint64_t count, char fill, const std::string &tail)
{
    auto compress = [pack](std::string_view s) { return pack == Pack::Zstd ? test::zstd(s) : test::gzip(s); };
    std::string out = compress(head);
    const std::string block(std::size_t(16 * MiB), fill);
    const std::string packed = compress(block);
    for (; count >= block.size(); count -= block.size())
        out += packed;
    if (count > 0)
        out += compress(std::string(std::size_t(count), fill));
    return out + compress(tail);
}

QByteArray bytes(const std::string &s)
{
    return QByteArray(s.data(), qsizetype(s.size()));
}

std::string repeat(const std::string &unit, std::size_t n)
{
    std::string s;
    s.reserve(unit.size() * n);
    for (std::size_t i = 0; i < n; ++i)
        s += unit;
    return s;
}

// A readable picture of a decoded value, to compare two decodes.
void dump(const PickleValue &v, std::string &out, int depth = 0)
{
    out += std::to_string(int(v.type)) + '@' + std::to_string(v.offset) + (v.partial ? "p" : "") + ':';
    if (depth > 50) // memo references can make cycles
        return;
    switch (v.type) {
    case PickleValue::Type::Bool: out += v.boolean ? "T" : "F"; break;
    case PickleValue::Type::Int:
    case PickleValue::Type::BigInt: out += std::to_string(v.integer); break;
    case PickleValue::Type::Float: out += std::to_string(v.real); break;
    case PickleValue::Type::String:
    case PickleValue::Type::Bytes: out += std::to_string(v.text.size()) + '"' + v.text.substr(0, 64) + '"'; break;
    default: break;
    }
    for (const auto &i : v.items)
        dump(*i, out += ' ', depth + 1);
    for (const auto &[k, val] : v.entries) {
        dump(*k, out += " {", depth + 1);
        dump(*val, out += '=', depth + 1);
    }
    out += ';';
}

// Bytes in memory handed out at most `chunk` at a time.
RestrictedUnpickler::Source chunked(const std::string &data, std::size_t chunk, std::size_t &at)
{
    RestrictedUnpickler::Source s;
    s.read = [&data, chunk, &at](char *dst, std::size_t n) {
        const std::size_t k = std::min({n, chunk, data.size() - at});
        std::memcpy(dst, data.data() + at, k);
        at += k;
        return k;
    };
    return s;
}

struct Decoded {
    PickleRef root;
    RestrictedUnpickler::Error error;
};

// Decodes `data` the way the importers do: out of a zstd stream, its size unknown.
Decoded fromZstd(const std::string &data, bool partial, const RestrictedUnpickler::Limits &limits = {})
{
    std::string err;
    auto in = InputStream::fromMemory(test::zstd(data), &err);
    ImportContext ctx;
    Decoded d;
    const auto source = RestrictedUnpickler::fromStream(*in, ctx);
    d.root = partial ? RestrictedUnpickler::loadPartial(source, limits, d.error) : RestrictedUnpickler::load(source, limits, d.error);
    return d;
}

Decoded fromMemory(const std::string &data, bool partial, const RestrictedUnpickler::Limits &limits = {})
{
    Decoded d;
    d.root = partial ? RestrictedUnpickler::loadPartial(data, limits, d.error) : RestrictedUnpickler::load(data, limits, d.error);
    return d;
}

std::string readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

} // namespace

class TestPickleStream : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void bombs_data();
    void bombs();
    void bigStringIsHeldOnce();
    void chunkBoundariesChangeNothing_data();
    void chunkBoundariesChangeNothing();
    void cutsReportAsFromMemory_data();
    void cutsReportAsFromMemory();
    void byteCap();
    void memoryBudget_data();
    void memoryBudget();
    void budgetGrowsWithTheInput();
    void cancelStopsReading();
};

void TestPickleStream::bombs_data()
{
    QTest::addColumn<QByteArray>("file");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("code");
    QTest::addColumn<qint64>("offset"); // -1: anywhere past the start
    QTest::addColumn<int>("maxGrowthMiB");
    const std::string fr = "nccl_trace_rank_0";
    const std::string frame = std::string("\x80\x04\x95", 3) + le(std::uint64_t(1) << 62, 8) + std::string("}\x8c\x08segments]u.", 14);
    const std::string jsonHead = R"({"entries":[],"pg_config":{},"version":")";

    QTest::newRow("BINUNICODE8 claims 3 GiB, all there (zstd)")
        << bytes(inflating(Pack::Zstd, kSnapshotHead + "\x8d" + le(3 * GiB, 8), 3 * GiB, 'a', "s.")) << "snapshot.pickle"
        << "memory-snapshot" << "pickle-too-large" << qint64(16) << 64;
    QTest::newRow("BINBYTES8 claims 3 GiB (gzip)")
        << bytes(inflating(Pack::Gzip, kSnapshotHead + "\x8e" + le(3 * GiB, 8), 64 * MiB, '\0', "s.")) << "snapshot.pickle"
        << "memory-snapshot" << "pickle-too-large" << qint64(16) << 64;
    QTest::newRow("BINUNICODE of 300 MiB, all there (zstd)")
        << bytes(inflating(Pack::Zstd, kSnapshotHead + "X" + le(300 * MiB, 4), 300 * MiB, 'a', "s.")) << "snapshot.pickle"
        << "memory-snapshot" << "pickle-too-large" << qint64(16) << 64;
    QTest::newRow("flight recorder: BINUNICODE8 claims 3 GiB (zstd)")
        << bytes(inflating(Pack::Zstd, kDumpHead + "\x8d" + le(3 * GiB, 8), 3 * GiB, 'a', "u.")) << QString::fromStdString(fr)
        << "flight-recorder" << "pickle-too-large" << qint64(kDumpHead.size()) << 64;
    QTest::newRow("BINBYTES8 claims 200 MiB, cut after 1 KiB (zstd)")
        << bytes(inflating(Pack::Zstd, kSnapshotHead + "\x8e" + le(200 * MiB, 8), 1024, 'a', "")) << "snapshot.pickle"
        << "memory-snapshot" << "pickle-truncated" << qint64(25) << 16;
    QTest::newRow("FRAME of 2^62 bytes (zstd)") << bytes(test::zstd(frame)) << "snapshot.pickle" << "memory-snapshot"
                                                << "pickle-bad-frame" << qint64(2) << 16;
    QTest::newRow("FRAME of 2^62 bytes (gzip)") << bytes(test::gzip(frame)) << "snapshot.pickle" << "memory-snapshot"
                                                << "pickle-bad-frame" << qint64(2) << 16;
    QTest::newRow("lists nested 10^6 deep (zstd)")
        << bytes(test::zstd(kSnapshotHead + std::string(1'000'000, ']') + std::string(999'999, 'a') + "s.")) << "snapshot.pickle"
        << "memory-snapshot" << "pickle-too-deep" << qint64(16 + 1'000'000 + 1000) << 384;
    QTest::newRow("10^6 nested MARKs (zstd)") << bytes(test::zstd(kSnapshotHead + std::string(1'000'000, '('))) << "snapshot.pickle"
                                              << "memory-snapshot" << "pickle-too-deep" << qint64(16 + 1000) << 16;
    QTest::newRow("lists nested 10^6 deep by MARK (zstd)")
        << bytes(test::zstd(kSnapshotHead + repeat("](", 1'000'000))) << "snapshot.pickle" << "memory-snapshot"
        << "pickle-too-deep" << qint64(16 + 2 * 1000 + 1) << 16;
    // Two bytes a value: 40 MB of pickle would make 2·10^7 values, about 3 GiB of them.
    QTest::newRow("2*10^7 tiny values (zstd)") << bytes(test::zstd(kSnapshotHead + "]" + repeat("Na", 20'000'000) + "s."))
                                               << "snapshot.pickle" << "memory-snapshot" << "pickle-too-large" << qint64(-1)
                                               << 1536;
    // One memo reference appended 10^8 times: slots only, 1.6 GB of them.
    QTest::newRow("one reference appended 10^8 times (zstd)")
        << bytes(inflating(Pack::Zstd, kSnapshotHead + "]\x8c\x01x\x94" "a", 0, 'a', repeat(std::string("h\x00" "a", 3), 100'000'000) + "s."))
        << "snapshot.pickle" << "memory-snapshot" << "pickle-too-large" << qint64(-1) << 1536;
    QTest::newRow("flight recorder: JSON string of 300 MiB (zstd)")
        << bytes(inflating(Pack::Zstd, jsonHead, 300 * MiB, 'a', "\"}")) << "dump.json" << "flight-recorder" << "fr-unreadable"
        << qint64(jsonHead.size() + 8 * MiB) << 96;
    QTest::newRow("flight recorder: JSON of 2*10^7 numbers (zstd)")
        << bytes(test::zstd(R"({"entries":[],"pg_config":{},"x":[)" + repeat("0,", 20'000'000) + "0]}")) << "dump.json"
        << "flight-recorder" << "fr-json-too-large" << qint64(-1) << 1536;
}

void TestPickleStream::bombs()
{
    QFETCH(QByteArray, file);
    QFETCH(QString, name);
    QFETCH(QString, format);
    QFETCH(QString, code);
    QFETCH(qint64, offset);
    QFETCH(int, maxGrowthMiB);
    QVERIFY2(file.size() < 4 * 1024 * 1024, "fixtures stay small");
    std::string packed = file.toStdString();
    file.clear();
    test::resetPeakRss();
    const std::int64_t before = test::peakRssBytes() >> 10;
    const auto start = std::chrono::steady_clock::now();
    ImportContext ctx;
    SourceBuilder b = ImporterRegistry::instance().importBytes(std::move(packed), name.toStdString(), ctx);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long growthMiB = long(((test::peakRssBytes() >> 10) - before) / 1024);
    qInfo("peak RSS growth %ld MiB, %.2f s", growthMiB, seconds);
    QCOMPARE(QString::fromStdString(b.source().format), format);
    QVERIFY(!b.source().diagnostics.empty()); // never "nothing read" in silence
    const Diagnostic &d = b.source().diagnostics.front();
    QCOMPARE(QString::fromStdString(d.code), code);
    QVERIFY2(!d.message.empty(), d.code.c_str());
    if (offset >= 0)
        QCOMPARE(qint64(d.offset), offset);
    else
        QVERIFY(d.offset > 0);
    QVERIFY2(growthMiB < maxGrowthMiB + (test::kSanitizerSlackBytes >> 20), qPrintable(QStringLiteral("%1 MiB").arg(growthMiB)));
    QVERIFY(seconds < 60 * test::kSanitizerSlowdown);
}

void TestPickleStream::bigStringIsHeldOnce()
{
    // A 200 MiB string is within the limit: it is read, into its own memory only. Reading the file
    // whole first held it twice (the file and the string).
    const std::string head = std::string("\x80\x02}(", 4) + binUnicode("segments") + "]" + binUnicode("blob") + "\x8e" + le(200 * MiB, 8);
    std::string packed = inflating(Pack::Zstd, head, 200 * MiB, 'b', "u.");
    test::resetPeakRss();
    const std::int64_t before = test::peakRssBytes() >> 10;
    ImportContext ctx;
    SourceBuilder b = ImporterRegistry::instance().importBytes(std::move(packed), "snapshot.pickle", ctx);
    const long growthMiB = long(((test::peakRssBytes() >> 10) - before) / 1024);
    qInfo("peak RSS growth %ld MiB", growthMiB);
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QVERIFY2(growthMiB < 200 + 24 + (test::kSanitizerSlackBytes >> 20), qPrintable(QStringLiteral("%1 MiB").arg(growthMiB)));
}

void TestPickleStream::chunkBoundariesChangeNothing_data()
{
    QTest::addColumn<int>("chunk");
    QTest::newRow("1 byte") << 1;
    QTest::newRow("7 bytes") << 7;
    QTest::newRow("4093 bytes") << 4093;
    QTest::newRow("1 MiB") << int(MiB);
}

void TestPickleStream::chunkBoundariesChangeNothing()
{
    QFETCH(int, chunk);
    // Protocol 4 with a FRAME, memo, a float, a 3 MiB string and, straddling the 1 MiB buffer, a
    // 4000-byte LONG4 and a LONG1; then the snapshot fixture samples when present.
    std::string p("\x80\x04\x95", 3);
    p += le(20, 8);
    p += std::string("](\x8c\x03" "abc\x94h\x00G\x3f\xf8\x00\x00\x00\x00\x00\x00", 19);
    p += "\x8e" + le(3 * MiB, 8) + std::string(std::size_t(3 * MiB), 's');
    p += std::string(std::size_t(4 * MiB - p.size() - 10), 'N');
    p += "\x8b" + le(4000, 4) + std::string(3999, '\x01') + '\x7f';
    p += std::string("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00", 11);
    p += "e.";
    std::vector<std::string> pickles{p};
    for (const char *f : {"ftcourse/memory_snapshot.pickle", "layoutediting_list/memory_snapshot.pkl"}) {
        std::string s = readFile(QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/") + f);
        if (!s.empty())
            pickles.push_back(std::move(s));
    }
    for (const std::string &data : pickles) {
        const Decoded whole = fromMemory(data, false);
        QVERIFY2(whole.root, whole.error.message.c_str());
        std::size_t at = 0;
        RestrictedUnpickler::Error error;
        const PickleRef streamed = RestrictedUnpickler::load(chunked(data, std::size_t(chunk), at), {}, error);
        QVERIFY2(streamed, error.message.c_str());
        std::string a, b;
        dump(*whole.root, a);
        dump(*streamed, b);
        QCOMPARE(b, a);
    }
}

void TestPickleStream::cutsReportAsFromMemory_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("flight recorder, protocol 2") << QStringLiteral(RANKSCOPE_FIXTURES_DIR "/flightrecorder/hang/nccl_trace_rank_1");
    QTest::newRow("flight recorder, protocol 4 (cut)")
        << QStringLiteral(RANKSCOPE_FIXTURES_DIR "/flightrecorder/truncated_p4/nccl_trace_rank_1");
    QTest::newRow("snapshot sample, protocol 4") << QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/flexgen_pt20/oom_snapshot.pickle");
}

void TestPickleStream::cutsReportAsFromMemory()
{
    // Every cut of a small pickle (a sample's first 600 bytes and 300 spread cuts): the streamed
    // decode, size unknown, fails with the code and offset the in-memory one gives, and salvages the same.
    QFETCH(QString, fixture);
    const std::string whole = readFile(fixture);
    if (whole.empty())
        QSKIP("fixture or sample not present");
    std::vector<std::size_t> cuts;
    for (std::size_t n = 1; n <= whole.size(); n += n < 600 ? 1 : std::max<std::size_t>(1, whole.size() / 300))
        cuts.push_back(n);
    for (std::size_t n : cuts) {
        const std::string cut = whole.substr(0, n);
        for (bool partial : {false, true}) {
            const Decoded mem = fromMemory(cut, partial);
            const Decoded streamed = fromZstd(cut, partial);
            const QString where = QStringLiteral("cut at %1, partial %2").arg(n).arg(partial);
            QVERIFY2(streamed.error.code == mem.error.code, qPrintable(where + ": " + QString::fromStdString(streamed.error.code)
                                                                    + " vs " + QString::fromStdString(mem.error.code)));
            QVERIFY2(streamed.error.offset == mem.error.offset, qPrintable(where));
            QVERIFY2(bool(streamed.root) == bool(mem.root), qPrintable(where));
            if (mem.root) {
                std::string a, b;
                dump(*mem.root, a);
                dump(*streamed.root, b);
                QVERIFY2(a == b, qPrintable(where));
            }
        }
    }
}

void TestPickleStream::byteCap()
{
    // [None × 1000]: 1006 bytes. A cap of exactly that reads it; one byte less is pickle-too-large
    // at the cap, from memory and from a stream alike.
    const std::string p = std::string("\x80\x02](", 4) + std::string(1000, 'N') + "e.";
    QCOMPARE(p.size(), std::size_t(1006));
    RestrictedUnpickler::Limits limits;
    limits.maxBytes = 1006;
    QVERIFY(fromMemory(p, false, limits).root);
    QVERIFY(fromZstd(p, false, limits).root);
    limits.maxBytes = 1005;
    for (const Decoded &d : {fromMemory(p, false, limits), fromZstd(p, false, limits), fromZstd(p, true, limits)}) {
        QVERIFY(!d.root);
        QCOMPARE(d.error.code, std::string("pickle-too-large"));
        QCOMPARE(d.error.offset, std::int64_t(1005));
    }
}

void TestPickleStream::memoryBudget_data()
{
    QTest::addColumn<QByteArray>("pickle");
    QTest::newRow("many Nones in a list") << bytes("\x80\x02]" + repeat("Na", 100'000) + ".");
    QTest::newRow("one memo reference appended often") << bytes(std::string("\x80\x02]\x8c\x01x\x94" "a", 8)
                                                                + repeat(std::string("h\x00" "a", 3), 100'000) + ".");
    QTest::newRow("strings of 300 KiB") << bytes("\x80\x02](" + repeat("X" + le(300 * 1024, 4) + std::string(300 * 1024, 'x'), 5) + "e.");
    QTest::newRow("dict entries") << bytes("\x80\x02}" + repeat("NNs", 100'000) + ".");
    QTest::newRow("memo entries") << bytes("\x80\x02" + repeat("N\x94" "0", 100'000) + "N.");
}

void TestPickleStream::memoryBudget()
{
    QFETCH(QByteArray, pickle);
    const std::string p = pickle.toStdString();
    RestrictedUnpickler::Limits limits;
    QVERIFY(fromMemory(p, false, limits).root); // fine under the default budget
    limits.maxMemory = MiB;
    limits.memoryPerByte = limits.memoryPerStoredByte = 0; // the fixed allowance alone
    for (const Decoded &d : {fromMemory(p, false, limits), fromZstd(p, true, limits)}) {
        QVERIFY(!d.root);
        QCOMPARE(d.error.code, std::string("pickle-too-large"));
        QVERIFY2(d.error.message.find("memory") != std::string::npos, d.error.message.c_str());
        QVERIFY(d.error.offset > 0);
    }
}

// Past the fixed allowance the budget grows with the input: a plain pickle whose values take about
// what its bytes take decodes whatever its size, the same bytes out of a decompression bomb do not,
// and values far denser than any snapshot (a None per 2 bytes) stop even in a plain file.
void TestPickleStream::budgetGrowsWithTheInput()
{
    RestrictedUnpickler::Limits limits;
    limits.maxMemory = MiB;
    const std::string strings = "\x80\x02](" + repeat("X" + le(300 * 1024, 4) + std::string(300 * 1024, 'x'), 5) + "e.";
    QVERIFY(fromMemory(strings, false, limits).root);
    const Decoded bomb = fromZstd(strings, true, limits);
    QVERIFY(!bomb.root);
    QCOMPARE(bomb.error.code, std::string("pickle-too-large"));
    QVERIFY2(bomb.error.message.find("stored") != std::string::npos, bomb.error.message.c_str());
    const std::string nones = "\x80\x02]" + repeat("Na", 400'000) + ".";
    const Decoded dense = fromMemory(nones, false, limits);
    QVERIFY(!dense.root);
    QCOMPARE(dense.error.code, std::string("pickle-too-large"));
}

void TestPickleStream::cancelStopsReading()
{
    // 512 strings of 1 MiB; the user cancels at the first progress report: the import stops within
    // a few chunks, says nothing is wrong with the file, and reading went on no further.
    for (bool isDump : {false, true}) {
        const std::string head = (isDump ? kDumpHead : kSnapshotHead) + "](";
        const std::string one = "\x8e" + le(MiB, 8) + std::string(std::size_t(MiB), 'c');
        std::string packed;
        {
            std::string out = test::zstd(head);
            const std::string frame = test::zstd(one);
            for (int i = 0; i < 512; ++i)
                out += frame;
            packed = out + test::zstd(isDump ? "eu." : "es.");
        }
        std::string err;
        auto in = InputStream::fromMemory(packed, &err);
        std::atomic<bool> cancel{false};
        int reports = 0;
        ImportContext ctx(&cancel, [&](std::int64_t, std::int64_t) { ++reports; cancel = true; }, std::chrono::milliseconds(0));
        SourceBuilder b(isDump ? "nccl_trace_rank_0" : "snapshot.pickle");
        if (isDump)
            FlightRecorderImporter().import(*in, b, ctx);
        else
            SnapshotImporter().import(*in, b, ctx);
        QCOMPARE(reports, 1);
        QCOMPARE(b.source().errorCount(), std::size_t(0));
        QVERIFY2(in->position() <= std::int64_t(4 * MiB), qPrintable(QString::number(in->position())));
    }
}

QTEST_GUILESS_MAIN(TestPickleStream)
#include "test_picklestream.moc"
