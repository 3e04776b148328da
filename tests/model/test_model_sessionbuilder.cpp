// SessionBuilder: rank resolution (content > file name > assigned, user overrides), merging of
// string pools and tracks, and the rank spelled in a file name.

#include "sessionbuilder.h"

#include <QTest>

using namespace rs;

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// A source with one CPU track holding one span named `spanName`, optionally with content ranks.
SourceBuilder makeSource(const std::string &path, std::vector<RankId> ranks = {}, const char *spanName = "op")
{
    SourceBuilder b(path);
    b.source().ranks = std::move(ranks);
    const TrackId t = b.track(TrackKind::CpuThread, 1, 1);
    b.trackAt(t).name = b.intern("thread 1");
    Span s;
    s.start = 1000;
    s.duration = 10;
    s.name = b.intern(spanName);
    b.addSpan(t, s);
    b.finish();
    return b;
}

const Source *sourceByPath(const Session &s, const std::string &path)
{
    for (const Source &src : s.sources())
        if (src.path == path)
            return &src;
    return nullptr;
}

} // namespace

class TestModelSessionBuilder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void rankFromFileName_data();
    void rankFromFileName();
    void contentBeatsFileName();
    void fileNameBeatsAssigned();
    void assignedTakesLowestFreeRanks();
    void overrideBeatsContent();
    void emptySourceClaimsNoRank();
    void mergesStringsAndTracks();
    void rankClaimsAreChecked_data();
    void rankClaimsAreChecked();
};

void TestModelSessionBuilder::rankFromFileName_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("rank"); // -1: none
    QTest::newRow("rank-dash") << "/data/rank-3.pt.trace.json" << 3;
    QTest::newRow("rank-underscore") << "trace_rank_12.json" << 12;
    QTest::newRow("rank-plain") << "bs_32_rank0.json.gz" << 0;
    QTest::newRow("hta style") << "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" << 34;
    QTest::newRow("sampled") << "sampled_rank-1.json.gz" << 1;
    QTest::newRow("worker") << "worker5_step_12.1694128201549.pt.trace.json" << 5;
    QTest::newRow("bracketed") << "log[rank7].txt" << 7;
    QTest::newRow("capitalised") << "Rank2.log" << 2;
    QTest::newRow("directory ignored") << "/runs/rank9/trace.json" << -1;
    QTest::newRow("no rank") << "gaunernst_bert-small-uncased__1016001.json.gz" << -1;
    QTest::newRow("word ending in rank") << "frank3.json" << -1;
    QTest::newRow("ranking") << "ranking.json" << -1;
    QTest::newRow("too many digits") << "rank1234567.json" << -1;
}

void TestModelSessionBuilder::rankFromFileName()
{
    QFETCH(QString, path);
    QFETCH(int, rank);
    const auto r = SessionBuilder::rankFromFileName(path.toStdString());
    QCOMPARE(r.has_value() ? *r : -1, rank);
}

void TestModelSessionBuilder::contentBeatsFileName()
{
    SessionBuilder sb;
    sb.addSource(makeSource("rank-3.json", {5}));
    const auto session = sb.freeze();
    const Source &src = session->sources().at(0);
    QCOMPARE(src.ranks, (std::vector<RankId>{5}));
    QCOMPARE(src.rankOrigin, RankOrigin::Content);
    QVERIFY(session->rank(5) != nullptr);
    QVERIFY(session->rank(3) == nullptr);
    QCOMPARE(session->tracks().at(0).rank, RankId(5));
}

void TestModelSessionBuilder::fileNameBeatsAssigned()
{
    SessionBuilder sb;
    sb.addSource(makeSource("a.json"));
    sb.addSource(makeSource("trace_rank_0.json"));
    const auto session = sb.freeze();
    // The named file keeps rank 0, so the anonymous one gets the next free rank.
    QCOMPARE(sourceByPath(*session, "trace_rank_0.json")->ranks, (std::vector<RankId>{0}));
    QCOMPARE(sourceByPath(*session, "trace_rank_0.json")->rankOrigin, RankOrigin::FileName);
    QCOMPARE(sourceByPath(*session, "a.json")->ranks, (std::vector<RankId>{1}));
    QCOMPARE(sourceByPath(*session, "a.json")->rankOrigin, RankOrigin::Assigned);
}

void TestModelSessionBuilder::assignedTakesLowestFreeRanks()
{
    SessionBuilder sb;
    sb.addSource(makeSource("x.json"));
    sb.addSource(makeSource("y.json", {0}));
    sb.addSource(makeSource("z.json"));
    sb.addSource(makeSource("w.json", {2}));
    const auto session = sb.freeze();
    QCOMPARE(sourceByPath(*session, "x.json")->ranks, (std::vector<RankId>{1}));
    QCOMPARE(sourceByPath(*session, "z.json")->ranks, (std::vector<RankId>{3}));
    QCOMPARE(session->ranks().size(), std::size_t(4));
    for (std::size_t i = 0; i < session->ranks().size(); ++i)
        QCOMPARE(session->ranks()[i].id, RankId(i)); // sorted by id
}

void TestModelSessionBuilder::overrideBeatsContent()
{
    SessionBuilder sb;
    SourceBuilder b = makeSource("rank-3.json", {5});
    b.source().worldSize = 8;
    sb.addSource(std::move(b));
    sb.assignRank("rank-3.json", 7);
    const auto session = sb.freeze();
    const Source &src = session->sources().at(0);
    QCOMPARE(src.ranks, (std::vector<RankId>{7}));
    QCOMPARE(src.rankOrigin, RankOrigin::User);
    QVERIFY(session->rank(7) != nullptr);
    QCOMPARE(session->rank(7)->worldSize, 8);
    QCOMPARE(session->rank(7)->sources, (std::vector<SourceId>{0}));
}

void TestModelSessionBuilder::emptySourceClaimsNoRank()
{
    SessionBuilder sb;
    SourceBuilder empty("broken.json");
    empty.error("unreadable", "unreadable");
    empty.finish();
    sb.addSource(std::move(empty));
    sb.addSource(makeSource("good.json"));
    const auto session = sb.freeze();
    QVERIFY(sourceByPath(*session, "broken.json")->ranks.empty());
    QCOMPARE(sourceByPath(*session, "good.json")->ranks, (std::vector<RankId>{0}));
    QVERIFY(session->hasErrors());
}

void TestModelSessionBuilder::mergesStringsAndTracks()
{
    SessionBuilder sb;
    sb.addSource(makeSource("r0.json", {0}, "aten::mm"));
    sb.addSource(makeSource("r1.json", {1}, "aten::add"));
    const auto session = sb.freeze();
    QCOMPARE(session->tracks().size(), std::size_t(2));
    QCOMPARE(qs(session->str(session->tracks()[0].spans[0].name)), QStringLiteral("aten::mm"));
    QCOMPARE(qs(session->str(session->tracks()[1].spans[0].name)), QStringLiteral("aten::add"));
    QCOMPARE(qs(session->str(session->tracks()[1].name)), QStringLiteral("thread 1"));
    QCOMPARE(session->tracks()[1].source, SourceId(1));
    QCOMPARE(session->rank(1)->tracks, (std::vector<TrackId>{1}));
    QCOMPARE(session->rank(1)->timeRange, (TimeRange{1000, 1010}));
    QCOMPARE(session->spanCount(), std::size_t(2));
}

void TestModelSessionBuilder::rankClaimsAreChecked_data()
{
    // Each source: "format:rank:world" (world 0: not stated); "!" after the rank: set by the user.
    QTest::addColumn<QStringList>("sources");
    QTest::addColumn<QStringList>("warnings"); // "index:code", one per source that must warn
    QTest::newRow("two traces claim rank 3") << QStringList{"pytorch-trace:3:8", "pytorch-trace:3:8"}
                                             << QStringList{"0:rank-claimed-twice", "1:rank-claimed-twice"};
    QTest::newRow("a trace and a log of one rank merge") << QStringList{"pytorch-trace:3:8", "job-log:3:8"} << QStringList{};
    QTest::newRow("two traces, two ranks") << QStringList{"pytorch-trace:3:8", "pytorch-trace:4:8"} << QStringList{};
    QTest::newRow("user set both") << QStringList{"pytorch-trace:3!:8", "pytorch-trace:3!:8"} << QStringList{};
    QTest::newRow("rank 7 of 2") << QStringList{"pytorch-trace:7:2"} << QStringList{"0:rank-outside-world"};
    QTest::newRow("world sizes disagree") << QStringList{"pytorch-trace:0:8", "pytorch-trace:1:16"}
                                          << QStringList{"1:world-size-conflict"};
}

void TestModelSessionBuilder::rankClaimsAreChecked()
{
    QFETCH(QStringList, sources);
    QFETCH(QStringList, warnings);
    SessionBuilder sb;
    for (int i = 0; i < sources.size(); ++i) {
        const QStringList f = sources[i].split(QLatin1Char(':'));
        const bool user = f[1].endsWith(QLatin1Char('!'));
        const RankId rank = QString(f[1]).remove(QLatin1Char('!')).toInt();
        const std::string path = "/job/src" + std::to_string(i) + ".json";
        SourceBuilder b = makeSource(path, user ? std::vector<RankId>{} : std::vector<RankId>{rank});
        b.source().format = f[0].toStdString();
        b.source().worldSize = f[2].toInt();
        if (user)
            sb.assignRank(path, rank);
        sb.addSource(std::move(b));
    }
    const auto session = sb.freeze();
    QStringList got;
    for (std::size_t i = 0; i < session->sources().size(); ++i)
        for (const Diagnostic &d : session->sources()[i].diagnostics)
            got << QStringLiteral("%1:%2").arg(i).arg(QString::fromStdString(d.code));
    QCOMPARE(got, warnings);
    // The warning names the other file.
    for (std::size_t i = 0; i < session->sources().size(); ++i)
        for (const Diagnostic &d : session->sources()[i].diagnostics)
            if (d.code == "rank-claimed-twice")
                QVERIFY(d.message.find("/job/src" + std::to_string(1 - i) + ".json") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestModelSessionBuilder)
#include "test_model_sessionbuilder.moc"
