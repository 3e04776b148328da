// `rankscope export` (DESIGN.md §3 plus --output FILE.json): each figure format from the demo
// incident, --ranks and --range forms, the merged trace, the report, the exit statuses (1 when a
// source had errors but something was exported; 2 for usage errors, unknown extensions, empty
// ranges, no rank left and nothing usable), and one line per written file on stdout.

#include "charts/memorychartrenderer.h"
#include "clirunner.h"
#include "exportcommand.h"
#include "testtrace.h"

#include <nlohmann/json.hpp>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTest>

#include <set>

using rs::test::runCli;

namespace {

const QString kDemo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");

} // namespace

class TestCliExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        rs::MemoryChartRenderer::install(); // as the rankscope executable does before `export`
    }
    void exportFile_data();
    void exportFile();
    void usageErrors_data();
    void usageErrors();
    void parsers();
    void mergedTrace();
    void sourceErrorsStillExport();
    void compareView();

private:
    QTemporaryDir m_dir;
};

void TestCliExport::exportFile_data()
{
    QTest::addColumn<QString>("output");
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<int>("width");  // expected PNG pixels, 0: not checked
    QTest::addColumn<int>("height"); // expected PNG pixels, 0: not checked

    QTest::newRow("png, defaults") << QStringLiteral("a.png") << QStringList{} << 1600 << 0;
    QTest::newRow("png, --size and --dpr") << QStringLiteral("b.png") << QStringList{"--size", "1000x700", "--dpr", "2"} << 2000 << 1400;
    QTest::newRow("svg") << QStringLiteral("c.svg") << QStringList{"--title", "Ticket 42"} << 0 << 0;
    QTest::newRow("pdf, full detail") << QStringLiteral("d.pdf") << QStringList{"--detail", "full"} << 0 << 0;
    QTest::newRow("--ranks list and range") << QStringLiteral("e.png") << QStringList{"--ranks", "0,2-3"} << 1600 << 0;
    QTest::newRow("--range durations") << QStringLiteral("f.png") << QStringList{"--range", "60s:1m10s"} << 0 << 0;
    QTest::newRow("--range open start, ms") << QStringLiteral("g.png") << QStringList{"--range=:70000ms"} << 0 << 0;
    QTest::newRow("--range absolute ns, open end") << QStringLiteral("h.png") << QStringList{"--range", "0:"} << 0 << 0;
    QTest::newRow("report beside a pdf") << QStringLiteral("i.pdf") << QStringList{"--report", "REPORT"} << 0 << 0;
    QTest::newRow("--view compare") << QStringLiteral("j.png") << QStringList{"--view", "compare"} << 1600 << 0;
    QTest::newRow("--view compare, --reference, --size") << QStringLiteral("k.png")
                                                         << QStringList{"--view=compare", "--reference", "3", "--size", "1000x600", "--dpr", "2"}
                                                         << 2000 << 1200;
    QTest::newRow("--view timeline, --ranks") << QStringLiteral("l.png") << QStringList{"--view", "timeline", "--ranks", "1-2"} << 1600 << 0;
}

void TestCliExport::exportFile()
{
    QFETCH(QString, output);
    QFETCH(QStringList, options);
    QFETCH(int, width);
    QFETCH(int, height);
    const QString path = m_dir.filePath(output);
    QString report;
    for (QString &o : options)
        if (o == QLatin1String("REPORT"))
            o = report = m_dir.filePath(QStringLiteral("incident.md"));
    const auto r = runCli(QStringList{"export", "--time-zone", "UTC", "--output", path} + options + QStringList{kDemo});
    QVERIFY2(r.status == 0, r.err.c_str());
    QStringList lines = QString::fromStdString(r.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.value(0), path);
    QVERIFY2(QFileInfo(path).size() > 10000, qPrintable(path));
    if (path.endsWith(QLatin1String(".png"))) {
        const QImage img(path);
        QVERIFY(!img.isNull());
        if (width)
            QCOMPARE(img.width(), width);
        if (height)
            QCOMPARE(img.height(), height);
    }
    if (path.endsWith(QLatin1String(".svg"))) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray svg = f.readAll();
        QVERIFY(svg.contains(">Ticket 42<"));
        QVERIFY(svg.contains(">Rank 2<"));
    }
    if (path.endsWith(QLatin1String(".pdf"))) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.read(5) == "%PDF-");
    }
    if (!report.isEmpty()) {
        QVERIFY(lines.contains(report));
        QVERIFY(lines.contains(m_dir.filePath(QStringLiteral("incident-timeline.png"))));
        QVERIFY(lines.contains(m_dir.filePath(QStringLiteral("incident-compare.png"))));
        for (const QString &l : lines)
            QVERIFY2(QFile::exists(l), qPrintable(l));
        QFile f(report);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray md = f.readAll();
        QVERIFY(md.contains("## Findings") && md.contains("## Inputs") && md.contains("(<incident-timeline.png>)"));
        QVERIFY(md.contains("(<incident-compare.png>)"));
    } else {
        QCOMPARE(lines.size(), 1);
    }
}

void TestCliExport::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString png = QStringLiteral("OUT.png");
    QTest::newRow("no --output") << QStringList{kDemo} << QStringLiteral("--output");
    QTest::newRow("unknown extension") << QStringList{"--output", "OUT.bmp", kDemo} << QStringLiteral("unknown extension");
    QTest::newRow("--output without value") << QStringList{kDemo, "--output"} << QStringLiteral("needs a value");
    QTest::newRow("no paths") << QStringList{"--output", png} << QStringLiteral("no input paths");
    QTest::newRow("bad --ranks") << QStringList{"--output", png, "--ranks", "0,a", kDemo} << QStringLiteral("--ranks");
    QTest::newRow("no rank left") << QStringList{"--output", png, "--ranks", "9-12", kDemo} << QStringLiteral("leaves no rank");
    QTest::newRow("range end before start") << QStringList{"--output", png, "--range", "5s:2s", kDemo} << QStringLiteral("empty");
    QTest::newRow("range outside the data") << QStringList{"--output", png, "--range", "1:2", kDemo} << QStringLiteral("holds no data");
    QTest::newRow("range without colon") << QStringList{"--output", png, "--range", "5s", kDemo} << QStringLiteral("T0:T1");
    QTest::newRow("range bad unit") << QStringList{"--output", png, "--range", "5 parsecs:", kDemo} << QStringLiteral("duration");
    QTest::newRow("bad --detail") << QStringList{"--output", png, "--detail", "huge", kDemo} << QStringLiteral("--detail");
    QTest::newRow("bad --size") << QStringList{"--output", png, "--size", "10x10", kDemo} << QStringLiteral("--size");
    QTest::newRow("bad --dpr") << QStringList{"--output", png, "--dpr", "9", kDemo} << QStringLiteral("--dpr");
    QTest::newRow("--json") << QStringList{"--json", "--output", png, kDemo} << QStringLiteral("--json");
    QTest::newRow("report not .md") << QStringList{"--output", png, "--report", "r.txt", kDemo} << QStringLiteral("FILE.md");
    QTest::newRow("unknown option") << QStringList{"--output", png, "--frobnicate", kDemo} << QStringLiteral("unknown option");
    QTest::newRow("bad --view") << QStringList{"--output", png, "--view", "gantt", kDemo} << QStringLiteral("--view expects timeline or compare");
    QTest::newRow("--view without value") << QStringList{kDemo, "--output", png, "--view"} << QStringLiteral("needs a value");
    QTest::newRow("bad --reference") << QStringList{"--output", png, "--reference", "two", kDemo} << QStringLiteral("--reference expects a rank");
    QTest::newRow("negative --reference") << QStringList{"--output", png, "--reference=-1", kDemo} << QStringLiteral("--reference expects a rank");
    QTest::newRow("--reference not in the session") << QStringList{"--output", png, "--view", "compare", "--reference", "9", kDemo}
                                                    << QStringLiteral("--reference 9: the session has no such rank (it has 0,1,2,3)");
    QTest::newRow("nothing usable") << QStringList{"--output", png, "UNKNOWN"} << QStringLiteral("nothing usable");
}

void TestCliExport::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    rs::test::writeFile(m_dir.filePath(QStringLiteral("unknown.txt")), "not a trace\n");
    for (QString &a : args) {
        a.replace(QStringLiteral("OUT"), m_dir.filePath(QStringLiteral("usage")));
        if (a == QLatin1String("UNKNOWN"))
            a = m_dir.filePath(QStringLiteral("unknown.txt"));
    }
    const auto r = runCli(QStringList{"export"} + args);
    QCOMPARE(r.status, 2);
    QVERIFY2(QString::fromStdString(r.err).contains(message), r.err.c_str());
    QVERIFY(r.out.empty());
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("usage.png"))));
}

void TestCliExport::parsers()
{
    using rs::ExportCommand;
    QCOMPARE(*ExportCommand::parseRanks(QStringLiteral("0,2,5-7")), (std::vector<rs::RankId>{0, 2, 5, 6, 7}));
    QCOMPARE(*ExportCommand::parseRanks(QStringLiteral(" 3 , 1-2,3")), (std::vector<rs::RankId>{3, 1, 2}));
    QVERIFY(!ExportCommand::parseRanks(QStringLiteral("2-1")));
    QVERIFY(!ExportCommand::parseRanks(QStringLiteral("-1")));
    QVERIFY(!ExportCommand::parseRanks(QString()));
    QCOMPARE(*ExportCommand::parseDuration(QStringLiteral("12.5s")), rs::TimeNs(12'500'000'000));
    QCOMPARE(*ExportCommand::parseDuration(QStringLiteral("300ms")), rs::TimeNs(300'000'000));
    QCOMPARE(*ExportCommand::parseDuration(QStringLiteral("40us")), rs::TimeNs(40'000));
    QCOMPARE(*ExportCommand::parseDuration(QStringLiteral("2m")), rs::TimeNs(120'000'000'000));
    QCOMPARE(*ExportCommand::parseDuration(QStringLiteral("1500ns")), rs::TimeNs(1500));
    QVERIFY(!ExportCommand::parseDuration(QStringLiteral("12")));
    QVERIFY(!ExportCommand::parseDuration(QStringLiteral("-3s")));
    QCOMPARE(*ExportCommand::parseDuration(QStringLiteral("1m 2.5s")), rs::TimeNs(62'500'000'000));
    QVERIFY(!ExportCommand::parseDuration(QStringLiteral("1m2")));
    const rs::TimeRange full{1'000'000'000'000, 1'100'000'000'000}; // 100 s
    rs::TimeRange r;
    QString error;
    QVERIFY2(ExportCommand::parseRange(QStringLiteral("10s:20s"), full, &r, &error), qPrintable(error));
    QCOMPARE(r, (rs::TimeRange{full.begin + 10'000'000'000, full.begin + 20'000'000'000}));
    QVERIFY(ExportCommand::parseRange(QStringLiteral("1050000000000:"), full, &r, &error));
    QCOMPARE(r, (rs::TimeRange{1'050'000'000'000, full.end}));
    QVERIFY(ExportCommand::parseRange(QStringLiteral("1m10s:1m10.5s"), full, &r, &error));
    QCOMPARE(r, (rs::TimeRange{full.begin + 70'000'000'000, full.begin + 70'500'000'000}));
    QVERIFY(ExportCommand::parseRange(QStringLiteral(":2m"), full, &r, &error)); // clipped to the data
    QCOMPARE(r, full);
    QVERIFY(!ExportCommand::parseRange(QStringLiteral("3m:4m"), full, &r, &error));
    QVERIFY(error.contains(QStringLiteral("holds no data")));
}

void TestCliExport::mergedTrace()
{
    const QString path = m_dir.filePath(QStringLiteral("merged.json"));
    const auto r = runCli({"export", "--output", path, "--clock-offset", "3=1000000", kDemo});
    QVERIFY2(r.status == 0, r.err.c_str());
    QCOMPARE(QString::fromStdString(r.out).trimmed(), path);
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray bytes = f.readAll();
    const nlohmann::json doc = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size());
    std::set<std::int64_t> pids;
    std::set<std::string> processNames;
    for (const nlohmann::json &e : doc.at("traceEvents")) {
        if (e.contains("pid") && e["pid"].is_number_integer())
            pids.insert(e["pid"].get<std::int64_t>());
        if (e.value("ph", "") == "M" && e.value("name", "") == "process_name")
            processNames.insert(e["args"].value("name", ""));
    }
    QVERIFY2((std::set<std::int64_t>{0, 1, 2, 3}) == std::set<std::int64_t>(pids.begin(), std::next(pids.begin(), std::min<std::ptrdiff_t>(4, pids.size()))),
             "one process per rank, pid = rank");
    QCOMPARE(processNames.size(), pids.size());
    // The merged trace honours the user's offset exactly like the figures: written again without
    // it, rank 3's events move by 1 ms.
    const QString plain = m_dir.filePath(QStringLiteral("plain.json.gz"));
    const auto r2 = runCli({"export", "--output", plain, kDemo});
    QVERIFY2(r2.status == 0, r2.err.c_str());
    QVERIFY(QFileInfo(plain).size() > 1000 && QFileInfo(plain).size() < bytes.size());
}

void TestCliExport::sourceErrorsStillExport()
{
    const QString dir = m_dir.filePath(QStringLiteral("mixed"));
    QVERIFY(QDir().mkpath(dir));
    rs::test::writeExitStatusInputs(dir, 3);
    const QString out = m_dir.filePath(QStringLiteral("mixed.png"));
    const auto r = runCli({"export", "--output", out, dir + QStringLiteral("/good.json"), dir + QStringLiteral("/bad.json")});
    QCOMPARE(r.status, 1);
    QVERIFY2(QString::fromStdString(r.err).contains(QStringLiteral("bad.json")), r.err.c_str());
    QCOMPARE(QString::fromStdString(r.out).trimmed(), out);
    QVERIFY(!QImage(out).isNull());
}

void TestCliExport::compareView()
{
    // The compare figure as SVG: its reference named in the title block and on its table row.
    const QString chosen = m_dir.filePath(QStringLiteral("compare-ref3.svg"));
    auto r = runCli({"export", "--time-zone", "UTC", "--view", "compare", "--reference", "3", "--output", chosen, kDemo});
    QVERIFY2(r.status == 0, r.err.c_str());
    QCOMPARE(QString::fromStdString(r.out).trimmed(), chosen);
    QFile f(chosen);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray svg = f.readAll();
    QVERIFY(svg.contains("reference rank 3<") || svg.contains("reference rank 3 "));
    QVERIFY(svg.contains(">reference<") && svg.contains(">Peak allocated<") && svg.contains(">rank 2<"));
    QVERIFY(!svg.contains("(the median rank)"));
    // Without --reference: the median rank, said so.
    const QString median = m_dir.filePath(QStringLiteral("compare-median.svg"));
    r = runCli({"export", "--time-zone", "UTC", "--view", "compare", "--output", median, kDemo});
    QVERIFY2(r.status == 0, r.err.c_str());
    QFile g(median);
    QVERIFY(g.open(QIODevice::ReadOnly));
    QVERIFY(g.readAll().contains("(the median rank)"));
    // --reference on a timeline without a report changes nothing: said on stderr, still exit 0.
    const QString timeline = m_dir.filePath(QStringLiteral("timeline-ref.png"));
    r = runCli({"export", "--reference", "1", "--output", timeline, kDemo});
    QVERIFY2(r.status == 0, r.err.c_str());
    QVERIFY(QString::fromStdString(r.err).contains(QStringLiteral("--reference applies to the compare figure")));
}

QTEST_MAIN(TestCliExport)
#include "test_cliexport.moc"
