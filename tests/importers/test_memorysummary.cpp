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
    void notOoms_data();
    void notOoms();
    void pytorch2Table();
    void abbreviatedTable();
    void tableInsideLogFollowsOom();
    void malformedRowKeepsRest();
    void cutOffTableIsReported();
    void notClaimedByOtherText();
    void pastedVariants_data();
    void pastedVariants();
    void cutThenNextTable();
    void prefixedRowsKeepTheirPipe();
    void realSamples_data();
    void realSamples();
    void evofillSample();
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
    QTest::addColumn<qint64>("processInUse");
    QTest::addColumn<qint64>("otherProcesses");
    QTest::addColumn<qint64>("allowed");
    const qint64 none = -1;
    QTest::newRow("old 1.x") << "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 31.75 GiB total "
                                "capacity; 30.29 GiB already allocated; 3.75 MiB free; 30.40 GiB reserved in total by PyTorch)"
                             << 4 << qint64(20 * MiB) << qint64(31.75 * GiB) << qint64(llround(30.29 * GiB))
                             << qint64(llround(30.40 * GiB)) << qint64(llround(3.75 * MiB)) << none << none << none;
    QTest::newRow("old with allowed and hint")
        << "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 79.15 GiB total capacity; 40.00 GiB allowed; 39.00 GiB "
           "already allocated; 1.00 GiB free; 39.50 GiB reserved in total by PyTorch) If reserved memory is >> allocated "
           "memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and "
           "PYTORCH_CUDA_ALLOC_CONF"
        << 0 << qint64(2 * GiB) << qint64(llround(79.15 * GiB)) << qint64(39 * GiB) << qint64(llround(39.5 * GiB)) << qint64(GiB)
        << none << none << qint64(40 * GiB);
    QTest::newRow("old, allowed after free") << "CUDA out of memory. Tried to allocate 8.00 MiB (GPU 2; 10.76 GiB total capacity; "
                                                "4.10 GiB already allocated; 6.20 GiB free; 4.50 GiB allowed; 4.25 GiB reserved in "
                                                "total by PyTorch)"
                                             << 2 << qint64(8 * MiB) << qint64(llround(10.76 * GiB))
                                             << qint64(llround(4.10 * GiB)) << qint64(llround(4.25 * GiB))
                                             << qint64(llround(6.20 * GiB)) << none << none << qint64(llround(4.5 * GiB));
    QTest::newRow("1.x one decimal") << "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 15.78 GiB total "
                                        "capacity; 14.2 GiB already allocated; 5.4 MiB free; 14.5 GiB reserved in total by PyTorch)"
                                     << 0 << qint64(20 * MiB) << qint64(llround(15.78 * GiB)) << qint64(llround(14.2 * GiB))
                                     << qint64(llround(14.5 * GiB)) << qint64(llround(5.4 * MiB)) << none << none << none;
    QTest::newRow("1.5 with malloc frame") << "RuntimeError: CUDA out of memory. Tried to allocate 96.00 MiB (GPU 1; 7.93 GiB total "
                                              "capacity; 6.81 GiB already allocated; 60.50 MiB free; 6.99 GiB reserved in total by "
                                              "PyTorch) (malloc at /pytorch/c10/cuda/CUDACachingAllocator.cpp:289)"
                                           << 1 << qint64(96 * MiB) << qint64(llround(7.93 * GiB)) << qint64(llround(6.81 * GiB))
                                           << qint64(llround(6.99 * GiB)) << qint64(llround(60.5 * MiB)) << none << none << none;
    // 1.0-1.3 said "cached" for what the allocator held but had not handed out.
    QTest::newRow("1.0 cached") << "RuntimeError: CUDA out of memory. Tried to allocate 1024.00 KiB (GPU 0; 11.17 GiB total "
                                   "capacity; 10.40 GiB already allocated; 896.00 KiB free; 25.50 MiB cached)"
                                << 0 << qint64(MiB) << qint64(llround(11.17 * GiB)) << qint64(llround(10.40 * GiB))
                                << qint64(llround(10.40 * GiB) + llround(25.5 * MiB)) << qint64(896 * KiB) << none << none << none;
    QTest::newRow("new 2.x") << "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 19.68 GiB. GPU 0 has a total "
                                "capacity of 23.68 GiB of which 11.88 GiB is free. Including non-PyTorch memory, this process "
                                "has 11.79 GiB memory in use. Of the allocated memory 11.44 GiB is allocated by PyTorch, and "
                                "43.59 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
                                "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation."
                             << 0 << qint64(llround(19.68 * GiB)) << qint64(llround(23.68 * GiB))
                             << qint64(llround(11.44 * GiB)) << qint64(llround(11.44 * GiB) + llround(43.59 * MiB))
                             << qint64(llround(11.88 * GiB)) << qint64(llround(11.79 * GiB)) << none << none;
    QTest::newRow("2.1 capacty, other process") << "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB. "
                                                   "GPU 1 has a total capacty of 22.20 GiB of which 30.06 MiB is free. Process "
                                                   "48213 has 22.16 GiB memory in use. Of the allocated memory 21.50 GiB is "
                                                   "allocated by PyTorch, and 412.77 MiB is reserved by PyTorch but unallocated. If "
                                                   "reserved but unallocated memory is large try setting max_split_size_mb to "
                                                   "avoid fragmentation.  See documentation for Memory Management and "
                                                   "PYTORCH_CUDA_ALLOC_CONF"
                                                << 1 << qint64(64 * MiB) << qint64(llround(22.20 * GiB))
                                                << qint64(llround(21.5 * GiB)) << qint64(llround(21.5 * GiB) + llround(412.77 * MiB))
                                                << qint64(llround(30.06 * MiB)) << none << qint64(llround(22.16 * GiB)) << none;
    QTest::newRow("current, several processes") << "CUDA out of memory. Tried to allocate 3.00 GiB. GPU 0 has a total capacity of "
                                                   "79.15 GiB of which 1.2 GiB is free. Process 123 has 2.50 GiB memory in use. "
                                                   "Process 456 has 1.50 GiB memory in use. Including non-PyTorch memory, this "
                                                   "process has 74.00 GiB memory in use. 75.00 GiB allowed; Of the allocated memory "
                                                   "70.1 GiB is allocated by PyTorch, and 3.2 GiB is reserved by PyTorch but "
                                                   "unallocated. If reserved but unallocated memory is large try setting "
                                                   "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
                                                   "documentation for Memory Management  "
                                                   "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                                                << 0 << qint64(3 * GiB) << qint64(llround(79.15 * GiB)) << qint64(llround(70.1 * GiB))
                                                << qint64(llround(70.1 * GiB) + llround(3.2 * GiB)) << qint64(llround(1.2 * GiB))
                                                << qint64(74 * GiB) << qint64(4 * GiB) << qint64(75 * GiB);
    // The printed "allocated" already includes the private pools; "unallocated" is the rest of reserved.
    QTest::newRow("new with private pools") << "CUDA out of memory. Tried to allocate 512 bytes. GPU 3 has a total capacity of "
                                               "79.10 GiB of which 0 bytes is free. Of the allocated memory 70.00 GiB is "
                                               "allocated by PyTorch, with 2.00 GiB allocated in private pools (e.g., CUDA "
                                               "Graphs), and 1.00 GiB is reserved by PyTorch but unallocated."
                                            << 3 << qint64(512) << qint64(llround(79.10 * GiB)) << qint64(70 * GiB)
                                            << qint64(71 * GiB) << qint64(0) << none << none << none;
    QTest::newRow("ROCm HIP") << "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 5 has a total capacity "
                                 "of 191.98 GiB of which 1.50 GiB is free. Of the allocated memory 185.00 GiB is allocated by "
                                 "PyTorch, and 4.00 GiB is reserved by PyTorch but unallocated."
                              << 5 << qint64(2 * GiB) << qint64(llround(191.98 * GiB)) << qint64(185 * GiB) << qint64(189 * GiB)
                              << qint64(llround(1.5 * GiB)) << none << none << none;
    QTest::newRow("cut after the capacity") << "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 6; 39.59 GiB total "
                                               "capacity; 38.9"
                                            << 6 << qint64(20 * MiB) << qint64(llround(39.59 * GiB)) << none << none << none
                                            << none << none << none;
    QTest::newRow("bare torch.OutOfMemoryError") << "torch.OutOfMemoryError: CUDA out of memory." << -1 << none << none << none
                                                 << none << none << none << none << none;
    QTest::newRow("bare RuntimeError") << "RuntimeError: CUDA out of memory." << -1 << none << none << none << none << none
                                       << none << none << none;
    QTest::newRow("runtime error form") << "RuntimeError: CUDA error: out of memory" << -1 << none << none << none << none
                                        << none << none << none << none;
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
    QFETCH(qint64, processInUse);
    QFETCH(qint64, otherProcesses);
    QFETCH(qint64, allowed);
    const auto oom = MemorySummaryParser::parseOom(line.toStdString());
    QVERIFY(oom.has_value());
    QCOMPARE(qint64(oom->processInUse), processInUse);
    QCOMPARE(qint64(oom->otherProcessesInUse), otherProcesses);
    QCOMPARE(qint64(oom->allowed), allowed);
    QCOMPARE(oom->device, device);
    QCOMPARE(qint64(oom->requested), requested);
    QCOMPARE(qint64(oom->capacity), capacity);
    QCOMPARE(qint64(oom->allocated), allocated);
    QCOMPARE(qint64(oom->reserved), reserved);
    QCOMPARE(qint64(oom->free), free);
    QVERIFY(QString::fromStdString(oom->text).contains(QStringLiteral(" out of memory")));
    QVERIFY(!QString::fromStdString(oom->text).contains(QStringLiteral("Error:")));
}

void TestMemorySummary::notOoms_data()
{
    QTest::addColumn<QString>("line");
    QTest::newRow("fairseq warning") << "| WARNING: ran out of memory, retrying batch";
    QTest::newRow("prose") << "we ran out of memory yesterday";
    QTest::newRow("cpu allocator") << "RuntimeError: DefaultCPUAllocator: not enough memory: you tried to allocate 8 bytes.";
}

void TestMemorySummary::notOoms()
{
    QFETCH(QString, line);
    QVERIFY(!MemorySummaryParser::parseOom(line.toStdString()).has_value());
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
    QCOMPARE(b.source().counts.memorySummaries, 0); // only complete tables are counted
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1));
    QCOMPARE(b.source().diagnostics[0].code, std::string("summary-cut-off"));
    QCOMPARE(b.source().diagnostics[0].line, 8); // the last line the table had
    QVERIFY(b.source().diagnostics[0].message.find("line 1") != std::string::npos);
    QCOMPARE(b.memorySummaries().size(), std::size_t(1)); // but its rows are evidence
    QVERIFY(b.memorySummaries()[0].partial);
    QCOMPARE(b.memorySummaries()[0].row("Allocated memory")->peak, 2048 * MiB);
}

void TestMemorySummary::notClaimedByOtherText()
{
    const SourceBuilder b = importText("just some log\nwith | pipes | in it |\n");
    QVERIFY(b.source().format.empty());
    QCOMPARE(errors(b), std::size_t(1));
}

namespace {

SourceBuilder importFixture(const QString &name)
{
    ImportContext ctx;
    const QString path = QStringLiteral(RANKSCOPE_FIXTURES_DIR "/memorysummary/") + name;
    return ImporterRegistry::instance().importFile(path.toStdString(), ctx);
}

} // namespace

void TestMemorySummary::pastedVariants_data()
{
    // Fixtures written for this test (tests/fixtures/memorysummary/): the same PT 2.x table
    // (device 3) pasted in several ways, a PT 1.x table, and cut-off copies of the 2.x table.
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("device");
    QTest::addColumn<int>("ooms");
    QTest::addColumn<int>("rows");
    QTest::addColumn<bool>("partial");
    QTest::addColumn<qint64>("allocatedCurrent");
    QTest::addColumn<qint64>("allocatedTotal");
    QTest::addColumn<qint64>("reservedCurrent");
    QTest::addColumn<qint64>("nonReleasablePeak");
    QTest::addColumn<qint64>("line");
    QTest::newRow("'> ' on every line, blank '>' inside") << "pt2_quoted_prefix.txt" << 3 << 2 << 29 << false << qint64(40960 * MiB)
                                                        << qint64(812 * GiB) << qint64(76800 * MiB) << qint64(4210 * MiB) << qint64(3);
    QTest::newRow("one line, literal \\n") << "pt2_escaped_one_line.txt" << 3 << 2 << 29 << false << qint64(40960 * MiB) << qint64(812 * GiB)
                                           << qint64(76800 * MiB) << qint64(4210 * MiB) << qint64(1);
    QTest::newRow("title and a row glued on") << "pt2_glued_rows.txt" << 3 << 2 << 29 << false << qint64(40960 * MiB) << qint64(812 * GiB)
                                              << qint64(76800 * MiB) << qint64(4210 * MiB) << qint64(1);
    QTest::newRow("1.x MB/KB/GB, 767743 GB totals") << "pt1x_mixed_units.txt" << 0 << 7 << 24 << false << qint64(30210 * MiB)
                                                    << qint64(767743 * GiB) << qint64(31872 * MiB) << qint64(2047 * MiB) << qint64(2);
    QTest::newRow("cut mid-row at the end") << "pt2_cut_mid_row.txt" << 3 << 2 << 12 << true << qint64(40960 * MiB) << qint64(812 * GiB)
                                            << qint64(76800 * MiB) << qint64(-1) << qint64(1);
    QTest::newRow("cut by a traceback") << "pt2_cut_by_text.txt" << 3 << 2 << 13 << true << qint64(40960 * MiB) << qint64(812 * GiB)
                                        << qint64(76800 * MiB) << qint64(4210 * MiB) << qint64(1);
}

void TestMemorySummary::pastedVariants()
{
    QFETCH(QString, file);
    QFETCH(int, device);
    QFETCH(int, ooms);
    QFETCH(int, rows);
    QFETCH(bool, partial);
    QFETCH(qint64, allocatedCurrent);
    QFETCH(qint64, allocatedTotal);
    QFETCH(qint64, reservedCurrent);
    QFETCH(qint64, nonReleasablePeak);
    QFETCH(qint64, line);
    const SourceBuilder b = importFixture(file);
    QCOMPARE(b.source().format, std::string("memory-summary"));
    QCOMPARE(errors(b), std::size_t(0));
    QCOMPARE(b.memorySummaries().size(), std::size_t(1));
    const MemorySummary &m = b.memorySummaries()[0];
    QCOMPARE(m.device, device);
    QCOMPARE(int(m.ooms), ooms);
    QCOMPARE(int(m.rows.size()), rows);
    QCOMPARE(m.partial, partial);
    QCOMPARE(qint64(m.line), line);
    QCOMPARE(int(b.source().counts.memorySummaries), partial ? 0 : 1);
    QCOMPARE(int(b.diagnosticCount("summary-cut-off")), partial ? 1 : 0);
    QCOMPARE(b.source().diagnostics.size(), std::size_t(partial ? 1 : 0));
    QCOMPARE(qint64(m.row("Allocated memory")->current), allocatedCurrent);
    QCOMPARE(qint64(m.row("Allocated memory")->allocated), allocatedTotal);
    QCOMPARE(qint64(m.row("GPU reserved memory")->current), reservedCurrent);
    const MemorySummaryRow *nonReleasable = m.row("Non-releasable memory");
    QCOMPARE(nonReleasable ? qint64(nonReleasable->peak) : qint64(-1), nonReleasablePeak);
    QVERIFY(!m.abbreviated);
    // Sub-rows keep their parent's name whatever the paste did to the lines.
    QCOMPARE(qint64(m.row("Allocated memory", "small")->current), device == 3 ? 860 * MiB : 20 * MiB);
}

void TestMemorySummary::cutThenNextTable()
{
    // The first table lost its closing rule: the rule that opens the second one must not be taken
    // for its end, or the second table would be lost.
    const SourceBuilder b = importFixture("pt2_cut_then_next_table.txt");
    QCOMPARE(errors(b), std::size_t(0));
    QCOMPARE(b.memorySummaries().size(), std::size_t(2));
    const MemorySummary &first = b.memorySummaries()[0];
    const MemorySummary &second = b.memorySummaries()[1];
    QVERIFY(first.partial);
    QCOMPARE(first.device, 3);
    QCOMPARE(first.rows.size(), std::size_t(6));
    QVERIFY(!second.partial);
    QCOMPARE(second.device, 4);
    QCOMPARE(second.line, 15);
    QCOMPARE(second.rows.size(), std::size_t(29));
    QCOMPARE(b.source().counts.memorySummaries, 1);
    QCOMPARE(b.diagnosticCount("summary-cut-off"), 1);
    QCOMPARE(b.source().diagnostics[0].line, 15);
}

void TestMemorySummary::prefixedRowsKeepTheirPipe()
{
    // A log prefix that itself holds a '|' (docker-compose "svc | "): the opening rule's prefix is
    // stripped from every line, so the rows still have a name and 4 cells.
    std::string text = "noise before\n";
    const std::string t = table(2, 0, 1, {"| Allocated memory      |   1024 MiB |   2048 MiB |      3 GiB |      2 GiB |",
                                          "|       from large pool |   1000 MiB |   2000 MiB |      3 GiB |      2 GiB |"});
    std::size_t from = 0;
    while (from < t.size()) {
        const auto nl = t.find('\n', from);
        text += "trainer_1  | " + t.substr(from, nl - from) + "\n";
        from = nl + 1;
    }
    const SourceBuilder b = importText(text, "compose.log");
    QCOMPARE(errors(b), std::size_t(0));
    QCOMPARE(b.memorySummaries().size(), std::size_t(1));
    QCOMPARE(b.memorySummaries()[0].device, 2);
    QCOMPARE(b.memorySummaries()[0].row("Allocated memory", "large")->peak, 2000 * MiB);
    QCOMPARE(b.source().counts.memorySummaries, 1);
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

void TestMemorySummary::evofillSample()
{
    // Expected readings from SOURCES.md: a PT 2.x table pasted into Python as comments ("# ").
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/memory_summary/evofill_pytorch2x_oom1_python_comment.txt");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("memory-summary"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.memorySummaries, 1);
    QCOMPARE(b.source().counts.oomMessages, 0);
    const MemorySummary &m = b.memorySummaries().at(0);
    QCOMPARE(m.device, 0);
    QCOMPARE(m.line, 3);
    QVERIFY(!m.partial);
    QCOMPARE(m.ooms, 1);
    QCOMPARE(m.allocRetries, 1);
    QCOMPARE(m.rows.size(), std::size_t(29));
    const MemorySummaryRow *a = m.row("Allocated memory");
    QCOMPARE(a->current, 682537 * KiB);
    QCOMPARE(a->peak, 65430 * MiB);
    QCOMPARE(a->allocated, 3115 * GiB);
    QCOMPARE(a->freed, 3114 * GiB);
    QCOMPARE(m.row("Requested memory")->current, 682012 * KiB);
    const MemorySummaryRow *r = m.row("GPU reserved memory");
    QCOMPARE(r->current, 66984 * MiB);
    QCOMPARE(r->peak, 66984 * MiB);
    QCOMPARE(r->allocated, 67132 * MiB);
    QCOMPARE(r->freed, 151552 * KiB);
    QCOMPARE(m.row("Non-releasable memory")->current, 7639 * KiB);
    QCOMPARE(m.row("Non-releasable memory")->peak, 2381 * MiB);
    const MemorySummaryRow *n = m.row("Allocations");
    QCOMPARE(n->current, 502);
    QCOMPARE(n->peak, 517);
    QCOMPARE(n->allocated, 33598);
    QCOMPARE(n->freed, 33096);
    QVERIFY(!n->isBytes);
    QCOMPARE(m.row("GPU reserved segments")->current, 113);
    QCOMPARE(m.row("GPU reserved segments", "large")->current, 14);
    QCOMPARE(m.row("GPU reserved segments", "small")->current, 99);
    const MemorySummaryRow *na = m.row("Non-releasable allocs");
    QCOMPARE(na->current, 8);
    QCOMPARE(na->peak, 16);
    QCOMPARE(na->allocated, 16648);
    QCOMPARE(na->freed, 16640);
    for (const char *oversize : {"Oversize allocations", "Oversize GPU segments"}) {
        const MemorySummaryRow *o = m.row(oversize);
        QVERIFY(o);
        QCOMPARE(o->current + o->peak + o->allocated + o->freed, 0);
    }
}

QTEST_GUILESS_MAIN(TestMemorySummary)
#include "test_memorysummary.moc"
