// The Clock Offsets panel says when an estimate is doubtful: a Low-confidence offset shows a
// warning icon and colour in the Method column with the reason in its tooltip; a High one, or an
// offset the user typed, shows none.

#include "panels/clockoffsetspanel.h"

#include <QTableWidget>
#include <QTest>

using namespace rs;

class TestClockOffsetsPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void confidence_data();
    void confidence();
};

void TestClockOffsetsPanel::confidence_data()
{
    QTest::addColumn<int>("method");
    QTest::addColumn<bool>("low");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<bool>("overridden");
    QTest::addColumn<bool>("warned");
    const int coll = int(AlignmentMethod::Collectives), steps = int(AlignmentMethod::Steps);
    QTest::newRow("collectives, high") << coll << false << QString() << false << false;
    QTest::newRow("collectives, few anchors") << coll << true << QStringLiteral("only 3 collectives matched") << false << true;
    QTest::newRow("steps only") << steps << true << QStringLiteral("step ends only (steps do not end together exactly)") << false
                                << true;
    // The user's own offset is not judged, whatever the estimate was.
    QTest::newRow("low, then typed by the user") << coll << true << QStringLiteral("only 3 collectives matched") << true << false;
}

void TestClockOffsetsPanel::confidence()
{
    QFETCH(int, method);
    QFETCH(bool, low);
    QFETCH(QString, reason);
    QFETCH(bool, overridden);
    QFETCH(bool, warned);
    auto r = std::make_shared<AnalysisResult>();
    for (RankId rank : {0, 1}) {
        RankAlignment a;
        a.rank = rank;
        a.reference = 0;
        a.method = rank == 0 ? AlignmentMethod::Collectives : AlignmentMethod(method);
        a.anchors = 3;
        a.residualNs = 2000;
        a.host = rank == 0 ? "gpu-node-07" : "";
        if (rank == 1 && low) {
            a.confidence = RankAlignment::Confidence::Low;
            a.confidenceReason = reason.toStdString();
        }
        r->alignment.push_back(a);
    }
    ClockOffsetsPanel panel;
    panel.setResult(r);
    if (overridden)
        panel.setOffset(1, 12'345);
    const QTableWidgetItem *m = panel.table()->item(panel.rowOf(1), ClockOffsetsPanel::MethodColumn);
    QVERIFY(m);
    QCOMPARE(m->data(Qt::UserRole).toBool(), warned);
    QCOMPARE(!m->icon().isNull(), warned);
    QCOMPARE(m->toolTip().contains(QLatin1String("Low confidence")), warned);
    if (warned) {
        QVERIFY2(m->toolTip().contains(reason), qPrintable(m->toolTip()));
        QVERIFY(m->foreground().color() != panel.table()->item(panel.rowOf(0), ClockOffsetsPanel::MethodColumn)->foreground().color());
    }
    // The host a rank ran on is named where it is known.
    QCOMPARE(panel.table()->item(panel.rowOf(0), ClockOffsetsPanel::RankColumn)->toolTip(), QStringLiteral("Rank 0 on host gpu-node-07"));
    QVERIFY(panel.table()->item(panel.rowOf(1), ClockOffsetsPanel::RankColumn)->toolTip().isEmpty());
    // The reference row is never warned.
    const QTableWidgetItem *ref = panel.table()->item(panel.rowOf(0), ClockOffsetsPanel::MethodColumn);
    QVERIFY(!ref->data(Qt::UserRole).toBool());
    QVERIFY(ref->icon().isNull());
}

QTEST_MAIN(TestClockOffsetsPanel)
#include "test_clockoffsetspanel.moc"
