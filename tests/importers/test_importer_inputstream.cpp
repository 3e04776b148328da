// InputStream: plain, gzip, zstd and concatenated gzip give the same bytes; peek does not consume;
// truncated or corrupt compressed data reports an error; counters track progress.

#include "inputstream.h"
#include "kinetotesthelpers.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

using namespace rs;
using namespace rs::test;

namespace {

// Deterministic text with some structure, large enough to span several decoder chunks.
std::string sampleText(std::size_t bytes)
{
    std::string s;
    std::uint32_t x = 12345;
    while (s.size() < bytes) {
        x = x * 1664525u + 1013904223u;
        s += "{\"ph\": \"X\", \"ts\": " + std::to_string(x % 100000) + "},\n";
    }
    s.resize(bytes);
    return s;
}

// Reads the whole stream with reads of `piece` bytes.
std::string drain(InputStream &in, std::size_t piece)
{
    std::string out;
    std::string buf(piece, '\0');
    while (const std::size_t n = in.read(buf.data(), buf.size()))
        out.append(buf.data(), n);
    return out;
}

} // namespace

class TestImporterInputStream : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void peekDoesNotConsume();
    void concatenatedGzip();
    void truncatedGzipIsAnError();
    void corruptZstdIsAnError();
    void truncatedZstdIsAnError();
    void emptyInput();
    void openFile();
    void openMissingFile();
    void onlyRegularFilesOpen_data();
    void onlyRegularFilesOpen();
    void decompressionStopsAtTheLimit_data();
    void decompressionStopsAtTheLimit();
    void fileThatGrowsWhileReadIsReported();
};

void TestImporterInputStream::roundTrip_data()
{
    QTest::addColumn<QString>("codec");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("piece");
    for (const char *codec : {"plain", "gzip", "zstd"}) {
        QTest::addRow("%s small", codec) << codec << 100 << 7;
        QTest::addRow("%s 3MiB big reads", codec) << codec << (3 << 20) << (1 << 20);
        QTest::addRow("%s 3MiB odd reads", codec) << codec << (3 << 20) << 65537;
    }
}

void TestImporterInputStream::roundTrip()
{
    QFETCH(QString, codec);
    QFETCH(int, bytes);
    QFETCH(int, piece);
    const std::string text = sampleText(static_cast<std::size_t>(bytes));
    const std::string packed = codec == "gzip" ? gzip(text) : codec == "zstd" ? zstd(text) : text;
    std::string err;
    auto in = InputStream::fromMemory(packed, &err);
    QVERIFY(in);
    const Compression expected = codec == "gzip" ? Compression::Gzip : codec == "zstd" ? Compression::Zstd : Compression::None;
    QCOMPARE(in->compression(), expected);
    QCOMPARE(in->compressedSize(), std::int64_t(packed.size()));
    const std::string out = drain(*in, static_cast<std::size_t>(piece));
    QCOMPARE(out.size(), text.size());
    QVERIFY(out == text);
    QVERIFY2(in->error().empty(), in->error().c_str());
    QCOMPARE(in->position(), std::int64_t(text.size()));
    QCOMPARE(in->compressedBytesRead(), std::int64_t(packed.size()));
}

void TestImporterInputStream::peekDoesNotConsume()
{
    const std::string text = sampleText(200000);
    auto in = InputStream::fromMemory(gzip(text), nullptr);
    const std::string_view head = in->peek(1000);
    QCOMPARE(head.size(), std::size_t(1000));
    QVERIFY(head == std::string_view(text).substr(0, 1000));
    QCOMPARE(in->position(), std::int64_t(0));
    QVERIFY(drain(*in, 333) == text);
}

void TestImporterInputStream::concatenatedGzip()
{
    // `gzip -c a b > c` writes two members; readers must continue after the first one.
    const std::string a = sampleText(5000);
    const std::string b = sampleText(7000).substr(3000);
    auto in = InputStream::fromMemory(gzip(a) + gzip(b), nullptr);
    QVERIFY(drain(*in, 4096) == a + b);
    QVERIFY2(in->error().empty(), in->error().c_str());
}

void TestImporterInputStream::truncatedGzipIsAnError()
{
    const std::string text = sampleText(300000);
    std::string packed = gzip(text);
    packed.resize(packed.size() / 2);
    auto in = InputStream::fromMemory(packed, nullptr);
    const std::string out = drain(*in, 65536);
    QVERIFY(out.size() < text.size());
    QVERIFY(out == text.substr(0, out.size())); // what came out is correct
    QVERIFY(in->error().find("truncated") != std::string::npos);
}

void TestImporterInputStream::corruptZstdIsAnError()
{
    std::string packed = zstd(sampleText(100000));
    for (std::size_t i = 20; i < packed.size(); i += 7)
        packed[i] = static_cast<char>(packed[i] ^ 0x5a);
    auto in = InputStream::fromMemory(packed, nullptr);
    drain(*in, 4096);
    QVERIFY(in->error().find("zstd") != std::string::npos);
}

void TestImporterInputStream::truncatedZstdIsAnError()
{
    std::string packed = zstd(sampleText(100000));
    packed.resize(packed.size() - 10);
    auto in = InputStream::fromMemory(packed, nullptr);
    drain(*in, 4096);
    QVERIFY(in->error().find("truncated") != std::string::npos);
}

void TestImporterInputStream::emptyInput()
{
    auto in = InputStream::fromMemory(std::string(), nullptr);
    QCOMPARE(in->compression(), Compression::None);
    QVERIFY(in->peek(10).empty());
    QCOMPARE(drain(*in, 10), std::string());
    QVERIFY(in->error().empty());
}

void TestImporterInputStream::openFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("t.json.gz").toStdString();
    const std::string text = sampleText(50000);
    const std::string packed = gzip(text);
    std::ofstream(path, std::ios::binary).write(packed.data(), static_cast<std::streamsize>(packed.size()));
    std::string err;
    auto in = InputStream::open(path, &err);
    QVERIFY2(in, err.c_str());
    QCOMPARE(in->compressedSize(), std::int64_t(packed.size()));
    QVERIFY(drain(*in, 1000) == text);
}

void TestImporterInputStream::openMissingFile()
{
    std::string err;
    QVERIFY(!InputStream::open("/nonexistent/dir/x.json", &err));
    QVERIFY(err.find("cannot open") != std::string::npos);
    QVERIFY(!InputStream::open("/tmp", &err)); // a directory
    QVERIFY(!err.empty());
}

void TestImporterInputStream::onlyRegularFilesOpen_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::newRow("fifo") << "fifo" << "not a regular file (FIFO)";
    QTest::newRow("directory") << "directory" << "not a regular file (directory)";
    QTest::newRow("character device") << "device" << "not a regular file (character device)";
    QTest::newRow("symlink loop") << "loop" << "cannot open";
    QTest::newRow("symlink to a file") << "link" << "";
    QTest::newRow("regular file") << "file" << "";
}

void TestImporterInputStream::onlyRegularFilesOpen()
{
    // Opening a FIFO for reading waits for a writer: it must be refused at once, not block.
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const std::string file = dir.filePath("f.json").toStdString();
    std::ofstream(file) << "{}";
    std::string path = dir.filePath("x").toStdString();
    if (kind == "fifo")
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
    else if (kind == "directory")
        path = dir.path().toStdString();
    else if (kind == "device")
        path = "/dev/zero";
    else if (kind == "loop") {
        QCOMPARE(::symlink(dir.filePath("y").toStdString().c_str(), path.c_str()), 0);
        QCOMPARE(::symlink(path.c_str(), dir.filePath("y").toStdString().c_str()), 0);
    } else if (kind == "link")
        QCOMPARE(::symlink(file.c_str(), path.c_str()), 0);
    else
        path = file;
    QElapsedTimer timer;
    timer.start();
    std::string err;
    auto in = InputStream::open(path, &err);
    QVERIFY(timer.elapsed() < 2000);
    QCOMPARE(InputStream::notRegular(path).empty(), expected.isEmpty());
    if (expected.isEmpty()) {
        QVERIFY2(in, err.c_str());
        QCOMPARE(drain(*in, 16), std::string("{}"));
        return;
    }
    QVERIFY(!in);
    QVERIFY2(err.find(expected.toStdString()) == 0, err.c_str());
    QVERIFY2(InputStream::notRegular(path).find(expected.toStdString()) == 0, InputStream::notRegular(path).c_str());
}

void TestImporterInputStream::decompressionStopsAtTheLimit_data()
{
    QTest::addColumn<QString>("codec");
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<bool>("stops");
    // 64 MiB of spaces pack into a few KiB: a small bomb, made here.
    QTest::newRow("zstd over") << "zstd" << qint64(8 << 20) << true;
    QTest::newRow("gzip over") << "gzip" << qint64(8 << 20) << true;
    QTest::newRow("plain over") << "plain" << qint64(8 << 20) << true;
    QTest::newRow("zstd exactly at") << "zstd" << qint64(64 << 20) << false;
    QTest::newRow("zstd under") << "zstd" << qint64(65 << 20) << false;
}

void TestImporterInputStream::decompressionStopsAtTheLimit()
{
    QFETCH(QString, codec);
    QFETCH(qint64, limit);
    QFETCH(bool, stops);
    const std::string text(64 << 20, ' ');
    const std::string bytes = codec == "zstd" ? zstd(text) : codec == "gzip" ? gzip(text) : text;
    std::string err;
    auto in = InputStream::fromMemory(bytes, &err);
    in->setLimit(limit);
    QVERIFY(in->peek(4 << 20).size() == (4u << 20));
    std::size_t total = 0;
    std::string buf(1 << 20, '\0');
    while (const std::size_t n = in->read(buf.data(), buf.size()))
        total += n;
    QCOMPARE(in->limitReached(), stops);
    QCOMPARE(qint64(total), stops ? limit : qint64(text.size()));
    if (stops)
        QVERIFY2(in->error().find("decompressed offset " + std::to_string(limit)) != std::string::npos, in->error().c_str());
    else
        QVERIFY(in->error().empty());
}

void TestImporterInputStream::fileThatGrowsWhileReadIsReported()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("live.log").toStdString();
    std::ofstream(path) << std::string(1000, 'a');
    std::string err;
    auto in = InputStream::open(path, &err);
    QVERIFY(in);
    std::ofstream(path, std::ios::app) << std::string(500, 'b'); // a writer still appending
    QCOMPARE(drain(*in, 100).size(), std::size_t(1500));
    QVERIFY2(in->changed().find("grew") != std::string::npos, in->changed().c_str());
    // Near miss: a file left alone reads without a word.
    auto still = InputStream::open(path, &err);
    drain(*still, 100);
    QVERIFY(still->changed().empty());
}

QTEST_GUILESS_MAIN(TestImporterInputStream)
#include "test_importer_inputstream.moc"
