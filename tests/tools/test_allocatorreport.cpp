// The allocator text the demo's job log carries: torch.cuda.memory_summary() and the
// OutOfMemoryError message. Checked against PyTorch's own output (a real 2.x table from
// ../shared/samples, re-rendered from its numbers), the worked example of FORMATS.md §2.1, and the
// regular expressions of FORMATS.md §2.2 that the importers use.

#include "allocatorreport.h"
#include "cachingallocatormodel.h"

#include <QFile>
#include <QRegularExpression>
#include <QStringList>
#include <QTest>

using namespace rs::tracegen;

namespace {

constexpr std::int64_t kKiB = 1 << 10;
constexpr std::int64_t kMiB = 1 << 20;
constexpr std::int64_t kGiB = 1LL << 30;

AllocatorStats::Stat stat(std::int64_t current, std::int64_t peak, std::int64_t allocated, std::int64_t freed)
{
    AllocatorStats::Stat s;
    s.current = current;
    s.peak = peak;
    s.allocated = allocated;
    s.freed = freed;
    return s;
}

// "14324 MiB" → bytes, "1234 K" → count: the inverse of the table's cells (exact for what they show).
std::int64_t cellValue(QString cell)
{
    static const QHash<QString, std::int64_t> units = {
        {"B", 1}, {"KiB", kKiB}, {"MiB", kMiB}, {"GiB", kGiB}, {"K", 1000}, {"M", 1000000}};
    const QStringList parts = cell.simplified().split(QLatin1Char(' '));
    return parts[0].toLongLong() * (parts.size() > 1 ? units.value(parts[1], 1) : 1);
}

} // namespace

class TestAllocatorReport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void summaryLinesAreSeventySevenCharacters()
    {
        CachingAllocatorModel a(10 * kGiB, 0x7f0000000000LL);
        const auto x = a.allocate(300 * kMiB);
        a.allocate(4096);
        a.release(x.block);
        const QStringList lines = QString::fromStdString(AllocatorReport::memorySummary(a.stats(), 3))
                                      .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 47); // 9 metrics x 3 rows, 2 oversize rows, frame and header
        for (const QString &l : lines) {
            QCOMPARE(l.size(), 77);
            QVERIFY(l.startsWith(QLatin1Char('|')) && l.endsWith(QLatin1Char('|')));
        }
        QCOMPARE(lines[1], QStringLiteral("|                  PyTorch CUDA memory summary, device ID 3                 |"));
        QCOMPARE(lines[5], QStringLiteral("|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |"));
    }

    void matchesTheWorkedExampleOfFormatsMd()
    {
        AllocatorStats s;
        s.numOoms = 1;
        s.numAllocRetries = 3;
        s.allocatedBytes[AllocatorStats::All] = stat(10752 * kMiB, 14540 * kMiB, 900 * kGiB, 889 * kGiB);
        s.reservedBytes[AllocatorStats::All] = stat(15360 * kMiB, 15360 * kMiB, 15360 * kMiB, 0);
        s.inactiveSplitBytes[AllocatorStats::All] = stat(300 * kMiB, 1126 * kMiB, 409600 * kMiB, 409292 * kMiB);
        s.allocation[AllocatorStats::All] = stat(1543, 2210, 1234567, 1233024);
        const QString text = QString::fromStdString(AllocatorReport::memorySummary(s, 0));
        for (const char *line : {
                 "|            CUDA OOMs: 1            |        cudaMalloc retries: 3         |",
                 "| Allocated memory      |  10752 MiB |  14540 MiB |    900 GiB |    889 GiB |",
                 "| GPU reserved memory   |  15360 MiB |  15360 MiB |  15360 MiB |      0 B   |",
                 "| Non-releasable memory | 307200 KiB |   1126 MiB | 409600 MiB | 409292 MiB |",
                 "| Allocations           |    1543    |    2210    |    1234 K  |    1233 K  |",
                 "| Oversize GPU segments |       0    |       0    |       0    |       0    |"})
            QVERIFY2(text.contains(QLatin1String(line)), line);
    }

    void reproducesARealPytorchTable()
    {
        const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/memory_summary/instructlab_l4_pytorch2x_after_model_load.txt");
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            QSKIP("shared sample not present");
        const QString real = QString::fromUtf8(f.readAll());
        // Rebuild the counters from the printed cells, then print them again.
        static const QHash<QString, AllocatorStats::PoolStats AllocatorStats::*> rows = {
            {"Allocated memory", &AllocatorStats::allocatedBytes}, {"Active memory", &AllocatorStats::activeBytes},
            {"Requested memory", &AllocatorStats::requestedBytes}, {"GPU reserved memory", &AllocatorStats::reservedBytes},
            {"Non-releasable memory", &AllocatorStats::inactiveSplitBytes}, {"Allocations", &AllocatorStats::allocation},
            {"Active allocs", &AllocatorStats::active}, {"GPU reserved segments", &AllocatorStats::segment},
            {"Non-releasable allocs", &AllocatorStats::inactiveSplit}};
        AllocatorStats s;
        AllocatorStats::PoolStats *current = nullptr;
        for (const QString &line : real.split(QLatin1Char('\n'))) {
            const QStringList cells = line.split(QLatin1Char('|'));
            if (cells.size() != 7)
                continue;
            const QString name = cells[1].trimmed();
            const int pool = name == QLatin1String("from large pool") ? 1 : name == QLatin1String("from small pool") ? 2 : 0;
            if (pool == 0)
                current = rows.contains(name) ? &(s.*rows.value(name)) : nullptr;
            if (current)
                (*current)[std::size_t(pool)] = stat(cellValue(cells[2]), cellValue(cells[3]), cellValue(cells[4]),
                                                     cellValue(cells[5]));
        }
        QCOMPARE(QString::fromStdString(AllocatorReport::memorySummary(s, 0)), real);
    }

    void formatsSizesLikeC10()
    {
        QCOMPARE(AllocatorReport::formatSize(0), std::string("0 bytes"));
        QCOMPARE(AllocatorReport::formatSize(1024), std::string("1024 bytes"));
        QCOMPARE(AllocatorReport::formatSize(1536), std::string("1.50 KiB"));
        QCOMPARE(AllocatorReport::formatSize(20 * kMiB), std::string("20.00 MiB"));
        QCOMPARE(AllocatorReport::formatSize(kGiB), std::string("1024.00 MiB"));
        QCOMPARE(AllocatorReport::formatSize(84987740160), std::string("79.15 GiB"));
    }

    void oomMessageMatchesTheImportersPatterns()
    {
        OomRecord oom;
        oom.segment = 576 * kMiB;
        oom.allocated = 60 * kGiB;
        oom.reserved = 62 * kGiB;
        const GpuSpec gpu;
        const QString text = QString::fromStdString(AllocatorReport::oomMessage(oom, gpu, 2));
        static const QRegularExpression head(QStringLiteral(
            R"(^CUDA out of memory\. Tried to allocate ([\d.]+ \w+)\. GPU (\d+) has a total capacity of ([\d.]+ \w+) of which ([\d.]+ \w+) is free\. Including non-PyTorch memory, this process has ([\d.]+ \w+) memory in use\. )"));
        static const QRegularExpression tail(QStringLiteral(
            R"(Of the allocated memory ([\d.]+ \w+) is allocated by PyTorch, and ([\d.]+ \w+) is reserved by PyTorch but unallocated\. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation\.  See documentation for Memory Management  \(https://pytorch\.org/docs/stable/notes/cuda\.html#environment-variables\)$)"));
        const auto h = head.match(text);
        QVERIFY2(h.hasMatch(), qPrintable(text));
        QCOMPARE(h.captured(1), QStringLiteral("576.00 MiB"));
        QCOMPARE(h.captured(2), QStringLiteral("2"));
        QCOMPARE(h.captured(3), QStringLiteral("79.15 GiB"));
        // Free is what the device has left beside this process: its cache plus its own context and NCCL.
        QCOMPARE(h.captured(4).toStdString(), AllocatorReport::formatSize(gpu.totalMemory - 62 * kGiB - gpu.nonPytorchMemory()));
        QCOMPARE(h.captured(5).toStdString(), AllocatorReport::formatSize(62 * kGiB + gpu.nonPytorchMemory()));
        const auto t = tail.match(text);
        QVERIFY2(t.hasMatch(), qPrintable(text));
        QCOMPARE(t.captured(1), QStringLiteral("60.00 GiB"));
        QCOMPARE(t.captured(2), QStringLiteral("2.00 GiB"));
    }
};

QTEST_GUILESS_MAIN(TestAllocatorReport)
#include "test_allocatorreport.moc"
