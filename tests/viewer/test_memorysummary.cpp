// The memory summaries table: the latest table of each rank as a column, metric rows with their
// pool sub-rows, the derived rows (reserved − allocated, OOM count, cudaMalloc retries, the linked
// OOM's request), each cell's deviation from the median of the ranks and its colour (warm above,
// cool below, neutral near), all under QAbstractItemModelTester. Clicking a rank's header selects
// the rank in the view state.

#include "evidencesession.h"

#include "models/memorysummarymodel.h"
#include "panels/memorysummarypanel.h"
#include "timeformat.h"
#include "viewstate.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QHeaderView>
#include <QTableView>
#include <QTest>

using namespace rs;
using namespace rs::test;

using Kind = MemorySummaryModel::RowKind;

class TestMemorySummary : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void columnsAreTheLatestTableOfEachRank();
    void metricRowsWithPools();
    void derivedRows();
    void deviationDirectionAndColour();
    void statisticSwitchesTheMetricRows();
    void bytesInCellsExactInTooltips();
    void headerClickSelectsTheRank();
    void cutOffTableIsMarked_data();
    void cutOffTableIsMarked();

private:
    EvidenceSession m_e;
    MemorySummaryModel *m_model = nullptr;
    QAbstractItemModelTester *m_tester = nullptr;

    qlonglong value(Kind kind, RankId rank, const std::string &metric = {}, const std::string &pool = "all") const
    {
        return m_model->index(m_model->rowOf(kind, metric, pool), m_model->columnOf(rank)).data(MemorySummaryModel::ValueRole).toLongLong();
    }
    QVariant deviation(Kind kind, RankId rank, const std::string &metric = {}) const
    {
        return m_model->index(m_model->rowOf(kind, metric), m_model->columnOf(rank)).data(MemorySummaryModel::DeviationRole);
    }
};

void TestMemorySummary::init()
{
    m_e = makeEvidenceSession();
    m_model = new MemorySummaryModel;
    m_tester = new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_model->setSession(m_e.session);
}

void TestMemorySummary::cleanup()
{
    delete m_tester;
    delete m_model;
}

void TestMemorySummary::columnsAreTheLatestTableOfEachRank()
{
    // Ranks 1 (job.log) and 2 (two tables in its file); rank 0 printed none.
    QCOMPARE(m_model->columnCount(), 2);
    QCOMPARE(m_model->columnOf(0), -1);
    QCOMPARE(m_model->headerData(0, Qt::Horizontal).toString(), QStringLiteral("Rank 1"));
    QCOMPARE(m_model->headerData(1, Qt::Horizontal, MemorySummaryModel::RankRole).toInt(), 2);
    // Rank 2's later table (41 GiB allocated), not its first (1 GiB).
    QCOMPARE(value(Kind::Metric, 2, "Allocated memory"), 41 * kGiB);
    QCOMPARE(m_model->index(0, m_model->columnOf(2)).data(MemorySummaryModel::SummaryIndexRole).toInt(), 2);
    QVERIFY(m_model->headerData(1, Qt::Horizontal, Qt::ToolTipRole).toString().contains(QLatin1String("rank2_summary.txt:40")));
    m_model->setSession(nullptr);
    QCOMPARE(m_model->columnCount(), 0);
    QCOMPARE(m_model->rowCount(), 0);
}

void TestMemorySummary::metricRowsWithPools()
{
    const int allocated = m_model->rowOf(Kind::Metric, "Allocated memory");
    const int large = m_model->rowOf(Kind::Metric, "Allocated memory", "large");
    const int small = m_model->rowOf(Kind::Metric, "Allocated memory", "small");
    QVERIFY(allocated >= 0);
    QCOMPARE(large, allocated + 1);
    QCOMPARE(small, allocated + 2);
    QVERIFY(m_model->headerData(large, Qt::Vertical).toString().contains(QLatin1String("large pool")));
    QCOMPARE(value(Kind::Metric, 1, "Allocated memory", "small"), 64 * kMiB);
    // Count rows keep only their total; "Non-releasable memory" is a row of the table itself.
    QVERIFY(m_model->rowOf(Kind::Metric, "Allocations") >= 0);
    QCOMPARE(m_model->rowOf(Kind::Metric, "Allocations", "large"), -1);
    QCOMPARE(value(Kind::Metric, 1, "Non-releasable memory"), 8 * kGiB);
    QCOMPARE(m_model->index(m_model->rowOf(Kind::Metric, "Allocations"), 0).data(MemorySummaryModel::IsBytesRole).toBool(), false);
}

void TestMemorySummary::derivedRows()
{
    // The derived rows lead the table.
    QCOMPARE(m_model->rowOf(Kind::OomCount), 0);
    QCOMPARE(value(Kind::ReservedMinusAllocated, 1), 8 * kGiB);
    QCOMPARE(value(Kind::ReservedMinusAllocated, 2), 3 * kGiB);
    QCOMPARE(value(Kind::OomCount, 1), 1LL);
    QCOMPARE(value(Kind::OomCount, 2), 0LL);
    QCOMPARE(value(Kind::AllocRetries, 1), 3LL);
    QCOMPARE(value(Kind::AllocRetries, 2), 1LL);
    // Only rank 1's table follows an OOM; rank 2's cell is empty, not zero.
    QCOMPARE(value(Kind::OomRequested, 1), 2 * kGiB);
    const QModelIndex none = m_model->index(m_model->rowOf(Kind::OomRequested), m_model->columnOf(2));
    QVERIFY(!none.data(MemorySummaryModel::ValueRole).isValid());
    QCOMPARE(none.data().toString(), QStringLiteral("—"));
    QVERIFY(!none.data(MemorySummaryModel::DeviationRole).isValid());
}

void TestMemorySummary::deviationDirectionAndColour()
{
    // Two ranks: the median is their mean, so the larger is above and the smaller below.
    const double above = deviation(Kind::Metric, 1, "Allocated memory").toDouble();
    const double below = deviation(Kind::Metric, 2, "Allocated memory").toDouble();
    QVERIFY(above > MemorySummaryModel::kNeutralBand);
    QVERIFY(below < -MemorySummaryModel::kNeutralBand);
    QCOMPARE(m_model->index(m_model->rowOf(Kind::Metric, "Allocated memory"), 0).data(MemorySummaryModel::MedianRole).toLongLong(),
             (70 * kGiB + 41 * kGiB) / 2);
    const QColor warm = m_model->index(m_model->rowOf(Kind::Metric, "Allocated memory"), m_model->columnOf(1))
                            .data(Qt::BackgroundRole).value<QColor>();
    const QColor cool = m_model->index(m_model->rowOf(Kind::Metric, "Allocated memory"), m_model->columnOf(2))
                            .data(Qt::BackgroundRole).value<QColor>();
    QVERIFY2(warm.red() > warm.blue(), qPrintable(warm.name()));
    QVERIFY2(cool.blue() > cool.red(), qPrintable(cool.name()));
    // Equal values (64 MiB small pools) are neutral.
    const QModelIndex small = m_model->index(m_model->rowOf(Kind::Metric, "Allocated memory", "small"), 0);
    QCOMPARE(small.data(MemorySummaryModel::DeviationRole).toDouble(), 0.0);
    QCOMPARE(small.data(Qt::BackgroundRole).value<QColor>(), QColor(Qt::white));
    // The colour deepens with the distance and saturates.
    QCOMPARE(MemorySummaryModel::deviationColor(0.03), QColor(Qt::white));
    QVERIFY(MemorySummaryModel::deviationColor(0.4).lightness() < MemorySummaryModel::deviationColor(0.1).lightness());
    QCOMPARE(MemorySummaryModel::deviationColor(0.5), MemorySummaryModel::deviationColor(3.0));
    QVERIFY(MemorySummaryModel::deviationColor(-0.5).blue() > MemorySummaryModel::deviationColor(-0.5).red());
    // One OOM against none is far off, although the median is 0.
    QVERIFY(deviation(Kind::OomCount, 1).toDouble() >= MemorySummaryModel::kFullColour);
}

void TestMemorySummary::statisticSwitchesTheMetricRows()
{
    QCOMPARE(value(Kind::Metric, 1, "Allocated memory"), 70 * kGiB);
    m_model->setStatistic(MemorySummaryModel::Statistic::Peak);
    QCOMPARE(value(Kind::Metric, 1, "Allocated memory"), 71 * kGiB);
    m_model->setStatistic(MemorySummaryModel::Statistic::TotalFreed);
    QCOMPARE(value(Kind::Metric, 1, "Allocated memory"), 3 * 70 * kGiB);
    // Reserved − allocated stays on current usage, as its label says.
    QCOMPARE(value(Kind::ReservedMinusAllocated, 1), 8 * kGiB);
}

void TestMemorySummary::bytesInCellsExactInTooltips()
{
    const QModelIndex i = m_model->index(m_model->rowOf(Kind::Metric, "GPU reserved memory"), m_model->columnOf(1));
    QCOMPARE(i.data().toString(), TimeFormat::bytes(78.0 * kGiB));
    QVERIFY(i.data(Qt::ToolTipRole).toString().contains(QLocale().toString(78 * kGiB)));
    QVERIFY(i.data(Qt::ToolTipRole).toString().contains(QLatin1String("above")));
    const QModelIndex count = m_model->index(m_model->rowOf(Kind::AllocRetries), m_model->columnOf(1));
    QCOMPARE(count.data().toString(), QStringLiteral("3"));
}

void TestMemorySummary::headerClickSelectsTheRank()
{
    ViewState state;
    MemorySummaryPanel panel(&state);
    panel.setSession(m_e.session);
    panel.resize(700, 400);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QHeaderView *header = panel.view()->horizontalHeader();
    const int column = panel.model()->columnOf(2);
    const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(state.selectedRank(), 2);
    QVERIFY(panel.model()->headerData(column, Qt::Horizontal, Qt::FontRole).value<QFont>().bold());
    // A second click clears it.
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(state.selectedRank(), kNoRank);
    // The statistic combo drives the model.
    panel.statisticCombo()->setCurrentIndex(1);
    QCOMPARE(panel.model()->statistic(), MemorySummaryModel::Statistic::Peak);
}

void TestMemorySummary::cutOffTableIsMarked_data()
{
    QTest::addColumn<bool>("partial");
    QTest::newRow("cut off") << true;
    QTest::newRow("complete") << false;
}

void TestMemorySummary::cutOffTableIsMarked()
{
    // A table cut mid-way keeps the rows read before the cut; its column says it is partial.
    QFETCH(bool, partial);
    SessionBuilder sb;
    SourceBuilder b("/incident/cut.txt");
    b.source().format = "memory-summary";
    b.source().ranks = {0};
    MemorySummary m = makeSummary(kNoRank, 3 * kGiB, 4 * kGiB, 0, 0, 7);
    m.partial = partial;
    if (partial)
        m.rows.resize(2);
    b.addMemorySummary(m);
    b.finish();
    sb.addSource(std::move(b));
    const SessionPtr session = sb.freeze();
    MemorySummaryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setSession(session);
    QCOMPARE(model.columnCount(), 1);
    const QString header = model.headerData(0, Qt::Horizontal).toString();
    const QString tip = model.headerData(0, Qt::Horizontal, Qt::ToolTipRole).toString();
    QCOMPARE(header, partial ? QStringLiteral("Rank 0 (cut off)") : QStringLiteral("Rank 0"));
    QCOMPARE(tip.contains(QLatin1String("cut off")), partial);
    if (partial)
        QVERIFY(tip.contains(QLatin1String("2 complete rows")));
}

QTEST_MAIN(TestMemorySummary)
#include "test_memorysummary.moc"
