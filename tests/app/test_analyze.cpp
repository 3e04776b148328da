// The analyze subcommand is a contract (DESIGN.md §3): the rankscope.analysis/1 object with every
// documented key in every rank, spike, divergent-rank and finding object (more keys are allowed),
// integers for bytes and times, the exit statuses, --clock-offset, and what it says about the
// project's own demo incident.

#include "cli.h"
#include "clirunner.h"
#include "testtrace.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

using nlohmann::json;

namespace {

using Result = rs::test::CliResult;
using rs::test::runCli;
using rs::test::writeFile;

// Every key of `keys` present; integer keys integers (or null where the contract allows it).
void checkObject(const json &o, const char *what, std::initializer_list<const char *> integers,
                 std::initializer_list<const char *> others)
{
    QVERIFY2(o.is_object(), what);
    for (const char *k : integers) {
        QVERIFY2(o.contains(k), qPrintable(QStringLiteral("%1 lacks %2").arg(QLatin1String(what), QLatin1String(k))));
        QVERIFY2(o[k].is_null() || o[k].is_number_integer(),
                 qPrintable(QStringLiteral("%1.%2 is %3").arg(QLatin1String(what), QLatin1String(k), QString::fromStdString(o[k].dump()))));
    }
    for (const char *k : others)
        QVERIFY2(o.contains(k), qPrintable(QStringLiteral("%1 lacks %2").arg(QLatin1String(what), QLatin1String(k))));
}

// The whole document against DESIGN.md §3.
void checkSchema(const json &doc)
{
    QCOMPARE(doc.at("schema").get<std::string>(), std::string("rankscope.analysis/1"));
    for (const char *k : {"ranks", "spikes", "divergent_ranks", "findings"})
        QVERIFY2(doc.contains(k) && doc[k].is_array(), k);
    for (const json &r : doc["ranks"]) {
        checkObject(r, "rank",
                    {"rank", "clock_offset_ns", "peak_allocated_bytes", "peak_reserved_bytes", "peak_time_ns",
                     "gpu_used_peak_bytes", "steps", "step_time_median_ns", "collectives"},
                    {"alignment", "oom"});
        QVERIFY(!r["rank"].is_null() && !r["clock_offset_ns"].is_null());
        QVERIFY(r["oom"].is_boolean());
        const std::string a = r["alignment"].get<std::string>();
        QVERIFY2(a == "wall-clock" || a == "collectives" || a == "anchor" || a == "none" || a == "steps" || a == "user",
                 a.c_str());
        // An addition: how far the offset can be trusted, and why not when it cannot.
        const std::string c = r.at("alignment_confidence").get<std::string>();
        QVERIFY2(c == "high" || c == "low", c.c_str());
        QCOMPARE(r.at("alignment_confidence_reason").is_string(), c == "low");
        QVERIFY(r.at("incomplete_steps").is_array());
        for (const json &n : r["incomplete_steps"])
            QVERIFY(n.is_number_integer());
    }
    for (const json &s : doc["spikes"]) {
        checkObject(s, "spike", {"rank", "time_ns", "bytes"}, {"attributed_to", "source"});
        QVERIFY(!s["time_ns"].is_null() && !s["bytes"].is_null());
        QVERIFY(s["attributed_to"].is_string() && s["source"].is_string());
    }
    for (const json &d : doc["divergent_ranks"]) {
        checkObject(d, "divergent rank", {"rank", "value", "median"}, {"metric", "score"});
        QVERIFY(d["metric"].is_string() && d["score"].is_number());
    }
    for (const json &f : doc["findings"]) {
        checkObject(f, "finding", {"time_ns"}, {"id", "severity", "ranks", "title", "evidence", "fix"});
        const std::string sev = f["severity"].get<std::string>();
        QVERIFY2(sev == "high" || sev == "medium" || sev == "low" || sev == "info", sev.c_str());
        QVERIFY(f["ranks"].is_array());
        for (const json &r : f["ranks"])
            QVERIFY(r.is_number_integer());
        QVERIFY(f["evidence"].is_array() && !f["evidence"].empty());
        for (const json &e : f["evidence"])
            QVERIFY(e.is_string());
        QVERIFY(f["fix"].is_string() && !f["fix"].get<std::string>().empty());
    }
    // The story: a headline, the culprits, the chain of findings (each once, cause first). A
    // finding's "consequence_of" (an addition) names another finding.
    QVERIFY2(doc.contains("summary") && doc["summary"].is_object(), "summary");
    const json &summary = doc["summary"];
    QVERIFY(summary["headline"].is_string() && !summary["headline"].get<std::string>().empty());
    QVERIFY(summary["culprit_ranks"].is_array());
    for (const json &r : summary["culprit_ranks"])
        QVERIFY(r.is_number_integer());
    QVERIFY(summary["chain"].is_array());
    std::vector<bool> seen(doc["findings"].size());
    for (const json &i : summary["chain"]) {
        QVERIFY(i.is_number_integer() && i.get<long long>() >= 0 && i.get<std::size_t>() < seen.size());
        QVERIFY2(!seen[i.get<std::size_t>()], "a finding twice in the chain");
        seen[i.get<std::size_t>()] = true;
    }
    for (std::size_t k = 0; k < doc["findings"].size(); ++k)
        if (const json &f = doc["findings"][k]; f.contains("consequence_of")) {
            QVERIFY(f["consequence_of"].is_number_integer());
            QVERIFY(f["consequence_of"].get<std::size_t>() < seen.size() && f["consequence_of"].get<std::size_t>() != k);
        }
}

const json *findingOf(const json &doc, const std::string &id, int rank)
{
    for (const json &f : doc["findings"])
        if (f["id"] == id && f["ranks"] == json::array({rank}))
            return &f;
    return nullptr;
}

} // namespace

class TestAnalyze : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void jsonShape();
    void exitStatus_data();
    void exitStatus();
    void clockOffset();
    void demoIncident();
};

void TestAnalyze::jsonShape()
{
    QTemporaryDir dir;
    for (int r = 0; r < 3; ++r)
        writeFile(dir.filePath(QStringLiteral("rank%1.json").arg(r)), rs::test::kinetoTrace(r, 3, 4));
    const Result r = runCli({QStringLiteral("analyze"), QStringLiteral("--json"), dir.path()});
    QCOMPARE(r.status, 0);
    const json doc = json::parse(r.out);
    checkSchema(doc);
    QCOMPARE(doc["ranks"].size(), std::size_t(3));
    for (int k = 0; k < 3; ++k) {
        const json &rank = doc["ranks"][std::size_t(k)];
        QCOMPARE(rank["rank"].get<int>(), k);
        QCOMPARE(rank["steps"].get<int>(), 4);
        QCOMPARE(rank["step_time_median_ns"].get<long long>(), 9'000'000LL);
        // [memory] events total 1024 · (s + 1) bytes: the peak is the fourth, 4096 bytes.
        QCOMPARE(rank["peak_allocated_bytes"].get<long long>(), 4096LL);
        QCOMPARE(rank["peak_reserved_bytes"].get<long long>(), 2097152LL);
        QCOMPARE(rank["peak_time_ns"].get<long long>(), 1700000000000000000LL + (1000 + 3 * 10000 + 20) * 1000LL);
        QVERIFY(rank["gpu_used_peak_bytes"].is_null());
        QVERIFY(rank["collectives"].is_null());
        QCOMPARE(rank["oom"].get<bool>(), false);
    }
    QVERIFY(doc["findings"].empty());
    QVERIFY(doc["spikes"].empty()); // 1 KiB rises are not spikes
    // Nothing found: the story says what was read, blames no one, and comes first (after the schema).
    QVERIFY2(doc["summary"]["headline"].get<std::string>().starts_with("No findings: RankScope read 3 input files (ranks 0, 1, 2)"),
             doc["summary"].dump().c_str());
    QVERIFY(doc["summary"]["culprit_ranks"].empty() && doc["summary"]["chain"].empty());
    QVERIFY(r.out.find("\"summary\"") < r.out.find("\"ranks\""));

    // The text opens with the same paragraph.
    const Result text = runCli({QStringLiteral("analyze"), dir.path()});
    QCOMPARE(text.status, 0);
    QVERIFY2(text.out.starts_with(doc["summary"]["headline"].get<std::string>() + "\n\nRanks\n"), text.out.c_str());
}

void TestAnalyze::exitStatus_data()
{
    QTest::addColumn<QStringList>("files"); // "good", "bad" (truncated), "missing", "unknown"
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("stderrNeedle");
    QTest::newRow("good") << QStringList{QStringLiteral("good")} << 0 << QString();
    QTest::newRow("good plus truncated") << QStringList{QStringLiteral("good"), QStringLiteral("bad")} << 1 << QStringLiteral("bad.json");
    QTest::newRow("good plus missing") << QStringList{QStringLiteral("good"), QStringLiteral("missing")} << 1 << QStringLiteral("missing.json: error:");
    QTest::newRow("unrecognised only") << QStringList{QStringLiteral("unknown")} << 2 << QStringLiteral("nothing usable");
    QTest::newRow("missing only") << QStringList{QStringLiteral("missing")} << 2 << QStringLiteral("nothing usable");
    QTest::newRow("no paths") << QStringList{} << 2 << QStringLiteral("no input paths");
}

void TestAnalyze::exitStatus()
{
    QFETCH(QStringList, files);
    QFETCH(int, status);
    QFETCH(QString, stderrNeedle);
    QTemporaryDir dir;
    rs::test::writeExitStatusInputs(dir.path(), 2);
    QStringList args{QStringLiteral("analyze"), QStringLiteral("--json")};
    for (const QString &f : files)
        args << dir.filePath(f == QLatin1String("unknown") ? f + QStringLiteral(".txt") : f + QStringLiteral(".json"));
    const Result r = runCli(args);
    QCOMPARE(r.status, status);
    if (!stderrNeedle.isEmpty())
        QVERIFY2(QString::fromStdString(r.err).contains(stderrNeedle), r.err.c_str());
    if (status < 2) // still reported, with what could be read
        checkSchema(json::parse(r.out));
    else
        QVERIFY(r.out.empty());
}

void TestAnalyze::clockOffset()
{
    QTemporaryDir dir;
    writeFile(dir.filePath(QStringLiteral("a.json")), rs::test::kinetoTrace(0, 2, 3));
    writeFile(dir.filePath(QStringLiteral("b.json")), rs::test::kinetoTrace(1, 2, 3));
    const Result plain = runCli({QStringLiteral("analyze"), QStringLiteral("--json"), dir.path()});
    const Result moved = runCli({QStringLiteral("analyze"), QStringLiteral("--json"), QStringLiteral("--clock-offset"),
                                 QStringLiteral("1=-5000"), QStringLiteral("--clock-offset=0=250"), dir.path()});
    QCOMPARE(plain.status, 0);
    QCOMPARE(moved.status, 0);
    const json a = json::parse(plain.out), b = json::parse(moved.out);
    checkSchema(b);
    QCOMPARE(a["ranks"][1]["alignment"].get<std::string>(), std::string("wall-clock"));
    QCOMPARE(b["ranks"][0]["alignment"].get<std::string>(), std::string("user"));
    QCOMPARE(b["ranks"][0]["clock_offset_ns"].get<long long>(), 250LL);
    QCOMPARE(b["ranks"][1]["alignment"].get<std::string>(), std::string("user"));
    QCOMPARE(b["ranks"][1]["clock_offset_ns"].get<long long>(), -5000LL);
    // Times are on the aligned axis: the offset moves the rank's peak.
    QCOMPARE(b["ranks"][1]["peak_time_ns"].get<long long>() - a["ranks"][1]["peak_time_ns"].get<long long>(), -5000LL);
    QCOMPARE(b["ranks"][0]["peak_time_ns"].get<long long>() - a["ranks"][0]["peak_time_ns"].get<long long>(), 250LL);
    for (const char *bad : {"1", "x=5", "1=five", "-1=5"}) {
        const Result r = runCli({QStringLiteral("analyze"), QStringLiteral("--clock-offset"), QLatin1String(bad), dir.path()});
        QCOMPARE(r.status, 2);
        QVERIFY2(QString::fromStdString(r.err).contains(QLatin1String("--clock-offset expects RANK=NANOSECONDS")), r.err.c_str());
    }
}

void TestAnalyze::demoIncident()
{
    // The demo's evidence files (its README is prose, not evidence).
    const QDir demoDir(QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo"));
    QStringList demo;
    for (const QString &f : demoDir.entryList({QStringLiteral("*.json.gz"), QStringLiteral("*.log"), QStringLiteral("*.csv")},
                                              QDir::Files, QDir::Name))
        demo << demoDir.filePath(f);
    if (demo.filter(QLatin1String(".json")).isEmpty())
        QSKIP("the demo incident is not in this checkout");
    const Result r = runCli(QStringList{QStringLiteral("analyze"), QStringLiteral("--json")} + demo);
    QCOMPARE(r.status, 0);
    const json doc = json::parse(r.out);
    checkSchema(doc);
    QCOMPARE(doc["ranks"].size(), std::size_t(4));
    // One host: the clocks differ by a few hundred microseconds, found from the collectives.
    for (const json &rank : doc["ranks"]) {
        QCOMPARE(rank["alignment"].get<std::string>(), std::string("collectives"));
        QVERIFY2(std::llabs(rank["clock_offset_ns"].get<long long>()) < 1'000'000, rank.dump().c_str());
        QCOMPARE(rank["alignment_confidence"].get<std::string>(), std::string("high"));
    }
    // Rank 2's step 414 ended in its OOM: cut off, not a fast step.
    QVERIFY2(doc["ranks"][2]["incomplete_steps"] == json::array({414}), doc["ranks"][2]["incomplete_steps"].dump().c_str());

    // Rank 2 got an extra, longer micro-batch in step 414.
    const json *uneven = findingOf(doc, "uneven-batch", 2);
    QVERIFY2(uneven, doc["findings"].dump(1).c_str());
    QVERIFY2(QString::fromStdString((*uneven)["title"].get<std::string>()).contains(QLatin1String("in step 414")),
             (*uneven)["title"].dump().c_str());
    QVERIFY((*uneven)["time_ns"].is_number_integer());
    // Its largest allocation spike is in that step, in the forward pass.
    const json *top = nullptr;
    for (const json &s : doc["spikes"])
        if (s["rank"] == 2 && (!top || s["bytes"].get<long long>() > (*top)["bytes"].get<long long>()))
            top = &s;
    QVERIFY(top);
    QCOMPARE((*top)["step"].get<int>(), 414);
    QVERIFY2(QString::fromStdString((*top)["attributed_to"].get<std::string>()).contains(QLatin1String("forward")),
             (*top)["attributed_to"].dump().c_str());
    for (const json &rank : doc["ranks"])
        if (rank["rank"] != 2)
            QVERIFY(rank["peak_allocated_bytes"].get<long long>() < doc["ranks"][2]["peak_allocated_bytes"].get<long long>());

    // Once the demo's rank 2 runs out of memory (its generator is being extended to make it do so),
    // the OOM must be reported on rank 2, in step 414, and make the uneven batch high.
    const Result inspect = runCli(QStringList{QStringLiteral("inspect"), QStringLiteral("--json")} + demo);
    const json sources = json::parse(inspect.out)["sources"];
    long long oomMessages = 0;
    for (const json &s : sources)
        oomMessages += s["counts"]["oom_messages"].get<long long>();
    bool anyOom = oomMessages > 0;
    for (const json &rank : doc["ranks"])
        anyOom = anyOom || rank["oom"].get<bool>();
    if (!anyOom) {
        qInfo("the demo has no OOM yet: the oom checks did not run");
        QVERIFY(doc["ranks"][2]["oom"] == false);
        QVERIFY(!findingOf(doc, "oom", 2));
        return;
    }
    qInfo("the demo has an OOM (%lld messages): checking it", oomMessages);
    const json *oom = findingOf(doc, "oom", 2);
    QVERIFY2(oom, doc["findings"].dump(1).c_str());
    QCOMPARE((*oom)["severity"].get<std::string>(), std::string("high"));
    QVERIFY(doc["ranks"][2]["oom"].get<bool>());
    for (const json &rank : doc["ranks"])
        QVERIFY2(rank["rank"] == 2 || !rank["oom"].get<bool>(), rank.dump().c_str());
    if (!(*oom)["time_ns"].is_null())
        QVERIFY2(QString::fromStdString((*oom)["title"].get<std::string>()).contains(QLatin1String("in step 414")),
                 (*oom)["title"].dump().c_str());
    QCOMPARE((*uneven)["severity"].get<std::string>(), std::string("high"));
    // Why: its activations (the longer sequences' attention scores) filled the GPU.
    const json *activation = findingOf(doc, "activation-memory", 2);
    QVERIFY2(activation, doc["findings"].dump(1).c_str());
    QCOMPARE((*activation)["severity"].get<std::string>(), std::string("high"));

    // One story: rank 2 is the culprit, the OOM's conditions (the uneven batch, the activations)
    // come before it in the chain, and the headline tells it with the uneven batch's fix.
    const json &summary = doc["summary"];
    QVERIFY2(summary["culprit_ranks"] == json::array({2}), summary.dump().c_str());
    auto position = [&](const json *f) {
        for (std::size_t k = 0; k < summary["chain"].size(); ++k)
            if (&doc["findings"][summary["chain"][k].get<std::size_t>()] == f)
                return static_cast<long long>(k);
        return -1LL;
    };
    QVERIFY2(position(uneven) >= 0 && position(activation) >= 0 && position(uneven) < position(oom)
                 && position(activation) < position(oom),
             summary.dump().c_str());
    const std::string headline = summary["headline"].get<std::string>();
    QVERIFY2(headline.starts_with("Rank 2 ran out of GPU memory"), headline.c_str());
    QVERIFY2(headline.find("Fix: " + (*uneven)["fix"].get<std::string>()) != std::string::npos, headline.c_str());
}

QTEST_GUILESS_MAIN(TestAnalyze)
#include "test_analyze.moc"
