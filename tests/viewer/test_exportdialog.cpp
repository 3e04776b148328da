// File ▸ Export view… (ExportDialog) on the demo incident: its defaults come from the view it is
// given (window, ranks, size, title) while nothing is remembered; the pixel-ratio control only
// applies to PNG; accepting adds the chosen format's suffix to the path; options() carries the
// size, title, window (visible or whole), ranks (shown or all; a choice independent of the
// window's), lane detail and whether finding annotations are drawn; accepted choices are
// remembered for the next dialog. QSettings are kept
// in a temporary folder, so runs do not leak into each other or into the user's settings.

#include "charts/memorychartrenderer.h"
#include "analyzer.h"
#include "export/exportdialog.h"
#include "importerregistry.h"
#include "sessionbuilder.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

using namespace rs;

#include "exportfixtures.h"

using rs::test::loadFolder;

namespace {

int comboIndexOf(const QComboBox *combo, FigureExporter::Format f)
{
    return combo->findData(static_cast<int>(f));
}

// The dialog exposes the "visible window" and "shown ranks" buttons; their partners are found by text.
QRadioButton *radio(const QDialog &dlg, const QString &prefix)
{
    for (QRadioButton *b : dlg.findChildren<QRadioButton *>())
        if (b->text().startsWith(prefix))
            return b;
    return nullptr;
}

bool hasOrigin(const std::vector<Annotation> &v, Annotation::Origin o)
{
    return std::any_of(v.begin(), v.end(), [o](const Annotation &a) { return a.origin == o; });
}

} // namespace

class TestExportDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void defaultsFromView_data();
    void defaultsFromView();
    void formats_data();
    void formats();
    void acceptAddsSuffix_data();
    void acceptAddsSuffix();
    void optionsReflectChoices_data();
    void optionsReflectChoices();
    void choicesAreRemembered();
    void viewFromOptions();

private:
    // The view the dialog is given: ranks 0-2 shown, the middle half of the session, the findings
    // as annotations plus one user note, 1200 px wide, titled.
    FigureOptions view(bool withRange) const;

    QTemporaryDir m_settingsDir;
    QTemporaryDir m_out;
    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    TimeRange m_full;
};

void TestExportDialog::initTestCase()
{
    rs::MemoryChartRenderer::install();
    QVERIFY(m_settingsDir.isValid());
    QVERIFY(m_out.isValid());
    QStandardPaths::setTestModeEnabled(true);
    // Before any QSettings exists: the dialog's settings land in the temporary folder.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("RankScopeTest"));
    QCoreApplication::setApplicationName(QStringLiteral("test_exportdialog"));
    m_session = rs::test::loadFolder(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"));
    QCOMPARE(m_session->ranks().size(), std::size_t(4));
    m_analysis = std::make_shared<const AnalysisResult>(Analyzer::run(*m_session));
    QVERIFY(!annotationsFromFindings(*m_analysis).empty());
    m_full = m_session->timeRange();
    QVERIFY(!m_full.isEmpty());
}

void TestExportDialog::init()
{
    // Each test starts from "never exported": remembered choices are a test of their own.
    QSettings().remove(QStringLiteral("export"));
}

FigureOptions TestExportDialog::view(bool withRange) const
{
    FigureOptions o;
    if (withRange)
        o.range = {m_full.begin + m_full.duration() / 4, m_full.begin + 3 * (m_full.duration() / 4)};
    o.ranks = {0, 1, 2};
    o.collapsed = {1};
    o.annotations = annotationsFromFindings(*m_analysis);
    Annotation note;
    note.rank = 2;
    note.time = m_full.begin + m_full.duration() / 2;
    note.endTime = note.time;
    note.text = QStringLiteral("user note");
    o.annotations.push_back(note);
    o.width = 1200;
    o.title = QStringLiteral("Ticket 7");
    return o;
}

void TestExportDialog::defaultsFromView_data()
{
    QTest::addColumn<bool>("withRange");
    QTest::newRow("view with a visible window") << true;
    QTest::newRow("view of the whole session") << false;
}

void TestExportDialog::defaultsFromView()
{
    QFETCH(bool, withRange);
    const FigureOptions v = view(withRange);
    ExportDialog dlg(m_session, m_analysis, v);
    QCOMPARE(dlg.format(), FigureExporter::Format::Png);
    QCOMPARE(dlg.visibleRangeButton()->isChecked(), withRange);
    QCOMPARE(dlg.visibleRangeButton()->isEnabled(), withRange);
    QVERIFY(dlg.shownRanksButton()->isChecked());
    QVERIFY2(dlg.shownRanksButton()->text().contains(QLatin1String("(3)")), qPrintable(dlg.shownRanksButton()->text()));
    QCOMPARE(dlg.widthSpin()->value(), 1200);
    QCOMPARE(dlg.heightSpin()->value(), 0);
    QCOMPARE(dlg.titleEdit()->text(), QStringLiteral("Ticket 7"));
    QVERIFY(dlg.findingsCheck()->isChecked());
    QVERIFY(dlg.pathEdit()->text().endsWith(QLatin1String(".png")));
    QVERIFY(dlg.previewLabel()->pixmap().width() > 0);

    const FigureOptions o = dlg.options();
    QCOMPARE(o.range, v.range);
    QCOMPARE(o.ranks, v.ranks);
    QCOMPARE(o.collapsed, v.collapsed);
    QCOMPARE(o.annotations.size(), v.annotations.size());
    QCOMPARE(o.width, 1200);
    QCOMPARE(o.title, QStringLiteral("Ticket 7"));
}

void TestExportDialog::formats_data()
{
    QTest::addColumn<FigureExporter::Format>("format");
    QTest::addColumn<bool>("dprEnabled");
    QTest::addColumn<double>("dpr"); // options().devicePixelRatio with the spin box at 3
    QTest::addColumn<QString>("suffix");
    QTest::newRow("PNG") << FigureExporter::Format::Png << true << 3.0 << QStringLiteral(".png");
    QTest::newRow("SVG") << FigureExporter::Format::Svg << false << 1.0 << QStringLiteral(".svg");
    QTest::newRow("PDF") << FigureExporter::Format::Pdf << false << 1.0 << QStringLiteral(".pdf");
}

void TestExportDialog::formats()
{
    QFETCH(FigureExporter::Format, format);
    QFETCH(bool, dprEnabled);
    QFETCH(double, dpr);
    QFETCH(QString, suffix);
    ExportDialog dlg(m_session, m_analysis, view(true));
    dlg.dprSpin()->setValue(3.0);
    // Start from another format, so that choosing `format` is a change the dialog reacts to.
    dlg.formatCombo()->setCurrentIndex(comboIndexOf(dlg.formatCombo(), format == FigureExporter::Format::Pdf
                                                                          ? FigureExporter::Format::Svg
                                                                          : FigureExporter::Format::Pdf));
    dlg.formatCombo()->setCurrentIndex(comboIndexOf(dlg.formatCombo(), format));
    QCOMPARE(dlg.format(), format);
    QCOMPARE(dlg.dprSpin()->isEnabled(), dprEnabled);
    QCOMPARE(dlg.options().devicePixelRatio, dpr);
    // The default file name follows the format.
    QVERIFY2(dlg.pathEdit()->text().endsWith(suffix), qPrintable(dlg.pathEdit()->text()));
    QVERIFY(dlg.path().endsWith(suffix));
}

void TestExportDialog::acceptAddsSuffix_data()
{
    QTest::addColumn<FigureExporter::Format>("format");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no suffix, SVG") << FigureExporter::Format::Svg << QStringLiteral("figure") << QStringLiteral("figure.svg");
    QTest::newRow("no suffix, PDF") << FigureExporter::Format::Pdf << QStringLiteral("figure") << QStringLiteral("figure.pdf");
    QTest::newRow("no suffix, PNG") << FigureExporter::Format::Png << QStringLiteral("figure") << QStringLiteral("figure.png");
    QTest::newRow("another figure suffix is replaced") << FigureExporter::Format::Pdf << QStringLiteral("figure.png")
                                                       << QStringLiteral("figure.pdf");
    QTest::newRow("other suffixes stay in the name") << FigureExporter::Format::Svg << QStringLiteral("figure.v2")
                                                     << QStringLiteral("figure.v2.svg");
    QTest::newRow("matching suffix kept") << FigureExporter::Format::Svg << QStringLiteral("figure.svg")
                                          << QStringLiteral("figure.svg");
}

void TestExportDialog::acceptAddsSuffix()
{
    QFETCH(FigureExporter::Format, format);
    QFETCH(QString, typed);
    QFETCH(QString, expected);
    ExportDialog dlg(m_session, m_analysis, view(true));
    dlg.formatCombo()->setCurrentIndex(comboIndexOf(dlg.formatCombo(), format));
    dlg.pathEdit()->setText(m_out.filePath(typed));
    dlg.accept();
    QCOMPARE(dlg.result(), int(QDialog::Accepted));
    QCOMPARE(dlg.path(), m_out.filePath(expected));
    QCOMPARE(dlg.pathEdit()->text(), m_out.filePath(expected));
}

void TestExportDialog::optionsReflectChoices_data()
{
    QTest::addColumn<bool>("wholeSession");
    QTest::addColumn<bool>("allRanks");
    QTest::addColumn<bool>("findings");
    QTest::addColumn<int>("detail"); // index in the lanes combo: 0 compact, 1 full
    QTest::newRow("visible window, shown ranks, findings, compact") << false << false << true << 0;
    QTest::newRow("whole session, all ranks, no findings, full") << true << true << false << 1;
    QTest::newRow("whole session, shown ranks, no findings") << true << false << false << 0;
    QTest::newRow("visible window, all ranks, findings, full") << false << true << true << 1;
}

void TestExportDialog::optionsReflectChoices()
{
    QFETCH(bool, wholeSession);
    QFETCH(bool, allRanks);
    QFETCH(bool, findings);
    QFETCH(int, detail);
    const FigureOptions v = view(true);
    ExportDialog dlg(m_session, m_analysis, v);
    dlg.widthSpin()->setValue(900);
    dlg.heightSpin()->setValue(640);
    dlg.titleEdit()->setText(QStringLiteral("  OOM on rank 2  "));
    QRadioButton *whole = radio(dlg, QStringLiteral("Whole session"));
    QRadioButton *all = radio(dlg, QStringLiteral("All ranks"));
    QVERIFY(whole && all);
    if (wholeSession)
        whole->setChecked(true);
    if (allRanks)
        all->setChecked(true);
    dlg.findingsCheck()->setChecked(findings);
    dlg.detailCombo()->setCurrentIndex(detail);
    QCOMPARE(dlg.visibleRangeButton()->isChecked(), !wholeSession);
    QCOMPARE(dlg.shownRanksButton()->isChecked(), !allRanks);

    const FigureOptions o = dlg.options();
    QCOMPARE(o.width, 900);
    QCOMPARE(o.height, 640);
    QCOMPARE(o.title, QStringLiteral("OOM on rank 2"));
    QCOMPARE(o.range, wholeSession ? TimeRange{} : v.range);
    QCOMPARE(o.ranks, allRanks ? std::vector<RankId>{} : v.ranks);
    QCOMPARE(o.detail, detail == 1 ? FigureOptions::Detail::Full : FigureOptions::Detail::Compact);
    QCOMPARE(hasOrigin(o.annotations, Annotation::Origin::Finding), findings);
    QVERIFY2(hasOrigin(o.annotations, Annotation::Origin::User), "the user's note is drawn either way");
    const auto findingCount = std::count_if(v.annotations.begin(), v.annotations.end(),
                                            [](const Annotation &a) { return a.origin == Annotation::Origin::Finding; });
    QCOMPARE(std::ptrdiff_t(o.annotations.size()), std::ptrdiff_t(v.annotations.size()) - (findings ? 0 : findingCount));
}

void TestExportDialog::choicesAreRemembered()
{
    {
        ExportDialog dlg(m_session, m_analysis, view(true));
        dlg.formatCombo()->setCurrentIndex(comboIndexOf(dlg.formatCombo(), FigureExporter::Format::Pdf));
        dlg.widthSpin()->setValue(2400);
        dlg.findingsCheck()->setChecked(false);
        dlg.detailCombo()->setCurrentIndex(1);
        dlg.pathEdit()->setText(m_out.filePath(QStringLiteral("remembered")));
        dlg.accept();
        QCOMPARE(dlg.result(), int(QDialog::Accepted));
    }
    QVERIFY2(QSettings().fileName().startsWith(m_settingsDir.path()), qPrintable(QSettings().fileName()));
    ExportDialog next(m_session, m_analysis, view(true));
    QCOMPARE(next.format(), FigureExporter::Format::Pdf);
    QCOMPARE(next.widthSpin()->value(), 2400);
    QVERIFY(!next.findingsCheck()->isChecked());
    QCOMPARE(next.detailCombo()->currentIndex(), 1);
    QCOMPARE(next.pathEdit()->text(), m_out.filePath(QStringLiteral("rankscope-timeline.pdf")));
    QVERIFY(!next.dprSpin()->isEnabled());
}

void TestExportDialog::viewFromOptions()
{
    // Opened on the Compare Ranks tab: the compare figure, its reference kept, a compare file name;
    // lanes and findings do not apply to it.
    FigureOptions v = view(true);
    v.view = FigureOptions::View::Compare;
    v.referenceRank = 3;
    ExportDialog dlg(m_session, m_analysis, v);
    QCOMPARE(dlg.viewCombo()->currentIndex(), 1);
    QVERIFY2(dlg.pathEdit()->text().endsWith(QLatin1String("rankscope-compare.png")), qPrintable(dlg.pathEdit()->text()));
    QVERIFY(!dlg.detailCombo()->isEnabled());
    QVERIFY(!dlg.findingsCheck()->isEnabled());
    QCOMPARE(dlg.options().view, FigureOptions::View::Compare);
    QCOMPARE(dlg.options().referenceRank, RankId(3));
    QVERIFY(dlg.previewLabel()->pixmap().width() > 0);
    // Switching to the timeline follows in the options, the file name and the enabled choices.
    dlg.viewCombo()->setCurrentIndex(0);
    QCOMPARE(dlg.options().view, FigureOptions::View::Timeline);
    QVERIFY2(dlg.pathEdit()->text().endsWith(QLatin1String("rankscope-timeline.png")), qPrintable(dlg.pathEdit()->text()));
    QVERIFY(dlg.detailCombo()->isEnabled() && dlg.findingsCheck()->isEnabled());
    // A file the person named keeps its name.
    dlg.pathEdit()->setText(m_out.filePath(QStringLiteral("ticket-7.png")));
    dlg.viewCombo()->setCurrentIndex(1);
    QCOMPARE(dlg.pathEdit()->text(), m_out.filePath(QStringLiteral("ticket-7.png")));
    // The Timeline tab's options open on the timeline.
    ExportDialog timeline(m_session, m_analysis, view(true));
    QCOMPARE(timeline.viewCombo()->currentIndex(), 0);
}

QTEST_MAIN(TestExportDialog)
#include "test_exportdialog.moc"
