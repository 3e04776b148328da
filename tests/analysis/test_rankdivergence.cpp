// Divergent ranks: robust z scores on continuous metrics (an outlier cannot hide by inflating the
// spread), the MAD-0 case, the 5 % floor that keeps tight distributions quiet, structural
// divergence of counts against the value a majority shares, and nothing from fewer than 3 ranks.

#include "rankdivergence.h"

#include <QTest>

#include <cmath>

using namespace rs;

namespace {

// Metrics of ranks 0..n-1 with peak_allocated_bytes set from `values`.
std::vector<RankMetrics> peaks(const QList<double> &values)
{
    std::vector<RankMetrics> out;
    for (qsizetype i = 0; i < values.size(); ++i) {
        RankMetrics m;
        m.rank = RankId(i);
        m.peakAllocatedBytes = std::int64_t(values[i]);
        out.push_back(m);
    }
    return out;
}

std::vector<RankMetrics> steps(const QList<int> &values)
{
    std::vector<RankMetrics> out;
    for (qsizetype i = 0; i < values.size(); ++i) {
        RankMetrics m;
        m.rank = RankId(i);
        m.steps = values[i];
        out.push_back(m);
    }
    return out;
}

} // namespace

class TestRankDivergence : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void robustZ_data();
    void robustZ();
    void structural_data();
    void structural();
    void metricsAreIndependent();
    void strongestFirst();
    void latenessMustMatter_data();
    void latenessMustMatter();
};

void TestRankDivergence::robustZ_data()
{
    QTest::addColumn<QList<double>>("values");
    QTest::addColumn<int>("rank");       // -1: nobody diverges
    QTest::addColumn<double>("median");
    QTest::addColumn<double>("score");
    // median 100, deviations 0,1,1,0,2,2,0,50 → MAD 1: z = 50 / 1.4826.
    QTest::newRow("one outlier") << QList<double>{100, 101, 99, 100, 102, 98, 100, 150} << 7 << 100.0 << 50 / 1.4826;
    QTest::newRow("low outlier") << QList<double>{100, 101, 99, 100, 102, 98, 100, 60} << 7 << 100.0 << -40 / 1.4826;
    // Every other rank agrees exactly: MAD 0, so any real difference is an outlier.
    QTest::newRow("MAD 0") << QList<double>{1000, 1000, 1000, 1100} << 3 << 1000.0 << 100.0;
    // Near misses: MAD 0 but only 4 % away; an even spread (z 1.1); the outlier of a tiny spread
    // that is still under 5 % of the median.
    QTest::newRow("MAD 0, under 5 %") << QList<double>{1000, 1000, 1000, 1040} << -1 << 0.0 << 0.0;
    QTest::newRow("even spread") << QList<double>{100, 104, 96, 108, 92, 112} << -1 << 0.0 << 0.0;
    QTest::newRow("tight, under 5 %") << QList<double>{1000, 1001, 999, 1000, 1001, 999, 1040} << -1 << 0.0 << 0.0;
    QTest::newRow("two ranks") << QList<double>{100, 300} << -1 << 0.0 << 0.0;
}

void TestRankDivergence::robustZ()
{
    QFETCH(QList<double>, values);
    QFETCH(int, rank);
    QFETCH(double, median);
    QFETCH(double, score);
    const auto d = RankDivergence::find(peaks(values));
    if (rank < 0) {
        QVERIFY2(d.empty(), d.empty() ? "" : d.front().reason.c_str());
        return;
    }
    QCOMPARE(d.size(), std::size_t(1));
    QCOMPARE(d[0].rank, rank);
    QCOMPARE(QString::fromStdString(d[0].metric), QStringLiteral("peak_allocated_bytes"));
    QCOMPARE(d[0].value, values[rank]);
    QCOMPARE(d[0].median, median);
    QVERIFY2(std::fabs(d[0].score - score) < 1e-9, qPrintable(QString::number(d[0].score)));
}

void TestRankDivergence::structural_data()
{
    QTest::addColumn<QList<int>>("values");
    QTest::addColumn<QList<int>>("ranks"); // diverging ranks, in rank order
    QTest::addColumn<int>("mode");
    QTest::newRow("one extra step") << QList<int>{10, 10, 10, 11} << QList<int>{3} << 10;
    QTest::newRow("one missing step") << QList<int>{10, 9, 10, 10, 10} << QList<int>{1} << 10;
    QTest::newRow("two odd ranks") << QList<int>{10, 12, 10, 10, 9} << QList<int>{1, 4} << 10;
    // No value is shared by a majority: nothing is "normal".
    QTest::newRow("split evenly") << QList<int>{10, 10, 11, 11} << QList<int>{} << 0;
    QTest::newRow("all agree") << QList<int>{7, 7, 7} << QList<int>{} << 0;
    QTest::newRow("two ranks") << QList<int>{7, 8} << QList<int>{} << 0;
}

void TestRankDivergence::structural()
{
    QFETCH(QList<int>, values);
    QFETCH(QList<int>, ranks);
    QFETCH(int, mode);
    auto d = RankDivergence::find(steps(values));
    std::sort(d.begin(), d.end(), [](const Divergence &a, const Divergence &b) { return a.rank < b.rank; });
    QCOMPARE(int(d.size()), int(ranks.size()));
    for (std::size_t i = 0; i < d.size(); ++i) {
        QCOMPARE(d[i].rank, ranks[qsizetype(i)]);
        QCOMPARE(QString::fromStdString(d[i].metric), QStringLiteral("steps"));
        QCOMPARE(d[i].median, double(mode));
        QCOMPARE(d[i].score, d[i].value > mode ? 100.0 : -100.0);
    }
    if (!ranks.isEmpty()) {
        const int n = int(values.size());
        const int agree = int(std::count(values.begin(), values.end(), mode));
        const std::string expected = "rank " + std::to_string(ranks[0]) + " has " + std::to_string(values[ranks[0]])
            + " steps where " + std::to_string(agree) + " of " + std::to_string(n) + " ranks have " + std::to_string(mode);
        QCOMPARE(QString::fromStdString(d[0].reason), QString::fromStdString(expected));
    }
}

void TestRankDivergence::metricsAreIndependent()
{
    // Rank 2 has the odd step time; rank 1 misses the memory metric entirely (no counters), which
    // must neither count as zero nor hide rank 2.
    std::vector<RankMetrics> m(5);
    const double stepMs[] = {100, 101, 180, 99, 100};
    for (int i = 0; i < 5; ++i) {
        m[std::size_t(i)].rank = i;
        m[std::size_t(i)].stepTimeMedianNs = TimeNs(stepMs[i] * 1e6);
        if (i != 1)
            m[std::size_t(i)].peakAllocatedBytes = 40LL << 30;
    }
    const auto d = RankDivergence::find(m);
    QCOMPARE(d.size(), std::size_t(1));
    QCOMPARE(d[0].rank, 2);
    QCOMPARE(QString::fromStdString(d[0].metric), QStringLiteral("step_time_median_ns"));
    QCOMPARE(d[0].median, 100e6);
    QCOMPARE(QString::fromStdString(d[0].reason), QStringLiteral("rank 2 median step time 180.000 ms vs median 100.000 ms"));
}

void TestRankDivergence::strongestFirst()
{
    std::vector<RankMetrics> m(4);
    for (int i = 0; i < 4; ++i) {
        m[std::size_t(i)].rank = i;
        m[std::size_t(i)].microBatches = i == 3 ? 10 : 9;              // structural: score 100
        m[std::size_t(i)].peakAllocatedBytes = std::int64_t(i == 0 ? 60 : 50) << 30; // MAD 0: 100 as well
        m[std::size_t(i)].inputElements = 1000 + (i == 3 ? 200 : i);   // z = 198.5 / (1.4826 · 1) ≈ 134
    }
    const auto d = RankDivergence::find(m);
    QCOMPARE(d.size(), std::size_t(3));
    QCOMPARE(QString::fromStdString(d[0].metric), QStringLiteral("input_elements"));
    QVERIFY(std::fabs(d[0].score - 198.5 / (1.4826 * 1.0)) < 1e-9);
    for (const Divergence &x : d)
        QVERIFY(std::fabs(x.score) <= std::fabs(d[0].score));
}

void TestRankDivergence::latenessMustMatter_data()
{
    QTest::addColumn<QList<double>>("lateMs");  // median arrival delay of ranks 0..n-1, ms
    QTest::addColumn<double>("stepMs");         // every rank's median step, ms (0: no steps)
    QTest::addColumn<int>("rank");              // -1: nobody diverges
    // The tight spread makes any of these an outlier by z; only the material ones count.
    QTest::newRow("5 ms late, 100 ms steps") << QList<double>{0.10, 0.12, 0.11, 5.1, 0.10} << 100.0 << 3;
    QTest::newRow("5 ms late, no steps") << QList<double>{0.10, 0.12, 0.11, 5.1, 0.10} << 0.0 << 3;
    // Near misses: half a millisecond (the healthy DLRM run's ranks 4 and 5); 5 ms against 1 s
    // steps (under 1 %); the earliest rank, whose delay is 0 while its peers' are 3 ms.
    QTest::newRow("0.5 ms late") << QList<double>{0.02, 0.03, 0.02, 0.55, 0.02} << 100.0 << -1;
    QTest::newRow("5 ms late, 1 s steps") << QList<double>{0.10, 0.12, 0.11, 5.1, 0.10} << 1000.0 << -1;
    QTest::newRow("earliest rank") << QList<double>{3.0, 0.0, 3.01, 3.02, 2.99} << 100.0 << -1;
    // Just over both floors: 1.2 ms against 100 ms steps.
    QTest::newRow("1.2 ms late, 100 ms steps") << QList<double>{0.01, 0.02, 1.21, 0.01, 0.02} << 100.0 << 2;
}

void TestRankDivergence::latenessMustMatter()
{
    QFETCH(QList<double>, lateMs);
    QFETCH(double, stepMs);
    QFETCH(int, rank);
    std::vector<RankMetrics> m;
    for (qsizetype i = 0; i < lateMs.size(); ++i) {
        RankMetrics x;
        x.rank = RankId(i);
        x.collectiveLatenessNs = TimeNs(lateMs[i] * 1e6);
        if (stepMs > 0)
            x.stepTimeMedianNs = TimeNs(stepMs * 1e6);
        m.push_back(x);
    }
    const auto d = RankDivergence::find(m);
    if (rank < 0) {
        QVERIFY2(d.empty(), d.empty() ? "" : d.front().reason.c_str());
        return;
    }
    QCOMPARE(d.size(), std::size_t(1));
    QCOMPARE(d[0].rank, rank);
    QCOMPARE(QString::fromStdString(d[0].metric), QStringLiteral("collective_lateness_ns"));
    QVERIFY(d[0].score > 0);
}

QTEST_GUILESS_MAIN(TestRankDivergence)
#include "test_rankdivergence.moc"
