// The Source Settings dialog round-trips plain values: a single-rank file's override, a multi-rank
// file's GPU → rank map (unchanged means automatic, a map the user set stays set until reset), and
// the session's time zone, which must be one the system knows. SourceSettings translates between a
// session plus the choices in force and what the dialog shows, and writes the answer back.

#include "evidencesession.h"

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
    void settingsFromTheSession();
    void answersWriteBackIntoTheChoices();
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

void TestSourceSettings::settingsFromTheSession()
{
    const test::EvidenceSession e = test::makeEvidenceSession();
    const Session &s = *e.session;
    InputChoices choices;
    choices.timeZone = "Asia/Tokyo";
    // A single-rank trace: its rank and where it came from.
    const SourceSettings trace = SourceSettings::forSource(s, 1, choices);
    QCOMPARE(trace.path, QStringLiteral("/incident/rank1.pt.trace.json"));
    QVERIFY(!trace.multiRank);
    QCOMPARE(trace.currentRank, 1);
    QCOMPARE(trace.rankOrigin, SourceSettings::originWords(RankOrigin::Content));
    QCOMPARE(trace.rankOverride, std::nullopt);
    QCOMPARE(trace.timeZone, QStringLiteral("Asia/Tokyo"));
    // The zone matters to the CSV and the log only.
    QCOMPARE(trace.zoneSources, QStringList({QStringLiteral("smi.csv"), QStringLiteral("job.log")}));
    // nvidia-smi: GPU index → the rank of that GPU's tracks, from the device index.
    const SourceSettings smi = SourceSettings::forSource(s, 2, choices);
    QVERIFY(smi.multiRank);
    QCOMPARE(smi.mapKeyName, QStringLiteral("GPU index"));
    QCOMPARE(smi.mapOrigin, SourceSettings::originWords(RankOrigin::DeviceIndex));
    QCOMPARE(smi.currentMap, (std::map<int, RankId>{{0, 0}, {1, 1}}));
    QCOMPARE(smi.rankMap, std::nullopt);
    // A job log feeding ranks 0 and 1 maps its own ranks.
    const SourceSettings log = SourceSettings::forSource(s, 3, choices);
    QVERIFY(log.multiRank);
    QCOMPARE(log.mapKeyName, QStringLiteral("Rank in the file"));
    // The user's choices in force are shown.
    choices.rankOverrides["/incident/rank1.pt.trace.json"] = 5;
    choices.rankMaps["/incident/smi.csv"] = {{0, 6}, {1, 7}, {3, 9}};
    QCOMPARE(SourceSettings::forSource(s, 1, choices).rankOverride, std::optional<RankId>(5));
    const SourceSettings mapped = SourceSettings::forSource(s, 2, choices);
    QCOMPARE(mapped.rankMap, std::optional(std::map<int, RankId>{{0, 6}, {1, 7}, {3, 9}}));
    QVERIFY(mapped.currentMap.count(3)); // a mapped GPU keeps its row
}

void TestSourceSettings::answersWriteBackIntoTheChoices()
{
    InputChoices choices;
    choices.rankOverrides["/traces/other.json"] = 1;
    SourceSettings single = singleRank();
    single.rankOverride = 4;
    single.timeZone = QStringLiteral("UTC");
    single.applyTo(choices);
    QCOMPARE(choices.rankOverrides.at("/traces/worker3.pt.trace.json"), 4);
    QCOMPARE(choices.rankOverrides.at("/traces/other.json"), 1);
    QCOMPARE(choices.timeZone, std::string("UTC"));
    // Back to automatic drops the entry.
    single.rankOverride.reset();
    single.applyTo(choices);
    QVERIFY(!choices.rankOverrides.count("/traces/worker3.pt.trace.json"));
    SourceSettings multi = multiRank();
    multi.rankMap = std::map<int, RankId>{{0, 2}, {1, 3}};
    multi.applyTo(choices);
    QCOMPARE(choices.rankMaps.at("/logs/smi.csv"), (std::map<RankId, RankId>{{0, 2}, {1, 3}}));
    QCOMPARE(choices.timeZone, std::string("Europe/Berlin"));
    multi.rankMap.reset();
    multi.applyTo(choices);
    QVERIFY(choices.rankMaps.empty());
    // The dialog's answer goes through the same path.
    SourceSettingsDialog d(multiRank());
    d.mapRankSpin(0)->setValue(9);
    d.settings().applyTo(choices);
    QCOMPARE(choices.rankMaps.at("/logs/smi.csv").at(0), 9);
}

QTEST_MAIN(TestSourceSettings)
#include "test_sourcesettings.moc"
