// The Source Settings dialog round-trips plain values: a single-rank file's override, a multi-rank
// file's GPU → rank map (unchanged means automatic, a map the user set stays set until reset), and
// the session's time zone, which must be one the system knows.

#include "dialogs/sourcesettingsdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QTest>

using namespace rs;

namespace {

SourceSettings singleRank()
{
    SourceSettings s;
    s.path = QStringLiteral("/traces/worker3.pt.trace.json");
    s.format = QStringLiteral("pytorch-trace");
    s.currentRank = 3;
    s.rankOrigin = QStringLiteral("the file name");
    s.zoneSources = {QStringLiteral("smi.csv")};
    return s;
}

SourceSettings multiRank()
{
    SourceSettings s;
    s.path = QStringLiteral("/logs/smi.csv");
    s.format = QStringLiteral("nvidia-smi");
    s.multiRank = true;
    s.mapKeyName = QStringLiteral("GPU index");
    s.mapOrigin = QStringLiteral("the GPU index");
    s.currentMap = {{0, 0}, {1, 1}, {2, 2}};
    s.timeZone = QStringLiteral("Europe/Berlin");
    return s;
}

QPushButton *button(QDialog &d, const QString &text)
{
    for (QPushButton *b : d.findChildren<QPushButton *>())
        if (b->text() == text)
            return b;
    return nullptr;
}

} // namespace

class TestSourceSettings : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void singleRankOverride();
    void openingAndApplyingChangesNothing();
    void editedMapIsReturned();
    void userMapStaysUntilAutomatic();
    void timeZoneRoundTrip();
    void unknownTimeZoneIsRefused();
};

void TestSourceSettings::singleRankOverride()
{
    SourceSettingsDialog d(singleRank());
    QVERIFY(d.overrideCheck() && d.rankSpin());
    QVERIFY(!d.mapTable());
    QVERIFY(!d.overrideCheck()->isChecked());
    QVERIFY(!d.rankSpin()->isEnabled());
    QCOMPARE(d.rankSpin()->value(), 3); // starts from the current rank
    QCOMPARE(d.settings().rankOverride, std::nullopt);
    d.overrideCheck()->setChecked(true);
    QVERIFY(d.rankSpin()->isEnabled());
    d.rankSpin()->setValue(5);
    QCOMPARE(d.settings().rankOverride, std::optional<RankId>(5));
    d.accept();
    QCOMPARE(d.result(), int(QDialog::Accepted));

    // An existing override is shown and can be dropped.
    SourceSettings again = singleRank();
    again.rankOverride = 7;
    SourceSettingsDialog d2(again);
    QVERIFY(d2.overrideCheck()->isChecked());
    QCOMPARE(d2.rankSpin()->value(), 7);
    d2.overrideCheck()->setChecked(false);
    QCOMPARE(d2.settings().rankOverride, std::nullopt);
}

void TestSourceSettings::openingAndApplyingChangesNothing()
{
    SourceSettingsDialog d(multiRank());
    QVERIFY(d.mapTable() && !d.overrideCheck());
    QCOMPARE(d.mapTable()->rowCount(), 3);
    QCOMPARE(d.mapTable()->horizontalHeaderItem(0)->text(), QStringLiteral("GPU index"));
    QCOMPARE(d.mapRankSpin(2)->value(), 2);
    const SourceSettings out = d.settings();
    QCOMPARE(out.rankMap, std::nullopt);
    QCOMPARE(out.timeZone, QStringLiteral("Europe/Berlin"));
    QCOMPARE(out.path, QStringLiteral("/logs/smi.csv"));
}

void TestSourceSettings::editedMapIsReturned()
{
    SourceSettingsDialog d(multiRank());
    d.mapRankSpin(0)->setValue(8);
    d.mapRankSpin(2)->setValue(10);
    const std::map<int, RankId> expected{{0, 8}, {1, 1}, {2, 10}};
    QCOMPARE(d.settings().rankMap, std::optional(expected));
    // Two GPUs on one rank is allowed but pointed out.
    d.mapRankSpin(1)->setValue(8);
    bool warned = false;
    for (QLabel *l : d.findChildren<QLabel *>())
        warned = warned || l->text().contains(QLatin1String("rank 8"));
    QVERIFY(warned);
}

void TestSourceSettings::userMapStaysUntilAutomatic()
{
    SourceSettings in = multiRank();
    in.rankMap = std::map<int, RankId>{{0, 4}, {1, 5}, {2, 6}};
    in.currentMap = {{0, 4}, {1, 5}, {2, 6}};
    SourceSettingsDialog d(in);
    QCOMPARE(d.mapRankSpin(1)->value(), 5);
    QCOMPARE(d.settings().rankMap, in.rankMap); // kept although unchanged
    QPushButton *automatic = button(d, QStringLiteral("Automatic"));
    QVERIFY(automatic && automatic->isEnabled());
    automatic->click();
    QCOMPARE(d.settings().rankMap, std::nullopt);
    QVERIFY(!d.mapTable()->isEnabled());

    // Without a user map there is nothing to reset.
    SourceSettingsDialog plain(multiRank());
    QVERIFY(!button(plain, QStringLiteral("Automatic"))->isEnabled());
}

void TestSourceSettings::timeZoneRoundTrip()
{
    SourceSettingsDialog d(singleRank());
    QComboBox *zone = d.timeZoneCombo();
    QCOMPARE(zone->currentIndex(), 0); // local
    QCOMPARE(d.settings().timeZone, QString());
    zone->setCurrentIndex(zone->findData(QStringLiteral("Asia/Tokyo")));
    QCOMPARE(d.settings().timeZone, QStringLiteral("Asia/Tokyo"));
    // Typing an id works as well as picking it.
    zone->setEditText(QStringLiteral("UTC"));
    QCOMPARE(d.settings().timeZone, QStringLiteral("UTC"));
    d.accept();
    QCOMPARE(d.result(), int(QDialog::Accepted));
}

void TestSourceSettings::unknownTimeZoneIsRefused()
{
    SourceSettingsDialog d(singleRank());
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.timeZoneCombo()->setEditText(QStringLiteral("Mars/Olympus_Mons"));
    d.accept();
    QVERIFY(d.isVisible());
    QCOMPARE(d.result(), int(QDialog::Rejected));
    bool explained = false;
    for (QLabel *l : d.findChildren<QLabel *>())
        explained = explained || (l->isVisible() && l->text().contains(QLatin1String("Mars/Olympus_Mons")));
    QVERIFY(explained);
}

QTEST_MAIN(TestSourceSettings)
#include "test_sourcesettings.moc"
