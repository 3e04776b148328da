// InputStream: plain, gzip, zstd and concatenated gzip give the same bytes; peek does not consume;
// truncated or corrupt compressed data reports an error; counters track progress.

#include "inputstream.h"
#include "kinetotesthelpers.h"

#include <QTemporaryDir>
#include <QTest>

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

QTEST_GUILESS_MAIN(TestImporterInputStream)
#include "test_importer_inputstream.moc"
