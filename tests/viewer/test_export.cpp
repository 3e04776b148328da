// Figure export of the demo incident (resources/demo): PNG at the requested size and pixel ratio
// with the rank and OOM colours in it, SVG whose labels, title and annotations stay <text>, a
// one-page PDF the size of the figure, the incident report with its images beside it, and the
// merged Chrome trace. Findings are numbered markers on the lanes and listed in full under the
// legend (title and fix as <text>), user notes keep their callouts, hidden findings are left out.
// The real 8-rank sample (shared/samples) renders too, when present.

#include "report/chrometraceexport.h"
#include "charts/memorychartrenderer.h"
#include "analyzer.h"
#include "export/figureexporter.h"
#include "export/figurefindings.h"
#include "export/figurerenderer.h"
#include "export/mergedtracewriter.h"
#include "export/reportwriter.h"
#include "importerregistry.h"
#include "rankcolors.h"
#include "report/incidentreport.h"
#include "sessionbuilder.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <set>

using namespace rs;

#include "exportfixtures.h"

using rs::test::countColor;
using rs::test::loadFolder;
using rs::test::svgTexts;

namespace {

bool anyContains(const QStringList &texts, const QString &needle)
{
    return std::any_of(texts.begin(), texts.end(), [&](const QString &t) { return t.contains(needle); });
}

// Every <text> joined without white space: a wrapped paragraph is found whole whatever the line
// breaks were (they may fall after a hyphen or a slash as well as at a space).
QString joinedText(const QStringList &texts)
{
    QString all = texts.join(QString());
    all.remove(QRegularExpression(QStringLiteral("\\s")));
    return all;
}

QString withoutSpace(QString s)
{
    s.remove(QRegularExpression(QStringLiteral("\\s")));
    return s;
}

// <text> elements with their position on the figure: QSvgGenerator writes each inside a <g> whose
// transform is a translation (the figure is not scaled at its default size).
struct PlacedText {
    QString text;
    QPointF pos;
};

std::vector<PlacedText> svgPlacedTexts(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QXmlStreamReader xml(&f);
    std::vector<QPointF> offsets{QPointF()};
    std::vector<PlacedText> out;
    static const QRegularExpression matrix(QStringLiteral("matrix\\(([^)]*)\\)"));
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("g")) {
            QPointF off = offsets.back();
            const QRegularExpressionMatch m = matrix.match(xml.attributes().value(QLatin1String("transform")).toString());
            if (m.hasMatch()) {
                const QStringList v = m.captured(1).split(QLatin1Char(','));
                if (v.size() == 6)
                    off = QPointF(v[4].toDouble(), v[5].toDouble());
            }
            offsets.push_back(off);
        } else if (xml.isEndElement() && xml.name() == QLatin1String("g")) {
            offsets.pop_back();
        } else if (xml.isStartElement() && xml.name() == QLatin1String("text")) {
            const QPointF at(xml.attributes().value(QLatin1String("x")).toDouble(), xml.attributes().value(QLatin1String("y")).toDouble());
            out.push_back({xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified(), offsets.back() + at});
        }
    }
    return out;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void png_data();
    void png();
    void rankSelection();
    void svg();
    void pdf();
    void report();
    void reportFromANarrowWindowStillZooms();
    void mergedTrace();
    void emptySession();
    void findingsList();
    void findingMarkers();
    void hiddenFindings();
    void sampleRenders();

private:
    FigureOptions demoOptions() const;

    SessionPtr m_session;
    std::shared_ptr<const AnalysisResult> m_analysis;
    QTemporaryDir m_dir;
};

void TestExport::initTestCase()
{
    rs::MemoryChartRenderer::install(); // figures draw the memory chart as `rankscope export` does
    QVERIFY(m_dir.isValid());
    m_session = loadFolder(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"), "UTC");
    QCOMPARE(m_session->ranks().size(), std::size_t(4));
    m_analysis = std::make_shared<const AnalysisResult>(Analyzer::run(*m_session));
    QVERIFY(!m_analysis->findings.empty());
}

FigureOptions TestExport::demoOptions() const
{
    FigureOptions o;
    o.annotations = annotationsFromFindings(*m_analysis);
    // A user note of known text, on rank 1 in the middle of the session.
    const TimeRange full = FigureRenderer::alignedDataRange(*m_session, m_analysis.get());
    Annotation note;
    note.kind = Annotation::Kind::Note;
    note.rank = 1;
    note.time = note.endTime = full.begin + full.duration() * 3 / 4;
    note.text = QStringLiteral("probe note");
    o.annotations.push_back(note);
    o.title = QStringLiteral("Demo incident: rank 2 OOM");
    return o;
}

void TestExport::png_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::addColumn<double>("dpr");
    QTest::newRow("1600 wide, fit content") << 1600 << 0 << 1.0;
    QTest::newRow("1200 wide at 2x") << 1200 << 0 << 2.0;
    QTest::newRow("fixed 1000x600 at 1.5x (content scaled down)") << 1000 << 600 << 1.5;
}

void TestExport::png()
{
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(double, dpr);
    FigureOptions o = demoOptions();
    o.width = width;
    o.height = height;
    o.devicePixelRatio = dpr;
    const FigureRenderer layout(m_session, m_analysis, o);
    QCOMPARE(layout.size().width(), width);
    if (height > 0)
        QCOMPARE(layout.size().height(), height);
    else
        QVERIFY2(layout.size().height() > 4 * 150, "four expanded rank groups are taller than this");

    const QString path = m_dir.filePath(QStringLiteral("fig-%1.png").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_')));
    QString error;
    QElapsedTimer timer;
    timer.start();
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Png, o, &error), qPrintable(error));
    qInfo("demo PNG %dx%d at %.1fx rendered and written in %lld ms", width, layout.size().height(), dpr, timer.elapsed());
    QImage img(path);
    QVERIFY(!img.isNull());
    QCOMPARE(img.width(), qRound(width * dpr));
    QCOMPARE(img.height(), qRound(layout.size().height() * dpr));
    for (RankId r : {0, 1, 2, 3})
        QVERIFY2(countColor(img, RankColors::color(r)) > 100, qPrintable(QStringLiteral("rank %1's colour is missing").arg(r)));
    QVERIFY2(countColor(img, QColor(0xc9, 0x1d, 0x2e)) > 20, "the OOM red is missing");
    // The PNG says what it shows.
    QCOMPARE(img.text(QStringLiteral("Title")), QStringLiteral("Demo incident: rank 2 OOM"));
}

void TestExport::rankSelection()
{
    FigureOptions o = demoOptions();
    o.ranks = {2, 0};
    o.width = 1000;
    const FigureRenderer layout(m_session, m_analysis, o);
    QCOMPARE(layout.ranks(), (std::vector<RankId>{2, 0}));
    const QImage img = FigureExporter(m_session, m_analysis).image(o);
    QVERIFY(countColor(img, RankColors::color(2)) > 100);
    QVERIFY(countColor(img, RankColors::color(0)) > 100);
    QVERIFY2(countColor(img, RankColors::color(3)) < 20, "rank 3 is not selected");

    // Compact detail drops CPU threads, full keeps them: the full figure is taller.
    o.detail = FigureOptions::Detail::Full;
    QVERIFY(FigureRenderer(m_session, m_analysis, o).size().height() > layout.size().height());

    // A range restricted to the last step is what the renderer shows, within the data.
    const TimeRange full = FigureRenderer::alignedDataRange(*m_session, m_analysis.get());
    o.range = {full.end - 20'000'000'000LL, full.end + 50'000'000'000LL};
    const FigureRenderer zoomed(m_session, m_analysis, o);
    QCOMPARE(zoomed.range(), (TimeRange{full.end - 20'000'000'000LL, full.end}));
    QVERIFY2(zoomed.rangeText().contains(QStringLiteral("20.0 s")), qPrintable(zoomed.rangeText()));
}

void TestExport::svg()
{
    const FigureOptions o = demoOptions();
    const QString path = m_dir.filePath(QStringLiteral("fig.svg"));
    QString error;
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Svg, o, &error), qPrintable(error));
    int images = -1;
    const QStringList texts = svgTexts(path, &images);
    QVERIFY2(!texts.isEmpty() && !texts.front().startsWith(QLatin1String("XML error")), qPrintable(texts.value(0)));
    QCOMPARE(images, 0); // text stays text, nothing rasterised
    for (int r = 0; r < 4; ++r)
        QVERIFY2(texts.contains(QStringLiteral("Rank %1").arg(r)), qPrintable(QStringLiteral("no <text> 'Rank %1'").arg(r)));
    QVERIFY(texts.contains(QStringLiteral("Demo incident: rank 2 OOM")));
    QVERIFY2(texts.contains(QStringLiteral("probe note")), "the user note is not a <text>");
    QVERIFY2(anyContains(texts, QStringLiteral("Rank 2 ran out")), "the OOM finding is not a <text>");
    // Every finding in full: its title as one <text> (not elided) and its fix, wrapped but whole.
    const QString all = joinedText(texts);
    for (const Finding &f : m_analysis->findings) {
        const QString title = QString::fromStdString(f.title);
        QVERIFY2(texts.contains(title), qPrintable(QStringLiteral("no <text> '%1'").arg(title)));
        // Once: in the list, not again in a callout over the lanes.
        QCOMPARE(std::count_if(texts.begin(), texts.end(), [&](const QString &t) { return t.contains(title.left(24)); }), 1);
        if (!f.fix.empty())
            QVERIFY2(all.contains(withoutSpace(QString::fromStdString(f.fix))), qPrintable(QStringLiteral("the fix of '%1' is not all there").arg(title)));
    }
    QVERIFY(texts.contains(QStringLiteral("Findings")));
    QVERIFY(texts.contains(QStringLiteral("Fix:")));
    QVERIFY(anyContains(texts, QStringLiteral("GPU capacity")));
    QVERIFY(anyContains(texts, QStringLiteral("RankScope")));
    QVERIFY2(anyContains(texts, QStringLiteral("OOM · 576 MiB")), "the OOM marker's label is missing");
}

void TestExport::pdf()
{
    FigureOptions o = demoOptions();
    o.width = 1400;
    const QSize size = FigureRenderer(m_session, m_analysis, o).size();
    const QString path = m_dir.filePath(QStringLiteral("fig.pdf"));
    QString error;
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Pdf, o, &error), qPrintable(error));
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray pdf = f.readAll();
    QVERIFY(pdf.startsWith("%PDF-"));
    QVERIFY2(pdf.size() > 20000, "a figure with four ranks of curves is more than a blank page");
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page[^s]"));
    QCOMPARE(QString::fromLatin1(pdf).count(page), 1);
    static const QRegularExpression box(QStringLiteral("/MediaBox\\s*\\[\\s*0\\s+0\\s+([0-9.]+)\\s+([0-9.]+)\\s*\\]"));
    const QRegularExpressionMatch m = box.match(QString::fromLatin1(pdf));
    QVERIFY(m.hasMatch());
    QVERIFY2(std::abs(m.captured(1).toDouble() - size.width() * 0.75) < 1.0, qPrintable(m.captured(0)));
    QVERIFY2(std::abs(m.captured(2).toDouble() - size.height() * 0.75) < 1.0, qPrintable(m.captured(0)));
}

void TestExport::report()
{
    const QString md = m_dir.filePath(QStringLiteral("ticket/incident.md"));
    QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("ticket"))));
    QStringList written;
    QString error;
    ReportWriter::Options ro;
    ro.generatedAt = QStringLiteral("2026-01-01 00:00 UTC");
    // A note and a range the user made, and a finding's annotation (already its finding).
    FigureOptions figure = demoOptions();
    Annotation note;
    note.kind = Annotation::Kind::Note;
    note.rank = 2;
    note.time = m_session->ranks().front().timeRange.begin + 5'000'000'000LL;
    note.endTime = note.time;
    note.text = QStringLiteral("restarted the data loader here *by hand*");
    Annotation range = note;
    range.kind = Annotation::Kind::Range;
    range.rank = kNoRank;
    range.endTime = note.time + 2'000'000'000LL;
    range.text = QStringLiteral("checkpoint save");
    Annotation fromFinding = note;
    fromFinding.origin = Annotation::Origin::Finding;
    fromFinding.text = QStringLiteral("finding annotation text");
    figure.annotations = {range, note, fromFinding};
    QVERIFY2(ReportWriter::write(md, m_session, m_analysis, figure, ro, &error, &written), qPrintable(error));
    QCOMPARE(written.value(0), md);
    QVERIFY(written.contains(ReportWriter::imagePath(md, QStringLiteral("timeline"))));
    QVERIFY2(written.contains(ReportWriter::imagePath(md, QStringLiteral("finding"))), "the OOM is a sliver of 88 s: zoomed");
    for (const QString &f : written)
        QVERIFY2(QFileInfo(f).size() > 1000, qPrintable(f));
    QFile f(md);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    for (const char *section : {"# Incident report: Demo incident: rank 2 OOM", "## Findings", "## Per-rank metrics", "## Clock alignment",
                                "## Inputs", "## Images"})
        QVERIFY2(text.contains(QLatin1String(section)), section);
    // Relative links: the folder can be zipped and moved.
    QVERIFY2(text.contains(QStringLiteral("](<incident-timeline.png>)")), "timeline image not linked relatively");
    QVERIFY(text.contains(QStringLiteral("](<incident-finding.png>)")));
    // The story is the first paragraph, and the zoom shows its cause (the OOM).
    const QString story = QStringLiteral("\n\n**%1.**").arg(QString::fromStdString(IncidentReport::escape(m_analysis->summary.firstSentence())));
    QVERIFY2(text.indexOf(story) > 0 && text.indexOf(story) < text.indexOf(QStringLiteral("Generated ")), qPrintable(text.left(600)));
    QVERIFY2(text.contains(QStringLiteral("Around the incident's cause (oom)")), qPrintable(text));
    QVERIFY(!text.contains(m_dir.path() + QStringLiteral("/ticket/incident-")));
    QVERIFY(text.contains(QStringLiteral("Generated 2026-01-01 00:00 UTC")));
    // The user's notes, in time order, escaped; not the finding's annotation.
    const qsizetype notes = text.indexOf(QStringLiteral("\n## Notes\n"));
    QVERIFY2(notes > text.indexOf(QStringLiteral("## Findings")) && notes < text.indexOf(QStringLiteral("## Per-rank metrics")), qPrintable(text));
    const qsizetype rangeAt = text.indexOf(QStringLiteral("- **Job**, "), notes);
    const qsizetype noteAt = text.indexOf(QStringLiteral("- **Rank 2**, "), notes);
    QVERIFY(rangeAt > notes && noteAt > notes);
    QVERIFY(text.indexOf(QStringLiteral(": checkpoint save"), rangeAt) > rangeAt);
    QVERIFY2(text.contains(QStringLiteral("restarted the data loader here \\*by hand\\*")), qPrintable(text.mid(notes, 400)));
    QVERIFY(!text.contains(QStringLiteral("finding annotation text")));
}

void TestExport::reportFromANarrowWindowStillZooms()
{
    // A saved session's view may already be zoomed (or elsewhere): the report still shows the
    // cause in its own image, zoomed on the whole session, not on the saved window.
    const Finding *oom = nullptr;
    for (const Finding &f : m_analysis->findings)
        if (f.id == "oom")
            oom = &f;
    QVERIFY(oom && oom->timeNs);
    for (const TimeRange window : {TimeRange{*oom->timeNs - 2'000'000'000LL, *oom->timeNs + 1'000'000'000LL},
                                   TimeRange{*oom->timeNs - 40'000'000'000LL, *oom->timeNs - 30'000'000'000LL}}) {
        FigureOptions narrow = demoOptions();
        narrow.range = window;
        const QString md = m_dir.filePath(QStringLiteral("narrow/incident.md"));
        QVERIFY(QDir().mkpath(m_dir.filePath(QStringLiteral("narrow"))));
        QStringList written;
        QString error;
        QVERIFY2(ReportWriter::write(md, m_session, m_analysis, narrow, {}, &error, &written), qPrintable(error));
        QVERIFY2(written.contains(ReportWriter::imagePath(md, QStringLiteral("finding"))), qPrintable(written.join(QLatin1Char(' '))));
    }
}

void TestExport::mergedTrace()
{
    std::map<RankId, TimeNs> offsets{{1, 7'000'000'000LL}};
    for (const QString &name : {QStringLiteral("merged.json"), QStringLiteral("merged.json.gz")}) {
        const QString path = m_dir.filePath(name);
        QVERIFY(MergedTraceWriter::isTracePath(path));
        QString error;
        Annotation note;
        note.rank = 2;
        note.time = m_session->rank(2)->timeRange.begin + 1'000'000'000LL;
        note.endTime = note.time;
        note.text = QStringLiteral("rank 2 starts its extra micro-batch");
        Annotation fromFinding = note;
        fromFinding.origin = Annotation::Origin::Finding;
        fromFinding.text = QStringLiteral("a finding's own annotation");
        QVERIFY2(MergedTraceWriter::write(path, *m_session, m_analysis.get(), offsets, &error, {note, fromFinding}), qPrintable(error));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        if (name.endsWith(QLatin1String(".gz"))) {
            QVERIFY(bytes.size() > 1000 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b);
            continue;
        }
        const nlohmann::json doc = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size());
        std::set<std::int64_t> pids;
        double rank1First = 1e300;
        for (const nlohmann::json &e : doc.at("traceEvents")) {
            if (!e.contains("pid") || !e["pid"].is_number_integer())
                continue;
            pids.insert(e["pid"].get<std::int64_t>());
            if (e["pid"] == 1 && e.value("ph", "") == "X")
                rank1First = std::min(rank1First, e["ts"].get<double>());
        }
        QVERIFY2(pids.size() >= 4 && pids.count(0) && pids.count(1) && pids.count(2) && pids.count(3), doc["traceEvents"][0].dump().c_str());
        // Rank 1's first span sits its offset later than its own clock says (ts in µs).
        TimeNs own = INT64_MAX;
        for (TrackId id : m_session->rank(1)->tracks)
            if (!m_session->tracks()[id].spans.empty())
                own = std::min(own, m_session->tracks()[id].spans.front().start);
        QVERIFY(own != INT64_MAX);
        // Times are µs after metadata.origin_ns, so viewers keep their precision.
        const double expected = static_cast<double>(own + 7'000'000'000LL - doc.at("metadata").at("origin_ns").get<TimeNs>()) / 1000.0;
        QVERIFY2(std::abs(rank1First - expected) < 0.002, qPrintable(QStringLiteral("%1 vs %2").arg(rank1First, 0, 'f', 3).arg(expected, 0, 'f', 3)));

        // What RankScope found rides along: the timed findings (title, severity, fix, evidence in
        // args) and the user's note on a RankScope process, each rank's log records on its Log thread.
        const std::int64_t rs = ChromeTraceExport::kRankScopePid;
        int findings = 0, notes = 0, logs = 0, fromFindings = 0;
        bool named = false, logThread = false;
        for (const nlohmann::json &e : doc.at("traceEvents")) {
            const std::string ph = e.value("ph", "");
            if (ph == "M" && e.value("pid", 0LL) == rs && e.value("name", "") == "process_name")
                named = e["args"]["name"] == "RankScope";
            if (ph == "M" && e.value("pid", 0LL) == 2 && e.value("name", "") == "thread_name" && e["args"]["name"] == "Log")
                logThread = true;
            if (e.value("cat", "") != "rankscope")
                continue;
            if (e["pid"] == rs && e["tid"] == 1) {
                ++findings;
                QVERIFY(e["args"].contains("fix") && e["args"].contains("evidence") && e["args"].contains("severity"));
            } else if (e["pid"] == rs && e["tid"] == 2) {
                ++notes;
                QCOMPARE(e["name"].get<std::string>(), std::string("rank 2 starts its extra micro-batch"));
                QCOMPARE(e["args"]["ranks"].get<std::string>(), std::string("2"));
            } else if (e["pid"].get<std::int64_t>() < rs) {
                ++logs;
                QVERIFY(e["args"].contains("text") && e["args"].contains("where"));
            }
            fromFindings += e.value("name", "") == "a finding's own annotation";
        }
        int timedFindings = 0;
        for (const Finding &fd : m_analysis->findings)
            timedFindings += fd.timeNs.has_value();
        QVERIFY(named && logThread);
        QCOMPARE(findings, timedFindings);
        QCOMPARE(notes, 1);
        QCOMPARE(fromFindings, 0);
        int timedRecords = 0;
        for (const LogRecord &r : m_session->logs().records)
            timedRecords += r.time != kNoTime && r.rank >= 0 && m_session->rank(r.rank) != nullptr;
        QVERIFY(timedRecords > 0);
        QCOMPARE(logs, timedRecords);
    }
    QString error;
    QVERIFY(!MergedTraceWriter::write(m_dir.filePath(QStringLiteral("no/such/dir/x.json")), *m_session, nullptr, {}, &error));
    QVERIFY(!error.isEmpty());
}

void TestExport::emptySession()
{
    // Nothing read: the figure still renders (title, "no ranks"), never crashes.
    SessionBuilder sb;
    const SessionPtr empty = sb.freeze();
    FigureOptions o;
    o.ranks = {3};
    const QImage img = FigureExporter(empty, nullptr).image(o);
    QVERIFY(!img.isNull());
    QCOMPARE(img.width(), 1600);
    QString error;
    QVERIFY(!FigureExporter(empty, nullptr).exportTo(m_dir.filePath(QStringLiteral("no/such/dir/x.svg")), FigureExporter::Format::Svg, o, &error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
}

void TestExport::findingsList()
{
    // Which findings the list has (FigureOptions::findings): the annotated ones and the timeless
    // ones, unless the view hid every finding annotation; listed and numbered as the findings panel
    // does (findingOrder(): by severity, then time, timeless last; findingNumbers()).
    AnalysisResult r;
    auto finding = [](std::string id, std::optional<TimeNs> t) {
        Finding f;
        f.id = std::move(id);
        f.ranks = {1};
        f.timeNs = t;
        f.title = f.id + " title";
        f.fix = "fix " + f.id;
        return f;
    };
    r.findings = {finding("a", 1'000), finding("config", std::nullopt), finding("b", 2'000), finding("c", 3'000)};
    FigureOptions o;
    o.annotations = annotationsFromFindings(r);
    QCOMPARE(o.annotations.size(), std::size_t(3)); // the timeless one has none
    auto ids = [](const FigureFindings &ff) {
        std::vector<std::string> out;
        for (const FigureFindings::Entry &e : ff.entries())
            out.push_back(e.finding->id + "#" + std::to_string(e.number) + (e.marked ? "m" : ""));
        return out;
    };
    QCOMPARE(ids(FigureFindings(&r, o)), (std::vector<std::string>{"a#1m", "b#2m", "c#3m", "config#4"}));
    QCOMPARE(FigureFindings(&r, o).numberOf(o.annotations[1]), 2);
    QCOMPARE(FigureFindings(&r, o).numberOf(Annotation{}), 0); // a user note keeps its callout

    // Outside the window or on a rank not shown: listed, not marked.
    const FigureFindings outside(&r, o, [](const Annotation &a) { return a.time < 2'500; });
    QCOMPARE(ids(outside), (std::vector<std::string>{"a#1m", "b#2m", "c#3", "config#4"}));

    // One hidden (deleted) finding annotation: that finding is left out and the rest keep their
    // numbers, the viewer's (findingNumbers()), so ③ of the figure is ③ of the findings panel.
    FigureOptions hidden = o;
    hidden.annotations.erase(hidden.annotations.begin() + 1);
    QCOMPARE(ids(FigureFindings(&r, hidden)), (std::vector<std::string>{"a#1m", "c#3m", "config#4"}));
    QCOMPARE(FigureFindings(&r, hidden).numberOf(o.annotations[2]), findingNumber(findingNumbers(r), o.annotations[2]));
    const FigureFindings h(&r, hidden);
    QCOMPARE(h.numberOf(o.annotations[1]), 0);

    // Every finding annotation hidden: the view hid findings as a group, the timeless one goes too.
    FigureOptions none = o;
    none.annotations.clear();
    QVERIFY(FigureFindings(&r, none).isEmpty());
    // … unless no finding has a time: then there was nothing to hide.
    AnalysisResult timeless;
    timeless.findings = {finding("config", std::nullopt)};
    QCOMPARE(ids(FigureFindings(&timeless, none)), (std::vector<std::string>{"config#1"}));
    // The option off (the export dialog's check box): no list whatever the annotations.
    o.findings = false;
    QVERIFY(FigureFindings(&r, o).isEmpty());
    QVERIFY(FigureFindings(nullptr, none).isEmpty());
    QCOMPARE(foldedRanks({5, 0, 1, 2, 7, 6}), QStringLiteral("0–2, 5–7"));
}

void TestExport::findingMarkers()
{
    // The demo's findings as numbered markers: each number is drawn on the lanes (above the
    // list) as well as in the list, and the OOM finding's number sits at the OOM's time on rank 2.
    const FigureOptions o = demoOptions();
    const QString path = m_dir.filePath(QStringLiteral("markers.svg"));
    QString error;
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Svg, o, &error), qPrintable(error));
    const std::vector<PlacedText> placed = svgPlacedTexts(path);
    QVERIFY(!placed.empty());
    // The list's heading is the lowest "Findings" (rank 2's marker strip is labelled so too).
    double listTop = -1;
    for (const PlacedText &t : placed)
        if (t.text == QLatin1String("Findings"))
            listTop = std::max(listTop, t.pos.y() - 20);
    QVERIFY(listTop > 0);
    const FigureFindings list(m_analysis.get(), o);
    QCOMPARE(list.entries().size(), m_analysis->findings.size());
    // The OOM's marker sits at the OOM: over the red label the memory lane draws right of it.
    const auto oomLabel = std::find_if(placed.begin(), placed.end(), [](const PlacedText &t) { return t.text.contains(QStringLiteral("OOM · ")); });
    QVERIFY(oomLabel != placed.end());
    const Finding *oom = nullptr;
    for (const Finding &f : m_analysis->findings)
        if (QString::fromStdString(f.title).contains(QStringLiteral("ran out")))
            oom = &f;
    QVERIFY(oom && oom->timeNs);
    for (const FigureFindings::Entry &e : list.entries()) {
        const QString n = QString::number(e.number);
        std::vector<QPointF> above, below;
        for (const PlacedText &t : placed)
            if (t.text == n)
                (t.pos.y() < listTop ? above : below).push_back(t.pos);
        QVERIFY2(!below.empty(), qPrintable(QStringLiteral("finding %1 has no badge in the list").arg(n)));
        if (!e.finding->timeNs)
            continue;
        QVERIFY2(above.size() == 1, qPrintable(QStringLiteral("finding %1 has %2 markers on the lanes").arg(n).arg(above.size())));
        if (e.finding == oom) {
            const QPointF d = oomLabel->pos - above.front();
            QVERIFY2(d.x() > 0 && d.x() < 20 && d.y() > 0 && d.y() < 40,
                     qPrintable(QStringLiteral("OOM marker at %1,%2, label at %3,%4").arg(above.front().x()).arg(above.front().y()).arg(oomLabel->pos.x()).arg(oomLabel->pos.y())));
        }
    }
    // The user note keeps its callout text on the lanes.
    QVERIFY(std::any_of(placed.begin(), placed.end(), [&](const PlacedText &t) { return t.text == QLatin1String("probe note") && t.pos.y() < listTop; }));
}

void TestExport::hiddenFindings()
{
    // The person hid one finding annotation: no marker and no line for it; with findings off
    // (the export dialog's check box) there is no list at all and the figure is shorter.
    FigureOptions o = demoOptions();
    const auto oomAnnotation = std::find_if(o.annotations.begin(), o.annotations.end(),
                                            [](const Annotation &a) { return a.text.contains(QStringLiteral("ran out")); });
    QVERIFY(oomAnnotation != o.annotations.end());
    const QString oomTitle = oomAnnotation->text;
    const int oomNumber = findingNumber(findingNumbers(*m_analysis), *oomAnnotation);
    QVERIFY(oomNumber > 0);
    o.annotations.erase(oomAnnotation);
    const QString path = m_dir.filePath(QStringLiteral("hidden.svg"));
    QString error;
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(path, FigureExporter::Format::Svg, o, &error), qPrintable(error));
    int images = -1;
    const QStringList texts = svgTexts(path, &images);
    QVERIFY(!anyContains(texts, oomTitle));
    const std::size_t listed = FigureFindings(m_analysis.get(), o).entries().size();
    QCOMPARE(listed + 1, m_analysis->findings.size());
    // The others keep their numbers: the OOM's is nowhere, not on the lanes nor in the list.
    QVERIFY2(!texts.contains(QString::number(oomNumber)), "a marker or badge for a finding that is not listed");
    const FigureFindings kept(m_analysis.get(), o);
    for (const FigureFindings::Entry &e : kept.entries()) {
        QVERIFY(e.number != oomNumber);
        QVERIFY2(texts.contains(QString::number(e.number)), qPrintable(QString::number(e.number)));
    }
    QVERIFY(texts.contains(QStringLiteral("probe note")));

    FigureOptions off = demoOptions();
    std::erase_if(off.annotations, [](const Annotation &a) { return a.origin == Annotation::Origin::Finding; });
    off.findings = false;
    QVERIFY(FigureRenderer(m_session, m_analysis, off).size().height() < FigureRenderer(m_session, m_analysis, demoOptions()).size().height());
    const QString offPath = m_dir.filePath(QStringLiteral("off.svg"));
    QVERIFY2(FigureExporter(m_session, m_analysis).exportTo(offPath, FigureExporter::Format::Svg, off, &error), qPrintable(error));
    const QStringList offTexts = svgTexts(offPath, &images);
    QVERIFY(!offTexts.contains(QStringLiteral("Findings")));
    QVERIFY(!anyContains(offTexts, oomTitle));
}

void TestExport::sampleRenders()
{
    const QString dir = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/profiler/param_dlrm_8rank");
    if (!QFile::exists(dir))
        QSKIP("shared samples are not present");
    const SessionPtr s = loadFolder(dir, "UTC");
    QCOMPARE(s->ranks().size(), std::size_t(8));
    auto analysis = std::make_shared<const AnalysisResult>(Analyzer::run(*s));
    FigureOptions o;
    o.annotations = annotationsFromFindings(*analysis);
    QElapsedTimer timer;
    timer.start();
    const QImage img = FigureExporter(s, analysis).image(o);
    qInfo("param_dlrm_8rank figure %dx%d rendered in %lld ms", img.width(), img.height(), timer.elapsed());
    for (RankId r = 0; r < 8; ++r)
        QVERIFY2(countColor(img, RankColors::color(r)) > 100, qPrintable(QStringLiteral("rank %1's colour is missing").arg(r)));
    img.save(m_dir.filePath(QStringLiteral("dlrm.png")));
    // No findings: no (empty) findings block.
    if (analysis->findings.empty()) {
        QString error;
        const QString path = m_dir.filePath(QStringLiteral("dlrm.svg"));
        QVERIFY2(FigureExporter(s, analysis).exportTo(path, FigureExporter::Format::Svg, o, &error), qPrintable(error));
        int images = -1;
        QVERIFY(!svgTexts(path, &images).contains(QStringLiteral("Findings")));
    }
}

QTEST_MAIN(TestExport)
#include "test_export.moc"
