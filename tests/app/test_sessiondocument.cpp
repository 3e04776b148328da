// The .rankscope session file: a document survives save → load unchanged, it is zstd on disk and
// plain JSON is read too, malformed files are refused with the byte offset, and reopening notices
// sources that moved, went missing or changed instead of dropping them silently.

#include "sessiondocument.h"
#include "sessionfilecontroller.h"
#include "sessionloader.h"

#include "report/incidentreport.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <ctime>

using rs::Annotation;
using rs::SessionDocument;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A document with something in every field, so a round trip that forgets one fails.
SessionDocument richDocument()
{
    SessionDocument doc;
    doc.sources.push_back({"traces/rank-0.json", "/old/place/traces/rank-0.json", 123, "ab12", std::nullopt, {}});
    doc.sources.push_back({"nvidia-smi.csv", "/old/place/nvidia-smi.csv", 77, "cd34", 3, {{0, 4}, {1, 5}}});
    doc.timeZone = "Europe/Berlin";
    doc.clockOffsets = {{1, -347000}, {3, 2'000'000'000}};
    Annotation note;
    note.id = 7;
    note.rank = 2;
    note.time = 1'700'000'000'123'456'789;
    note.endTime = note.time;
    note.text = QStringLiteral("rank 2 takes a 2nd micro-batch — \"why?\"\nsee log");
    doc.annotations.push_back(note);
    Annotation arrow;
    arrow.id = 8;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.rank = 2;
    arrow.time = 10;
    arrow.endRank = 0;
    arrow.endTime = 500;
    arrow.color = QColor(0x12, 0x34, 0x56);
    doc.annotations.push_back(arrow);
    Annotation range;
    range.id = 9;
    range.kind = Annotation::Kind::Range;
    range.origin = Annotation::Origin::Finding;
    range.rank = rs::kNoRank;
    range.time = 100;
    range.endTime = 900;
    range.text = QStringLiteral("collective desync");
    range.findingKey = "collective-desync|2|100";
    doc.annotations.push_back(range);
    doc.deletedFindingKeys = {"oom|2|5"};
    doc.editedFindingKeys = {"collective-desync|2|100"};
    doc.findingAnnotationsVisible = false;
    doc.view.visible = rs::TimeRange{50, 950};
    doc.view.hidden = {1};
    doc.view.collapsed = {0, 3};
    doc.view.selectedRank = 2;
    doc.view.referenceRank = 1;
    return doc;
}

} // namespace

class TestSessionDocument : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("incident.rankscope"));
        const SessionDocument doc = richDocument();
        QString error;
        QVERIFY2(SessionDocument::save(doc, path, &error), qPrintable(error));
        const QByteArray raw = readFile(path);
        QVERIFY(raw.startsWith(QByteArray::fromHex("28b52ffd"))); // zstd frame on disk
        const auto back = SessionDocument::load(path, &error);
        QVERIFY2(back, qPrintable(error));
        QCOMPARE(back->annotations.size(), doc.annotations.size());
        for (std::size_t i = 0; i < doc.annotations.size(); ++i)
            QVERIFY2(back->annotations[i] == doc.annotations[i], qPrintable(QString::number(i)));
        QVERIFY(back->sources == doc.sources);
        QVERIFY(back->view == doc.view);
        QVERIFY(*back == doc);
        QVERIFY(SessionDocument::looksLikeSessionFile(path));
    }

    void plainJsonIsRead()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("hand-edited.json"));
        writeFile(path, QByteArray::fromStdString(SessionDocument::toJson(richDocument())));
        QVERIFY(SessionDocument::looksLikeSessionFile(path));
        QString error;
        const auto back = SessionDocument::load(path, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(*back == richDocument());
    }

    void refused_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("malformed json") << QByteArray("{\"schema\": \"rankscope.session/1\", \"sources\": [}")
                                        << QStringLiteral("byte 47");
        QTest::newRow("other schema") << QByteArray("{\"schema\": \"rankscope.analysis/1\"}") << QStringLiteral("not a RankScope session");
        QTest::newRow("wrong type") << QByteArray("{\"schema\": \"rankscope.session/1\", \"sources\": [{\"path\": 5}]}")
                                    << QStringLiteral("invalid session");
        QTest::newRow("unknown kind")
            << QByteArray("{\"schema\": \"rankscope.session/1\", \"sources\": [], \"annotations\": [{\"kind\": \"blob\", \"time_ns\": 1}]}")
            << QStringLiteral("unknown kind 'blob'");
        QTest::newRow("truncated zstd") << QByteArray::fromHex("28b52ffd2400110000") << QStringLiteral("zstd");
        QTest::newRow("empty") << QByteArray() << QStringLiteral("malformed JSON");
    }
    void refused()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.rankscope"));
        writeFile(path, bytes);
        QString error;
        QVERIFY(!SessionDocument::load(path, &error));
        QVERIFY2(error.startsWith(path), qPrintable(error));
        QVERIFY2(error.contains(expected), qPrintable(error));
    }

    // Sources are found relative to the session file first, so a copied incident folder opens
    // with no complaint; otherwise where they were, or by name beside it; changes are reported.
    void resolve_data()
    {
        QTest::addColumn<QString>("scenario");
        QTest::addColumn<bool>("allowOutside");
        QTest::addColumn<QStringList>("kinds"); // expected problem kinds, in order
        QTest::addColumn<int>("loaded");
        QTest::newRow("unchanged") << "unchanged" << false << QStringList{} << 2;
        QTest::newRow("folder copied elsewhere") << "copied" << false << QStringList{} << 2;
        // Found only at their absolute paths, outside the session file's new folder: not without consent.
        QTest::newRow("session file moved alone") << "moved-session" << false << QStringList{"outside", "outside"} << 0;
        QTest::newRow("session file moved alone, allowed") << "moved-session" << true << QStringList{"moved", "moved"} << 2;
        QTest::newRow("source deleted") << "deleted" << false << QStringList{"missing"} << 1;
        QTest::newRow("same size, other bytes") << "edited" << false << QStringList{"changed"} << 2;
        QTest::newRow("appended to") << "grown" << false << QStringList{"changed"} << 2;
        QTest::newRow("escapes with ..") << "escape" << false << QStringList{"outside"} << 1;
        QTest::newRow("a system file by absolute path") << "system" << false << QStringList{"outside"} << 1;
        QTest::newRow("a link inside pointing out") << "symlink" << false << QStringList{"outside"} << 1;
        QTest::newRow("unchanged, allowed") << "unchanged" << true << QStringList{} << 2;
    }
    void resolve()
    {
        QFETCH(QString, scenario);
        QFETCH(bool, allowOutside);
        QFETCH(QStringList, kinds);
        QFETCH(int, loaded);
        QTemporaryDir dir;
        const QString incident = dir.filePath(QStringLiteral("incident"));
        const QString a = incident + QStringLiteral("/logs/torchrun.log");
        const QString b = incident + QStringLiteral("/nvidia-smi.csv");
        writeFile(a, "line one\nline two\n");
        writeFile(b, "timestamp, index\n");
        QString docPath = incident + QStringLiteral("/incident.rankscope");

        SessionDocument doc;
        for (const QString &p : {a, b}) {
            SessionDocument::SourceEntry e;
            e.path = QDir(incident).relativeFilePath(p).toStdString();
            e.absolutePath = p.toStdString();
            e.size = QFileInfo(p).size();
            e.sha256 = *rs::IncidentReport::sha256File(p.toStdString());
            doc.sources.push_back(e);
        }
        doc.sources[1].rank = 5;
        const QString secret = dir.filePath(QStringLiteral("secret.txt"));
        writeFile(secret, "not the incident's\n");
        if (scenario == QLatin1String("escape")) {
            doc.sources[0].path = "../secret.txt";
            doc.sources[0].absolutePath.clear();
        } else if (scenario == QLatin1String("system")) {
            doc.sources[0].path = "/etc/passwd";
            doc.sources[0].absolutePath = "/etc/passwd";
        } else if (scenario == QLatin1String("symlink")) {
            QVERIFY(QFile::remove(a));
            QVERIFY(QFile::link(secret, a));
        }
        QVERIFY(SessionDocument::save(doc, docPath, nullptr));

        if (scenario == QLatin1String("copied")) {
            QVERIFY(QDir().rename(incident, dir.filePath(QStringLiteral("handed-on"))));
            docPath = dir.filePath(QStringLiteral("handed-on/incident.rankscope"));
        } else if (scenario == QLatin1String("moved-session")) {
            const QString elsewhere = dir.filePath(QStringLiteral("elsewhere/deeper/incident.rankscope"));
            QDir().mkpath(QFileInfo(elsewhere).absolutePath());
            QVERIFY(QFile::rename(docPath, elsewhere));
            docPath = elsewhere;
        } else if (scenario == QLatin1String("deleted")) {
            QVERIFY(QFile::remove(a));
        } else if (scenario == QLatin1String("edited")) {
            writeFile(a, "line ONE\nline two\n");
        } else if (scenario == QLatin1String("grown")) {
            writeFile(a, "line one\nline two\nline three\n");
        }

        QString error;
        const auto back = SessionDocument::load(docPath, &error);
        QVERIFY2(back, qPrintable(error));
        const auto r = SessionDocument::resolve(*back, docPath, scenario != QLatin1String("symlink"), allowOutside);
        QStringList got;
        for (const auto &p : r.problems) {
            got << (p.kind == SessionDocument::Problem::Kind::Missing   ? QStringLiteral("missing")
                    : p.kind == SessionDocument::Problem::Kind::Moved   ? QStringLiteral("moved")
                    : p.kind == SessionDocument::Problem::Kind::Outside ? QStringLiteral("outside")
                                                                         : QStringLiteral("changed"));
            QVERIFY2(QString::fromStdString(p.message).contains(QString::fromStdString(p.path)), p.message.c_str());
        }
        QCOMPARE(got, kinds);
        QCOMPARE(int(r.paths.size()), loaded);
        for (const std::string &path : r.paths)
            QVERIFY2(allowOutside || path.find("secret") == std::string::npos, path.c_str());
        if (loaded == 0)
            return;
        // The rank override follows its file wherever it was found.
        const std::string csv = r.paths.back();
        QVERIFY(QString::fromStdString(csv).endsWith(QLatin1String("nvidia-smi.csv")));
        QCOMPARE(r.options.rankOverrides.at(csv), 5);
    }

    // describe() on the real demo: relative paths beside the session file, checksums equal to an
    // independent hash, the user's choices carried per file.
    void describeDemo()
    {
        const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
        rs::SessionLoader::Options options;
        options.timeZone = "UTC";
        options.rankOverrides[QString(demo + QStringLiteral("/nvidia-smi.csv")).toStdString()] = 0;
        const auto session = rs::SessionLoader({demo.toStdString()}, options).run();
        QVERIFY(session);
        QVERIFY(session->sources().size() >= 6);
        const QString docPath = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/incident.rankscope");
        const SessionDocument doc = SessionDocument::describe(*session, options, docPath);
        QCOMPARE(doc.sources.size(), session->sources().size());
        QCOMPARE(doc.timeZone, std::string("UTC"));
        int overridden = 0;
        for (std::size_t i = 0; i < doc.sources.size(); ++i) {
            const auto &e = doc.sources[i];
            QVERIFY2(QString::fromStdString(e.path).startsWith(QLatin1String("demo/")), e.path.c_str());
            QCOMPARE(e.sha256, *rs::IncidentReport::sha256File(session->sources()[i].path));
            QCOMPARE(e.size, QFileInfo(QString::fromStdString(session->sources()[i].path)).size());
            overridden += e.rank.has_value();
        }
        QCOMPARE(overridden, 1);
        const auto r = SessionDocument::resolve(doc, docPath);
        QVERIFY(r.problems.empty());
        QCOMPARE(r.paths.size(), doc.sources.size());
    }

    // Opened in the machine's local zone, the session names that zone: reopened elsewhere (another
    // TZ), its zone-less stamps are read as they were.
    void localZoneIsNamed()
    {
        const QByteArray oldTz = qgetenv("TZ");
        qputenv("TZ", "America/New_York");
        ::tzset();
        const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
        rs::SessionLoader::Options options; // no zone given: local
        const auto session = rs::SessionLoader({demo.toStdString()}, options).run();
        const SessionDocument doc =
            SessionDocument::describe(*session, options, QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/incident.rankscope"));
        if (oldTz.isNull())
            qunsetenv("TZ");
        else
            qputenv("TZ", oldTz);
        ::tzset();
        QCOMPARE(doc.timeZone, std::string("America/New_York"));
        QCOMPARE(SessionDocument::resolve(doc, QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/incident.rankscope")).options.timeZone,
                 std::string("America/New_York"));
    }

    // The controller saves in the background (hashing the demo) and reopens the same document.
    void controllerSavesAndOpens()
    {
        const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
        rs::SessionLoader::Options options;
        options.timeZone = "UTC";
        const auto session = rs::SessionLoader({demo.toStdString()}, options).run();
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("demo.rankscope"));
        SessionDocument state = richDocument();
        state.sources.clear();
        rs::SessionFileController files;
        QSignalSpy saved(&files, &rs::SessionFileController::saved);
        QSignalSpy opened(&files, &rs::SessionFileController::opened);
        QSignalSpy failed(&files, &rs::SessionFileController::failed);
        files.save(path, session, options, state);
        QVERIFY(saved.wait(20000));
        QCOMPARE(failed.count(), 0);
        files.open(path);
        QVERIFY(opened.wait(20000));
        const auto doc = opened.at(0).at(1).value<SessionDocument>();
        const auto resolution = opened.at(0).at(2).value<SessionDocument::Resolution>();
        QCOMPARE(doc.annotations.size(), state.annotations.size());
        QVERIFY(doc.view == state.view);
        QCOMPARE(doc.clockOffsets, state.clockOffsets);
        QCOMPARE(doc.sources.size(), session->sources().size());
        // Sources live outside the temporary folder: not opened without consent...
        QCOMPARE(resolution.paths.size(), std::size_t(0));
        QCOMPARE(resolution.problems.size(), session->sources().size());
        for (const auto &p : resolution.problems)
            QVERIFY2(p.kind == SessionDocument::Problem::Kind::Outside, p.message.c_str());
        // ... and with it, found at their absolute paths and reported as moved.
        files.open(path, true);
        QVERIFY(opened.wait(20000));
        const auto allowed = opened.at(1).at(2).value<SessionDocument::Resolution>();
        QCOMPARE(allowed.paths.size(), session->sources().size());
        for (const auto &p : allowed.problems)
            QVERIFY2(p.kind == SessionDocument::Problem::Kind::Moved, p.message.c_str());
        // A file that is not a session is refused with its name.
        files.open(demo + QStringLiteral("/torchrun.log"));
        QVERIFY(failed.wait(20000));
        QVERIFY(failed.at(0).at(0).toString().contains(QLatin1String("torchrun.log")));
    }
};

QTEST_GUILESS_MAIN(TestSessionDocument)
#include "test_sessiondocument.moc"
