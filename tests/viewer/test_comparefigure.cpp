// The compare figure of the demo incident (resources/demo): SVG whose rank labels, "reference",
// metric column titles and rank 2's peak stay <text>; PNG at the requested size and pixel ratio,
// with rank 2's OOM red and the metric cells in RankMetricsModel's deviation colours; the reference
// rank as chosen or the median rank; the report with FILE-compare.png beside it and linked. The
// test runs under a QGuiApplication (its own main), so a QWidget created anywhere on the export
// path aborts it: the headless `rankscope export --view compare` depends on that.

#include "charts/memorychartrenderer.h"
#include "analyzer.h"
#include "compare/rankmetricsmodel.h"
#include "compare/referencerank.h"
#include "compare/smallmultiplespainter.h"
#include "export/comparefigure.h"
#include "export/figureexporter.h"
#include "export/reportwriter.h"
#include "importerregistry.h"
#include "rankcolors.h"
#include "sessionbuilder.h"
#include "timeformat.h"

#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

using namespace rs;

#include "exportfixtures.h"

using rs::test::countColor;
using rs::test::loadFolder;
using rs::test::svgTexts;

class TestCompareFigure : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void svgKeepsText();
    void png_data();
    void png();
    void colours();
    void reference();
    void report();
    void sample();

private:
    FigureOptions compareOptions() const;

    QTemporaryDir m_dir;
    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
};

void TestCompareFigure::initTestCase()
{
    rs::MemoryChartRenderer::install(); // the report's timeline image draws memory charts
    QVERIFY(m_dir.isValid());
    m_session = loadFolder(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"));
    QCOMPARE(m_session->ranks().size(), std::size_t(4));
    m_analysis = std::make_shared<const AnalysisResult>(Analyzer::run(*m_session));
    QVERIFY(m_analysis->metricsOf(2) && m_analysis->metricsOf(2)->peakAllocatedBytes);
}

FigureOptions TestCompareFigure::compareOptions() const
{
    FigureOptions o;
    o.view = FigureOptions::View::Compare;
    o.timeZone = QTimeZone::utc();
    return o;
}

void TestCompareFigure::svgKeepsText()
{
    const QString path = m_dir.filePath(QStringLiteral("compare.svg"));
    QString error;
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Svg, compareOptions(), &error), qPrintable(error));
    int images = -1;
    const QStringList texts = svgTexts(path, &images);
    QCOMPARE(images, 0);
    for (RankId r = 0; r < 4; ++r)
        QVERIFY2(texts.contains(QStringLiteral("rank %1").arg(r)), qPrintable(QStringLiteral("rank %1 label").arg(r)));
    QVERIFY(texts.contains(QStringLiteral("reference")));
    for (int c = 0; c < RankMetricsModel::ColumnCount; ++c)
        QVERIFY2(texts.contains(RankMetricsModel::columnTitle(c)), qPrintable(RankMetricsModel::columnTitle(c)));
    // Rank 2's peak as the table writes it.
    const QString peak = TimeFormat::bytes(double(*m_analysis->metricsOf(2)->peakAllocatedBytes));
    QVERIFY2(texts.contains(peak), qPrintable(peak));
    // The default reference is the median rank, and the title line says so.
    const RankId median = ReferenceRank::pick(m_analysis->metrics);
    QVERIFY(std::any_of(texts.begin(), texts.end(), [&](const QString &t) {
        return t.contains(QStringLiteral("reference rank %1 (the median rank)").arg(median));
    }));
    // The shared title block: the top finding's title and the window.
    const CompareFigure figure(m_session, m_analysis, compareOptions());
    QVERIFY(texts.contains(figure.title()));
    QVERIFY(texts.contains(figure.rangeText()));
}

void TestCompareFigure::png_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("dpr");
    QTest::newRow("default width, content height") << 1600 << 0 << 1.0;
    QTest::newRow("fixed size, retina") << 1000 << 700 << 2.0;
    QTest::newRow("fixed height too small: scaled") << 900 << 300 << 1.0;
    QTest::newRow("tall: rows stretch") << 1200 << 1400 << 1.0;
}

void TestCompareFigure::png()
{
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, dpr);
    FigureOptions o = compareOptions();
    o.width = width;
    o.height = height;
    o.devicePixelRatio = dpr;
    const CompareFigure figure(m_session, m_analysis, o);
    const QSize logical = figure.size();
    QCOMPARE(logical.width(), width);
    if (height > 0)
        QCOMPARE(logical.height(), height);
    else
        QVERIFY(logical.height() > 500);
    const QString path = m_dir.filePath(QStringLiteral("compare-%1x%2.png").arg(width).arg(height));
    QString error;
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Png, o, &error), qPrintable(error));
    const QImage img(path);
    QCOMPARE(img.size(), QSize(qRound(logical.width() * dpr), qRound(logical.height() * dpr)));
    // Rank 2 ran out of memory: its red rule and marker are on the figure at every size.
    QVERIFY(countColor(img, SmallMultiplesPainter::oomColor()) > 10);
}

void TestCompareFigure::colours()
{
    const QImage img = FigureExporter(m_session, m_analysis).image(compareOptions());
    img.save(m_dir.filePath(QStringLiteral("colours.png")));
    // Rank 2's peak-allocated cell is filled with the colour the on-screen table gives it.
    const RankId median = ReferenceRank::pick(m_analysis->metrics);
    QVERIFY(median != 2);
    const RankMetrics *ref = m_analysis->metricsOf(median);
    const QColor cell = RankMetricsModel::cellBackground(*m_analysis->metricsOf(2), ref, RankMetricsModel::PeakAllocatedColumn);
    QVERIFY(cell.isValid() && cell != QColor(Qt::white));
    QVERIFY2(countColor(img, cell) > 600, "rank 2's peak cell (about 100 x 20 pixels) in its deviation colour");
    // The rank stripes of the table and the multiples.
    for (RankId r = 0; r < 4; ++r)
        QVERIFY(countColor(img, RankColors::color(r)) > 100);
}

void TestCompareFigure::reference()
{
    const RankId median = ReferenceRank::pick(m_analysis->metrics);
    FigureOptions o = compareOptions();
    {
        const CompareFigure f(m_session, m_analysis, o);
        QCOMPARE(f.referenceRank(), median);
        QVERIFY(f.referenceIsMedian());
        QCOMPARE(f.ranks(), (std::vector<RankId>{0, 1, 2, 3}));
        QCOMPARE(f.tableRows().size(), std::size_t(4));
    }
    o.referenceRank = 3;
    o.ranks = {2, 0};
    {
        const CompareFigure f(m_session, m_analysis, o);
        QCOMPARE(f.referenceRank(), RankId(3));
        QVERIFY(!f.referenceIsMedian());
        QCOMPARE(f.ranks(), (std::vector<RankId>{2, 0}));
        // The reference leads the table when it has no row of its own.
        QCOMPARE(f.tableRows().size(), std::size_t(3));
        QCOMPARE(f.tableRows().front()->rank, RankId(3));
        QCOMPARE(f.tableRows().back()->rank, RankId(0));
    }
    o.referenceRank = 9; // not in the session: back to the median rank
    QCOMPARE(CompareFigure(m_session, m_analysis, o).referenceRank(), median);
    // Without an analysis there is no yardstick, and the figure still draws.
    const CompareFigure bare(m_session, nullptr, compareOptions());
    QCOMPARE(bare.referenceRank(), kNoRank);
    QVERIFY(bare.tableRows().empty());
    QVERIFY(!FigureExporter(m_session, nullptr).image(compareOptions()).isNull());
}

void TestCompareFigure::report()
{
    const QString md = m_dir.filePath(QStringLiteral("ticket/incident.md"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ticket"))));
    QStringList written;
    QString error;
    // A compare-view figure still gives the report its timeline, and the compare figure beside it.
    QVERIFY2(ReportWriter::write(md, m_session, m_analysis, compareOptions(), {}, &error, &written), qPrintable(error));
    const QString compare = ReportWriter::imagePath(md, QStringLiteral("compare"));
    QCOMPARE(compare, m_dir.filePath(QStringLiteral("ticket/incident-compare.png")));
    QVERIFY(written.contains(compare));
    QVERIFY(written.contains(ReportWriter::imagePath(md, QStringLiteral("timeline"))));
    const QImage img(compare);
    QVERIFY(!img.isNull());
    QCOMPARE(img.width(), 1600);
    // The timeline image is the timeline, not a second compare figure: they differ in height.
    QVERIFY(QImage(ReportWriter::imagePath(md, QStringLiteral("timeline"))).height() != img.height());
    QFile f(md);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY2(text.contains(QStringLiteral("](<incident-compare.png>)")), "compare image linked relatively");
    QVERIFY(text.contains(QStringLiteral("Memory and per-rank metrics of 4 ranks against the median rank, rank %1")
                              .arg(ReferenceRank::pick(m_analysis->metrics))));
    // And left out when asked.
    ReportWriter::Options without;
    without.compare = false;
    QVERIFY(QFile::remove(compare));
    QVERIFY(ReportWriter::write(md, m_session, m_analysis, compareOptions(), without, &error, &written));
    QVERIFY(!written.contains(compare) && !QFile::exists(compare));
}

void TestCompareFigure::sample()
{
    const QString dir = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/profiler/param_dlrm_8rank");
    if (!QDir(dir).exists())
        QSKIP("shared/samples/profiler/param_dlrm_8rank is not present");
    const SessionPtr s = loadFolder(dir);
    QCOMPARE(s->ranks().size(), std::size_t(8));
    auto a = std::make_shared<const AnalysisResult>(Analyzer::run(*s));
    FigureOptions o = compareOptions();
    const QString path = m_dir.filePath(QStringLiteral("dlrm-compare.png"));
    QString error;
    QVERIFY2(FigureExporter(s, a).exportTo(path, FigureExporter::Format::Png, o, &error), qPrintable(error));
    const QImage img(path);
    QCOMPARE(img.width(), 1600);
    const CompareFigure f(s, a, o);
    QCOMPARE(f.ranks().size(), std::size_t(8));
    QCOMPARE(f.tableRows().size(), std::size_t(8));
    for (RankId r = 0; r < 8; ++r)
        QVERIFY(countColor(img, RankColors::color(r)) > 50);
}

// A QGuiApplication, not a QApplication: a QWidget made on the export path aborts the test.
int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen"); // headless, as `rankscope export` runs
    QGuiApplication app(argc, argv);
    TestCompareFigure test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_comparefigure.moc"
