// A saved `.rankscope` session file as command-line input (DESIGN.md §3 PATH): export draws its
// annotations merged as the viewer merges them (user notes always, deleted finding annotations
// never, edited ones as edited, none when hidden) and takes its view (visible window, hidden and
// collapsed ranks) unless --range / --ranks say otherwise; analyze and inspect read its sources
// with its rank choices and clock offsets, the command line's own options winning; its missing and
// changed sources make the exit status 1 (moved ones only warn), an unreadable one exit 2 when
// nothing else is usable.
//
// Every incident is a copy of resources/demo with a session file written by SessionDocument the
// way the viewer writes one (describe on the loaded session, then the person's choices).

#include "charts/memorychartrenderer.h"
#include "analyzer.h"
#include "annotations/annotation.h"
#include "clirunner.h"
#include "exportcommand.h"
#include "sessiondocument.h"
#include "sessionloader.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <algorithm>
#include <functional>

using rs::Annotation;
using rs::SessionDocument;
using rs::test::runCli;

namespace {

const QString kDemo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
const QString kNote = QStringLiteral("ZX-note: rank 1 stalls on the loader");
const QString kNoteNeedle = QStringLiteral("ZX-note"); // survives the callout's line wrapping
constexpr rs::RankId kHiddenRank = 3;
constexpr rs::RankId kCollapsedRank = 0;
constexpr rs::RankId kOffsetRank = 1;
constexpr rs::TimeNs kSavedOffset = 1'234'000;

bool copyTree(const QString &from, const QString &to)
{
    QDir().mkpath(to);
    for (const QFileInfo &fi : QDir(from).entryInfoList(QDir::Files))
        if (!QFile::copy(fi.absoluteFilePath(), QDir(to).filePath(fi.fileName())))
            return false;
    return true;
}

// The text of every <text> element of an SVG, simplified: annotation callouts wrap, so a needle
// is looked for in single lines.
QStringList svgTexts(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {QStringLiteral("cannot open ") + path};
    QXmlStreamReader xml(&f);
    QStringList texts;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("text"))
            texts << xml.readElementText(QXmlStreamReader::IncludeChildElements).simplified();
    }
    if (xml.hasError())
        return {QStringLiteral("XML error: ") + xml.errorString()};
    return texts;
}

bool anyContains(const QStringList &texts, const QString &needle)
{
    return std::any_of(texts.begin(), texts.end(), [&](const QString &t) { return t.contains(needle); });
}

// The first words of `title` that fit on one callout line (callouts wrap near 35 characters).
QString leadingWords(const QString &title)
{
    QString out;
    for (const QString &w : title.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        if (!out.isEmpty() && out.size() + 1 + w.size() > 18)
            break;
        out += (out.isEmpty() ? QString() : QStringLiteral(" ")) + w;
    }
    return out;
}

nlohmann::json parseJson(const std::string &text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

} // namespace

class TestCliSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void exportDrawsTheSavedSession();
    void figureInputs_data();
    void figureInputs();
    void documentAnnotations_data();
    void documentAnnotations();
    void clockOffsets_data();
    void clockOffsets();
    void rankOverrides_data();
    void rankOverrides();
    void problems_data();
    void problems();

private:
    using Edit = std::function<void(SessionDocument &)>;
    // Copies the demo to a fresh folder `name`, describes it, applies the person's choices of
    // m_choices and `edit`, and saves `name`/incident.rankscope; returns that path.
    QString makeIncident(const QString &name, const Edit &edit = {});

    QTemporaryDir m_dir;
    rs::SessionPtr m_session;                        // the demo, read in UTC
    std::shared_ptr<const rs::AnalysisResult> m_analysis; // its analysis with the saved offset
    SessionDocument m_choices;                       // what the person decided (no sources)
    Annotation m_deleted;                            // the finding annotation they deleted
    Annotation m_kept;                               // a finding annotation drawn in the saved window
    QString m_docPath;                               // the main incident's session file
};

QString TestCliSession::makeIncident(const QString &name, const Edit &edit)
{
    const QString dir = m_dir.filePath(name);
    if (!copyTree(kDemo, dir))
        return {};
    rs::SessionLoader::Options options;
    options.timeZone = "UTC";
    const rs::SessionPtr session = rs::SessionLoader({dir.toStdString()}, options).run();
    const QString path = dir + QStringLiteral("/incident.rankscope");
    SessionDocument doc = SessionDocument::describe(*session, options, path);
    const auto sources = doc.sources;
    doc = m_choices;
    doc.sources = sources;
    doc.timeZone = "UTC";
    if (edit)
        edit(doc);
    QString error;
    if (!SessionDocument::save(doc, path, &error)) {
        qWarning("%s", qPrintable(error));
        return {};
    }
    return path;
}

void TestCliSession::initTestCase()
{
    rs::MemoryChartRenderer::install(); // as the rankscope executable does before `export`
    QVERIFY(m_dir.isValid());
    rs::SessionLoader::Options options;
    options.timeZone = "UTC";
    m_session = rs::SessionLoader({kDemo.toStdString()}, options).run();
    QCOMPARE(m_session->ranks().size(), std::size_t(4));
    rs::Analyzer::Options aopt;
    aopt.clockOffsets[kOffsetRank] = kSavedOffset;
    m_analysis = std::make_shared<const rs::AnalysisResult>(rs::Analyzer::run(*m_session, aopt));
    const std::vector<Annotation> findings = rs::annotationsFromFindings(*m_analysis);

    // Two finding annotations on fully drawn ranks (or job-wide) whose leading words no other
    // annotation shares: one the person deleted, one that stays as the control that finding
    // annotations are drawn at all.
    std::vector<Annotation> distinct;
    for (const Annotation &a : findings) {
        if (a.rank == kHiddenRank || a.rank == kCollapsedRank)
            continue;
        const QString lead = leadingWords(a.text);
        const auto shared = std::count_if(findings.begin(), findings.end(),
                                          [&](const Annotation &b) { return b.text.contains(lead); });
        if (shared == 1)
            distinct.push_back(a);
    }
    QVERIFY2(distinct.size() >= 2, "the demo has two findings with distinct titles off ranks 0 and 3");
    m_deleted = distinct[0];
    m_kept = distinct[1];

    const rs::TimeRange full = m_session->timeRange();
    QVERIFY(!full.isEmpty());
    Annotation note;
    note.rank = 1;
    note.time = full.begin + full.duration() / 2;
    note.endTime = note.time;
    note.text = kNote;
    note.id = 1;
    m_choices.annotations.push_back(note);
    // Finding annotations as the viewer saved them (ids after the note), less the deleted one.
    std::uint64_t id = 2;
    for (Annotation a : findings) {
        if (a.findingKey == m_deleted.findingKey)
            continue;
        a.id = id++;
        m_choices.annotations.push_back(a);
    }
    m_choices.deletedFindingKeys = {m_deleted.findingKey};
    m_choices.clockOffsets[kOffsetRank] = kSavedOffset;
    m_choices.view.hidden = {kHiddenRank};
    m_choices.view.collapsed = {kCollapsedRank};
    // A window that is not the whole session yet holds both findings and the note.
    const rs::TimeNs lo = std::min({m_deleted.time, m_kept.time, note.time});
    const rs::TimeNs hi = std::max({m_deleted.endTime, m_kept.endTime, note.time});
    m_choices.view.visible = rs::TimeRange{lo - (lo - full.begin) / 2, hi + (full.end - hi) / 2 + 1};
    QVERIFY(*m_choices.view.visible != full);

    m_docPath = makeIncident(QStringLiteral("incident"));
    QVERIFY(!m_docPath.isEmpty());
}

void TestCliSession::exportDrawsTheSavedSession()
{
    // An explicit title: the default one is the most severe finding's title, whoever deleted it.
    const QString svg = m_dir.filePath(QStringLiteral("x.svg"));
    const auto r = runCli({"export", "--title", "Incident 7", "--output", svg, m_docPath});
    QVERIFY2(r.status == 0, r.err.c_str());
    QCOMPARE(QString::fromStdString(r.out).trimmed(), svg);
    const QStringList texts = svgTexts(svg);
    QVERIFY2(anyContains(texts, kNoteNeedle), qPrintable(texts.join(QLatin1Char('|'))));
    QVERIFY(texts.contains(QStringLiteral("Rank 2")));
    QVERIFY2(!texts.contains(QStringLiteral("Rank 3")), "the hidden rank is left out");
    QVERIFY2(anyContains(texts, leadingWords(m_kept.text)), qPrintable(leadingWords(m_kept.text)));
    QVERIFY2(!anyContains(texts, leadingWords(m_deleted.text)), qPrintable(texts.filter(leadingWords(m_deleted.text)).join(QLatin1Char('|'))));

    // Without the session file the same sources draw rank 3 and the deleted finding.
    const QString plain = m_dir.filePath(QStringLiteral("plain.svg"));
    const auto r2 = runCli({"export", "--title", "Incident 7", "--time-zone", "UTC", "--output", plain, QFileInfo(m_docPath).absolutePath()});
    QVERIFY2(r2.status == 0, r2.err.c_str());
    const QStringList plainTexts = svgTexts(plain);
    QVERIFY(plainTexts.contains(QStringLiteral("Rank 3")));
    QVERIFY(anyContains(plainTexts, leadingWords(m_deleted.text)));
    QVERIFY(!anyContains(plainTexts, kNoteNeedle));
}

void TestCliSession::figureInputs_data()
{
    QTest::addColumn<bool>("withDocument");
    QTest::addColumn<QString>("ranks");
    QTest::addColumn<QString>("range");
    QTest::addColumn<std::vector<rs::RankId>>("expectRanks");
    QTest::addColumn<std::vector<rs::RankId>>("expectCollapsed");
    QTest::addColumn<bool>("expectSavedRange"); // else: the whole session (range empty or clipped full)

    using V = std::vector<rs::RankId>;
    QTest::newRow("saved view") << true << QString() << QString() << V{0, 1, 2} << V{0} << true;
    QTest::newRow("--range wins over the saved window") << true << QString() << QStringLiteral(":") << V{0, 1, 2} << V{0} << false;
    QTest::newRow("--ranks wins over hidden and collapsed") << true << QStringLiteral("3,1") << QString() << V{3, 1} << V{} << true;
    QTest::newRow("no session file") << false << QString() << QString() << V{} << V{} << false;
}

void TestCliSession::figureInputs()
{
    QFETCH(bool, withDocument);
    QFETCH(QString, ranks);
    QFETCH(QString, range);
    QFETCH(std::vector<rs::RankId>, expectRanks);
    QFETCH(std::vector<rs::RankId>, expectCollapsed);
    QFETCH(bool, expectSavedRange);

    rs::ExportCommand::Request req;
    req.ranks = ranks;
    req.range = range;
    const std::map<rs::RankId, rs::TimeNs> offsets = m_choices.clockOffsets;
    rs::FigureOptions figure;
    QString error;
    QStringList warnings;
    QVERIFY2(rs::ExportCommand::figureInputs(req, *m_session, *m_analysis, offsets, withDocument ? &m_choices : nullptr,
                                             &figure, &error, &warnings),
             qPrintable(error));
    QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(QLatin1Char('\n'))));
    QCOMPARE(figure.ranks, expectRanks);
    QCOMPARE(figure.collapsed, expectCollapsed);
    QCOMPARE(figure.clockOffsets, offsets);
    if (expectSavedRange)
        QCOMPARE(figure.range, *m_choices.view.visible);
    else
        QVERIFY(figure.range != *m_choices.view.visible);
    const bool hasNote = std::any_of(figure.annotations.begin(), figure.annotations.end(),
                                     [](const Annotation &a) { return a.text == kNote; });
    QCOMPARE(hasNote, withDocument);
}

void TestCliSession::documentAnnotations_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<bool>("expectFindings");    // any finding annotation drawn
    QTest::addColumn<QString>("expectKeptText"); // text of m_kept's annotation, "" when not drawn

    QTest::newRow("as saved") << QString() << true << QStringLiteral("KEPT");
    QTest::newRow("edited finding annotation stays as edited") << QStringLiteral("edit") << true << QStringLiteral("edited by hand");
    QTest::newRow("unedited text is refreshed from the analysis") << QStringLiteral("stale") << true << QStringLiteral("KEPT");
    QTest::newRow("finding annotations hidden") << QStringLiteral("hide") << false << QString();
}

void TestCliSession::documentAnnotations()
{
    QFETCH(QString, change);
    QFETCH(bool, expectFindings);
    QFETCH(QString, expectKeptText);
    if (expectKeptText == QLatin1String("KEPT"))
        expectKeptText = m_kept.text;

    SessionDocument doc = m_choices;
    auto kept = std::find_if(doc.annotations.begin(), doc.annotations.end(),
                             [&](const Annotation &a) { return a.findingKey == m_kept.findingKey; });
    QVERIFY(kept != doc.annotations.end());
    if (change == QLatin1String("edit")) {
        kept->text = QStringLiteral("edited by hand");
        doc.editedFindingKeys = {m_kept.findingKey};
    } else if (change == QLatin1String("stale")) {
        kept->text = QStringLiteral("an older analysis said this"); // not edited: the fresh title wins
    } else if (change == QLatin1String("hide")) {
        doc.findingAnnotationsVisible = false;
    }

    const std::vector<Annotation> out = rs::ExportCommand::documentAnnotations(doc, *m_analysis);
    QCOMPARE(std::count_if(out.begin(), out.end(), [](const Annotation &a) { return a.text == kNote; }), 1);
    QVERIFY(std::none_of(out.begin(), out.end(), [&](const Annotation &a) { return a.findingKey == m_deleted.findingKey; }));
    QCOMPARE(std::any_of(out.begin(), out.end(), [](const Annotation &a) { return a.origin == Annotation::Origin::Finding; }),
             expectFindings);
    const auto drawn = std::find_if(out.begin(), out.end(), [&](const Annotation &a) { return a.findingKey == m_kept.findingKey; });
    QCOMPARE(drawn == out.end() ? QString() : drawn->text, expectKeptText);
}

void TestCliSession::clockOffsets_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<qlonglong>("expected");
    QTest::newRow("the session file's override") << QStringList{} << qlonglong(kSavedOffset);
    QTest::newRow("--clock-offset wins") << QStringList{"--clock-offset", "1=5000"} << qlonglong(5000);
}

void TestCliSession::clockOffsets()
{
    QFETCH(QStringList, options);
    QFETCH(qlonglong, expected);
    const auto r = runCli(QStringList{"analyze", "--json"} + options + QStringList{m_docPath});
    QVERIFY2(r.status == 0, r.err.c_str());
    const nlohmann::json doc = parseJson(r.out);
    QVERIFY(doc.is_object());
    bool found = false;
    for (const nlohmann::json &rank : doc.at("ranks")) {
        if (rank.at("rank") == kOffsetRank) {
            QCOMPARE(rank.at("clock_offset_ns").get<qlonglong>(), expected);
            found = true;
        }
    }
    QVERIFY(found);
}

void TestCliSession::rankOverrides_data()
{
    QTest::addColumn<bool>("onCommandLine"); // --assign-rank for the same file, spelled through ".."
    QTest::addColumn<int>("expected");
    QTest::newRow("the session file's rank") << false << 5;
    QTest::newRow("--assign-rank wins") << true << 6;
}

void TestCliSession::rankOverrides()
{
    QFETCH(bool, onCommandLine);
    QFETCH(int, expected);
    const QString tag = onCommandLine ? QStringLiteral("ranks-cli") : QStringLiteral("ranks-doc");
    const QString docPath = makeIncident(tag, [](SessionDocument &d) {
        for (auto &s : d.sources)
            if (s.path == "rank-3.pt.trace.json.gz")
                s.rank = 5;
    });
    QVERIFY(!docPath.isEmpty());
    const QString dir = QFileInfo(docPath).absolutePath();
    QStringList args{"inspect", "--json"};
    if (onCommandLine)
        args << "--assign-rank" << dir + QStringLiteral("/../") + tag + QStringLiteral("/rank-3.pt.trace.json.gz=6");
    const auto r = runCli(args + QStringList{docPath});
    QVERIFY2(r.status == 0, r.err.c_str());
    const nlohmann::json doc = parseJson(r.out);
    QVERIFY(doc.is_object());
    bool found = false;
    for (const nlohmann::json &s : doc.at("sources")) {
        if (QString::fromStdString(s.at("path").get<std::string>()).endsWith(QLatin1String("rank-3.pt.trace.json.gz"))) {
            QCOMPARE(QString::fromStdString(s.at("ranks").dump()), QStringLiteral("[%1]").arg(expected));
            found = true;
        }
    }
    QVERIFY(found);
}

void TestCliSession::problems_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<int>("status");
    QTest::addColumn<QStringList>("stderrHas");
    QTest::addColumn<bool>("written");

    QTest::newRow("changed source") << QStringLiteral("append") << 1
                                    << QStringList{"/torchrun.log: error: changed since the session was saved"} << true;
    QTest::newRow("missing source") << QStringLiteral("remove") << 1 << QStringList{"/nvidia-smi.csv: error: missing"} << true;
    // Found only at its saved absolute path, outside the session file's folder: not read without
    // consent, and read (a moved source, warning only) with --allow-outside-sources.
    QTest::newRow("moved source outside the folder") << QStringLiteral("move") << 1
                                                     << QStringList{"/torchrun.log: error: outside the session file's folder",
                                                                    "--allow-outside-sources"}
                                                     << true;
    QTest::newRow("moved source, outside allowed (warning only)") << QStringLiteral("move+allow") << 0
                                                                  << QStringList{"/torchrun.log: warning: moved"} << true;
    QTest::newRow("corrupt session file") << QStringLiteral("corrupt") << 2 << QStringList{"bad.rankscope: ", "nothing usable"} << false;
    QTest::newRow("corrupt session file beside a usable source")
        << QStringLiteral("corrupt+trace") << 1 << QStringList{"bad.rankscope: "} << true;
    QTest::newRow("unreadable session file") << QStringLiteral("absent") << 2 << QStringList{"absent.rankscope: "} << false;
    QTest::newRow("two session files") << QStringLiteral("two") << 2 << QStringList{"at most one session file"} << false;
    QTest::newRow("every source missing") << QStringLiteral("empty") << 2 << QStringList{"error: missing", "nothing usable"} << false;
}

void TestCliSession::problems()
{
    QFETCH(QString, change);
    QFETCH(int, status);
    QFETCH(QStringList, stderrHas);
    QFETCH(bool, written);

    const QString name = QStringLiteral("problem-%1").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    QString docPath = makeIncident(name);
    QVERIFY(!docPath.isEmpty());
    const QString dir = QFileInfo(docPath).absolutePath();
    QStringList inputs{docPath};
    if (change == QLatin1String("append")) {
        QFile log(dir + QStringLiteral("/torchrun.log"));
        QVERIFY(log.open(QIODevice::Append));
        QCOMPARE(log.write("\n"), qint64(1));
    } else if (change == QLatin1String("remove")) {
        QVERIFY(QFile::remove(dir + QStringLiteral("/nvidia-smi.csv")));
    } else if (change.startsWith(QLatin1String("move"))) {
        // The session travels to another folder without the log: the log is found at its saved
        // absolute path instead.
        const QString elsewhere = dir + QStringLiteral("-copy");
        QVERIFY(copyTree(dir, elsewhere));
        QVERIFY(QFile::remove(elsewhere + QStringLiteral("/torchrun.log")));
        inputs = {elsewhere + QStringLiteral("/incident.rankscope")};
        if (change.endsWith(QLatin1String("+allow")))
            inputs.prepend(QStringLiteral("--allow-outside-sources"));
    } else if (change.startsWith(QLatin1String("corrupt"))) {
        const QString bad = dir + QStringLiteral("/bad.rankscope");
        rs::test::writeFile(bad, "{\"schema\": \"rankscope.session/1\", \"sources\": [");
        inputs = {bad};
        if (change.endsWith(QLatin1String("+trace")))
            inputs << dir + QStringLiteral("/rank-0.pt.trace.json.gz");
    } else if (change == QLatin1String("absent")) {
        inputs = {dir + QStringLiteral("/absent.rankscope")};
    } else if (change == QLatin1String("two")) {
        const QString second = dir + QStringLiteral("/second.rankscope");
        QVERIFY(QFile::copy(docPath, second));
        inputs << second;
    } else if (change == QLatin1String("empty")) {
        for (const QFileInfo &fi : QDir(dir).entryInfoList(QDir::Files))
            if (fi.suffix() != QLatin1String("rankscope"))
                QVERIFY(QFile::remove(fi.absoluteFilePath()));
    }

    const QString svg = dir + QStringLiteral("-out.svg");
    const auto r = runCli(QStringList{"export", "--output", svg} + inputs);
    QCOMPARE(r.status, status);
    for (const QString &needle : stderrHas)
        QVERIFY2(QString::fromStdString(r.err).contains(needle), r.err.c_str());
    QCOMPARE(QFileInfo::exists(svg), written);
    if (written)
        QCOMPARE(QString::fromStdString(r.out).trimmed(), svg);
}

QTEST_MAIN(TestCliSession)
#include "test_clisession.moc"
