// memory_summary tables and CUDA OOM messages: both PyTorch layouts, abbreviated tables, both OOM
// forms, tables inside other text, malformed rows, cut-off tables, and the real samples.

#include "importerregistry.h"
#include "memorysummary/memorysummaryparser.h"

#include <QFile>
#include <QTest>

using namespace rs;

namespace {

constexpr std::int64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

const char *kRule = "|===========================================================================|";
const char *kDash = "|---------------------------------------------------------------------------|";

// A table in PyTorch's own layout. `rows` are full lines; `abbrev` leaves sub-rows out (the caller's rows).
std::string table(int device, int ooms, int retries, const std::vector<std::string> &rows)
{
    std::string s;
    s += std::string(kRule) + "\n";
    s += "|                  PyTorch CUDA memory summary, device ID " + std::to_string(device) + "                 |\n";
    s += std::string(kDash) + "\n";
    s += "|            CUDA OOMs: " + std::to_string(ooms) + "            |        cudaMalloc retries: "
        + std::to_string(retries) + "         |\n";
    s += std::string(kRule) + "\n";
    s += "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n";
    s += std::string(kDash) + "\n";
    for (const auto &r : rows)
        s += r + "\n";
    s += std::string(kRule) + "\n";
    return s;
}

SourceBuilder importText(const std::string &text, const std::string &name = "mem.txt")
{
    ImportContext ctx;
    return ImporterRegistry::instance().importBytes(text, name, ctx);
}

std::size_t errors(const SourceBuilder &b)
{
    return b.source().errorCount();
}

} // namespace

class TestMemorySummary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void cells_data();
    void cells();
    void sizes_data();
    void sizes();
    void oomForms_data();
    void oomForms();
    void pytorch2Table();
    void abbreviatedTable();
    void tableInsideLogFollowsOom();
    void malformedRowKeepsRest();
    void cutOffTableIsReported();
    void notClaimedByOtherText();
    void realSamples_data();
    void realSamples();
};

void TestMemorySummary::cells_data()
{
    QTest::addColumn<QString>("cell");
    QTest::addColumn<qint64>("value");
    QTest::addColumn<bool>("isBytes");
    QTest::newRow("MiB") << " 14324 MiB " << qint64(14324 * MiB) << true;
    QTest::newRow("bytes with padding") << "     0 B   " << qint64(0) << true;
    QTest::newRow("KiB") << " 267624 KiB" << qint64(267624 * KiB) << true;
    QTest::newRow("1.x MB") << "   14935 MB " << qint64(14935 * MiB) << true;
    QTest::newRow("1.x GB") << "     995 GB " << qint64(995 * GiB) << true;
    QTest::newRow("count") << "     387    " << qint64(387) << false;
    QTest::newRow("count K") << "    1234 K  " << qint64(1234000) << false;
    QTest::newRow("count M") << "       2 M  " << qint64(2000000) << false;
}

void TestMemorySummary::cells()
{
    QFETCH(QString, cell);
    QFETCH(qint64, value);
    QFETCH(bool, isBytes);
    bool bytes = !isBytes;
    const auto v = MemorySummaryParser::parseCell(cell.toStdString(), bytes);
    QVERIFY(v.has_value());
    QCOMPARE(qint64(*v), value);
    QCOMPARE(bytes, isBytes);
    QVERIFY(!MemorySummaryParser::parseCell(" 12 XiB ", bytes));
    QVERIFY(!MemorySummaryParser::parseCell(" n/a ", bytes));
}

void TestMemorySummary::sizes_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("bytes");
    QTest::newRow("MiB decimals") << "62.00 MiB" << qint64(62 * MiB);
    QTest::newRow("GiB decimals") << "1.50 GiB" << qint64(GiB + GiB / 2);
    QTest::newRow("bytes") << "512 bytes" << qint64(512);
    QTest::newRow("zero") << "0 bytes" << qint64(0);
    QTest::newRow("garbage") << "lots" << qint64(-1);
}

void TestMemorySummary::sizes()
{
    QFETCH(QString, text);
    QFETCH(qint64, bytes);
    QCOMPARE(qint64(MemorySummaryParser::parseSize(text.toStdString())), bytes);
}

void TestMemorySummary::oomForms_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<int>("device");
    QTest::addColumn<qint64>("requested");
    QTest::addColumn<qint64>("capacity");
    QTest::addColumn<qint64>("allocated");
    QTest::addColumn<qint64>("reserved");
    QTest::addColumn<qint64>("free");
    QTest::newRow("old 1.x") << "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 31.75 GiB total "
                                "capacity; 30.29 GiB already allocated; 3.75 MiB free; 30.40 GiB reserved in total by PyTorch)"
                             << 4 << qint64(20 * MiB) << qint64(31.75 * GiB) << qint64(llround(30.29 * GiB))
                             << qint64(llround(30.40 * GiB)) << qint64(llround(3.75 * MiB));
    QTest::newRow("old with allowed") << "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity; "
                                         "40.00 GiB allowed; 39.00 GiB already allocated; 1.00 GiB free; 39.50 GiB reserved "
                                         "in total by PyTorch) If reserved memory is >> allocated memory try setting "
                                         "max_split_size_mb to avoid fragmentation."
                                      << 0 << qint64(2 * GiB) << qint64(llround(79.15 * GiB)) << qint64(39 * GiB)
                                      << qint64(llround(39.5 * GiB)) << qint64(GiB);
    QTest::newRow("new 2.x") << "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 19.68 GiB. GPU 0 has a total "
                                "capacity of 23.68 GiB of which 11.88 GiB is free. Including non-PyTorch memory, this process "
                                "has 11.79 GiB memory in use. Of the allocated memory 11.44 GiB is allocated by PyTorch, and "
                                "43.59 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
                                "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
                             << 0 << qint64(llround(19.68 * GiB)) << qint64(llround(23.68 * GiB))
                             << qint64(llround(11.44 * GiB)) << qint64(llround(11.44 * GiB) + llround(43.59 * MiB))
                             << qint64(llround(11.88 * GiB));
    QTest::newRow("new with private pools") << "CUDA out of memory. Tried to allocate 512 bytes. GPU 3 has a total capacity of "
                                               "79.10 GiB of which 0 bytes is free. Of the allocated memory 70.00 GiB is "
                                               "allocated by PyTorch, with 2.00 GiB allocated in private pools (e.g., CUDA "
                                               "Graphs), and 1.00 GiB is reserved by PyTorch but unallocated."
                                            << 3 << qint64(512) << qint64(llround(79.10 * GiB)) << qint64(70 * GiB)
                                            << qint64(73 * GiB) << qint64(0);
    QTest::newRow("runtime error form") << "RuntimeError: CUDA error: out of memory" << -1 << qint64(-1) << qint64(-1)
                                        << qint64(-1) << qint64(-1) << qint64(-1);
}

void TestMemorySummary::oomForms()
{
    QFETCH(QString, line);
    QFETCH(int, device);
    QFETCH(qint64, requested);
    QFETCH(qint64, capacity);
    QFETCH(qint64, allocated);
    QFETCH(qint64, reserved);
    QFETCH(qint64, free);
    const auto oom = MemorySummaryParser::parseOom(line.toStdString());
    QVERIFY(oom.has_value());
    QCOMPARE(oom->device, device);
    QCOMPARE(qint64(oom->requested), requested);
    QCOMPARE(qint64(oom->capacity), capacity);
    QCOMPARE(qint64(oom->allocated), allocated);
    QCOMPARE(qint64(oom->reserved), reserved);
    QCOMPARE(qint64(oom->free), free);
    QVERIFY(QString::fromStdString(oom->text).startsWith(QStringLiteral("CUDA ")));
}

void TestMemorySummary::pytorch2Table()
{
    const std::string text = table(1, 0, 2,
                                   {"| Allocated memory      |  10752 MiB |  14540 MiB |    900 GiB |    889 GiB |",
                                    "|       from large pool |  10536 MiB |  14249 MiB |    882 GiB |    871 GiB |",
                                    "|       from small pool |    215 MiB |    290 MiB |     18 GiB |     17 GiB |",
                                    kDash,
                                    "| Requested memory      |  10000 MiB |  14000 MiB |    800 GiB |    790 GiB |",
                                    "|       from large pool |   9900 MiB |  13900 MiB |    790 GiB |    780 GiB |",
                                    "|       from small pool |    100 MiB |    100 MiB |     10 GiB |     10 GiB |",
                                    kDash,
                                    "| Allocations           |    1543    |    2210    |    1234 K  |    1233 K  |",
                                    "|       from large pool |     543    |     210    |     234 K  |     233 K  |",
                                    "|       from small pool |    1000    |    2000    |    1000 K  |    1000 K  |",
                                    kDash,
                                    "| Oversize allocations  |       0    |       0    |       0    |       0    |"});
    const SourceBuilder b = importText(text);
    QCOMPARE(b.source().format, std::string("memory-summary"));
    QCOMPARE(errors(b), std::size_t(0));
    QCOMPARE(b.source().counts.memorySummaries, 1);
    QCOMPARE(b.memorySummaries().size(), std::size_t(1));
    const MemorySummary &m = b.memorySummaries()[0];
    QCOMPARE(m.device, 1);
    QCOMPARE(m.ooms, 0);
    QCOMPARE(m.allocRetries, 2);
    QCOMPARE(m.line, 1);
    QVERIFY(!m.abbreviated);
    QCOMPARE(m.rows.size(), std::size_t(10));
    QCOMPARE(m.row("Allocated memory")->current, 10752 * MiB);
    QCOMPARE(m.row("Allocated memory", "small")->allocated, 18 * GiB);
    QCOMPARE(m.row("Requested memory", "large")->peak, 13900 * MiB);
    QCOMPARE(m.row("Allocations")->allocated, 1234000);
    QVERIFY(!m.row("Allocations")->isBytes);
    QCOMPARE(m.row("Oversize allocations")->freed, 0);
    QVERIFY(!b.source().hasClock);
}

void TestMemorySummary::abbreviatedTable()
{
    const SourceBuilder b = importText(table(0, 0, 0,
                                             {"| Allocated memory      |   1024 MiB |   2048 MiB |      3 GiB |      2 GiB |",
                                              "| GPU reserved memory   |   4096 MiB |   4096 MiB |      4 GiB |      0 B   |"}));
    QCOMPARE(errors(b), std::size_t(0));
    QCOMPARE(b.memorySummaries().size(), std::size_t(1));
    QVERIFY(b.memorySummaries()[0].abbreviated);
    QCOMPARE(b.memorySummaries()[0].row("GPU reserved memory")->current, 4096 * MiB);
}

void TestMemorySummary::tableInsideLogFollowsOom()
{
    std::string text = "epoch 1 | loss 2.31\n";
    text += "Traceback (most recent call last):\n";
    text += "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 "
            "GiB of which 1.00 GiB is free. Of the allocated memory 70.00 GiB is allocated by PyTorch, and 6.00 GiB is "
            "reserved by PyTorch but unallocated.\n";
    text += table(0, 1, 3, {"| Allocated memory      |  71680 MiB |  76800 MiB |    900 GiB |    889 GiB |"});
    text += "done\n";
    text += table(0, 1, 3, {"| Allocated memory      |  1 MiB |  2 MiB |    3 GiB |    3 GiB |"});
    const SourceBuilder b = importText(text);
    QCOMPARE(errors(b), std::size_t(0));
    QCOMPARE(b.source().counts.oomMessages, 1);
    QCOMPARE(b.source().counts.memorySummaries, 2);
    QCOMPARE(b.ooms()[0].line, 3);
    QCOMPARE(b.ooms()[0].requested, 2 * GiB);
    QCOMPARE(b.memorySummaries()[0].oom, 0);
    QCOMPARE(b.memorySummaries()[0].line, 4);
    QCOMPARE(b.memorySummaries()[1].oom, -1); // the second table follows no new OOM
}

void TestMemorySummary::malformedRowKeepsRest()
{
    const SourceBuilder b = importText(table(0, 0, 0,
                                             {"| Allocated memory      |   1024 MiB |   2048 MiB |      3 GiB |      2 GiB |",
                                              "| Active memory         |   lots     |   2048 MiB |      3 GiB |      2 GiB |",
                                              "| Broken row            |   1 MiB |",
                                              "| GPU reserved memory   |   4096 MiB |   4096 MiB |      4 GiB |      0 B   |"}));
    QCOMPARE(errors(b), std::size_t(2));
    QCOMPARE(b.source().diagnostics[0].line, 9); // "Active memory" is line 9 of the table
    QCOMPARE(b.source().diagnostics[1].line, 10);
    QCOMPARE(b.memorySummaries().size(), std::size_t(1));
    const MemorySummary &m = b.memorySummaries()[0];
    QCOMPARE(m.row("Active memory")->current, -1);
    QCOMPARE(m.row("Active memory")->peak, 2048 * MiB);
    QCOMPARE(m.row("GPU reserved memory")->current, 4096 * MiB);
}

void TestMemorySummary::cutOffTableIsReported()
{
    std::string text = table(0, 0, 0, {"| Allocated memory      |   1024 MiB |   2048 MiB |      3 GiB |      2 GiB |"});
    text = text.substr(0, text.rfind(kRule)); // the closing rule never came
    const SourceBuilder b = importText(text);
    QCOMPARE(b.source().counts.memorySummaries, 0);
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1));
    QCOMPARE(b.source().diagnostics[0].line, 1);
    QVERIFY(b.source().diagnostics[0].message.find("cut off") != std::string::npos);
}

void TestMemorySummary::notClaimedByOtherText()
{
    const SourceBuilder b = importText("just some log\nwith | pipes | in it |\n");
    QVERIFY(b.source().format.empty());
    QCOMPARE(errors(b), std::size_t(1));
}

void TestMemorySummary::realSamples_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("tables");
    QTest::addColumn<int>("ooms");
    QTest::addColumn<qint64>("allocatedCurrent");
    QTest::addColumn<qint64>("reservedPeak");
    QTest::addColumn<int>("rows");
    QTest::newRow("fairseq 1.x OOM") << "fairseq_roberta_oom_58_ooms.txt" << 1 << 1 << qint64(14935 * MiB)
                                     << qint64(15560 * MiB) << 24;
    QTest::newRow("instructlab 2.x") << "instructlab_l4_pytorch2x_after_model_load.txt" << 1 << 0 << qint64(14324 * MiB)
                                     << qint64(14586 * MiB) << 29;
}

void TestMemorySummary::realSamples()
{
    QFETCH(QString, file);
    QFETCH(int, tables);
    QFETCH(int, ooms);
    QFETCH(qint64, allocatedCurrent);
    QFETCH(qint64, reservedPeak);
    QFETCH(int, rows);
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/memory_summary/") + file;
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("memory-summary"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(int(b.source().counts.memorySummaries), tables);
    QCOMPARE(int(b.source().counts.oomMessages), ooms);
    const MemorySummary &m = b.memorySummaries().at(0);
    QCOMPARE(qint64(m.row("Allocated memory")->current), allocatedCurrent);
    QCOMPARE(qint64(m.row("GPU reserved memory")->peak), reservedPeak);
    QCOMPARE(int(m.rows.size()), rows);
    QCOMPARE(m.oom, ooms > 0 ? 0 : -1);
    if (ooms > 0) {
        const OomEvent &o = b.ooms()[0];
        QCOMPARE(o.requested, 62 * MiB);
        QCOMPARE(o.device, 0);
        QCOMPARE(o.capacity, llround(15.90 * GiB));
        QCOMPARE(m.ooms, 58);
        QCOMPARE(m.allocRetries, 66);
    }
}

QTEST_GUILESS_MAIN(TestMemorySummary)
#include "test_memorysummary.moc"
