// The merged Chrome trace (issue 5): parsed back with nlohmann::json it must hold one process per
// rank, every span once on the aligned axis, every counter sample, valid JSON whatever the names
// hold, and for the real demo exactly one event per span, instant, counter sample and metadata row.

#include "importerregistry.h"
#include "report/chrometraceexport.h"
#include "sessionfixture.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace rs;
using namespace rs::test;

namespace {

// Rank 1's clock runs 3 s behind rank 0: the same step is recorded 3 s earlier, and an offset of
// +3 s puts it back beside rank 0's.
SessionPtr shiftedPair()
{
    RankTrace r0(0), r1(1);
    const TimeNs behind = -3 * kSec;
    for (int s = 0; s < 2; ++s) {
        r0.step(s, kT0 + s * 100 * kMs, 90 * kMs);
        r1.step(s, kT0 + behind + s * 100 * kMs, 90 * kMs);
        r0.collective(kT0 + s * 100 * kMs + 80 * kMs, 5 * kMs, 1 << 20, s);
        r1.collective(kT0 + behind + s * 100 * kMs + 80 * kMs, 5 * kMs, 1 << 20, s);
    }
    r0.span(r0.cpu(), "aten::mm \"quoted\" \\ back\nslash", kT0 + 10 * kMs, kMs, "{\"Input Dims\":[[2,3]],\"note\":\"a\\\"b\"}");
    r1.span(r1.cpu(), std::string("bad utf8 \xff\xfe end"), kT0 + behind + 10 * kMs, kMs);
    r0.allocated(kT0, 1.0 * kGiB);
    r0.allocated(kT0 + 50 * kMs, 2.0 * kGiB);
    r1.allocated(kT0 + behind, 1.5 * kGiB);
    r1.oomInstant(kT0 + behind + 150 * kMs);
    std::vector<SourceBuilder> src;
    src.push_back(r0.take());
    src.push_back(r1.take());
    return freeze(std::move(src));
}

std::vector<RankAlignment> shiftedAlignment()
{
    return {{0, 0, AlignmentMethod::WallClock, std::nullopt, 0, 0}, {1, 3 * kSec, AlignmentMethod::User, std::nullopt, 0, 0}};
}

nlohmann::json exportJson(const Session &s, const std::vector<RankAlignment> &a, std::string *text = nullptr)
{
    std::ostringstream out;
    std::string error;
    if (!ChromeTraceExport::write(s, a, out, &error))
        qFatal("export failed: %s", error.c_str());
    if (text)
        *text = out.str();
    return nlohmann::json::parse(out.str()); // throws (and fails the test) on invalid JSON
}

std::size_t eventsExpected(const Session &s)
{
    std::size_t n = 0;
    for (const Rank &k : s.ranks()) {
        n += 2; // process_name, process_sort_index
        for (TrackId id : k.tracks) {
            const Track &t = s.tracks()[id];
            n += 2 + t.spans.size() + t.instants.size() + (isCounterKind(t.kind) ? t.counter.size() : 0);
        }
    }
    for (const Flow &f : s.flows())
        n += s.tracks()[f.from.track].rank >= 0 && s.tracks()[f.to.track].rank >= 0 ? 2 : 0; // its `s` and `f`
    return n;
}

} // namespace

class TestChromeTraceExport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void processesAndThreads();
    void spansAlignedOnce();
    void countersAndInstants();
    void escapingKeepsJsonValid();
    void microsFormatting();
    void demoEventCount();
};

void TestChromeTraceExport::processesAndThreads()
{
    const SessionPtr s = shiftedPair();
    const nlohmann::json j = exportJson(*s, shiftedAlignment());
    QCOMPARE(j.at("displayTimeUnit").get<std::string>(), std::string("ms"));
    QCOMPARE(j.at("metadata").at("ranks").size(), std::size_t(2));
    std::map<int, std::string> processNames;
    std::map<int, int> sortIndex;
    int threadNames = 0;
    for (const auto &e : j.at("traceEvents")) {
        if (e.at("ph") != "M")
            continue;
        if (e.at("name") == "process_name") {
            QVERIFY(processNames.emplace(e.at("pid").get<int>(), e.at("args").at("name").get<std::string>()).second);
        } else if (e.at("name") == "process_sort_index") {
            sortIndex[e.at("pid").get<int>()] = e.at("args").at("sort_index").get<int>();
        } else if (e.at("name") == "thread_name") {
            ++threadNames;
            const Track &t = s->tracks()[e.at("tid").get<TrackId>()];
            QCOMPARE(e.at("pid").get<int>(), t.rank);
        }
    }
    QCOMPARE(processNames, (std::map<int, std::string>{{0, "Rank 0"}, {1, "Rank 1"}}));
    QCOMPARE(sortIndex, (std::map<int, int>{{0, 0}, {1, 1}}));
    QCOMPARE(std::size_t(threadNames), s->rank(0)->tracks.size() + s->rank(1)->tracks.size());
}

void TestChromeTraceExport::spansAlignedOnce()
{
    const SessionPtr s = shiftedPair();
    const nlohmann::json j = exportJson(*s, shiftedAlignment());
    std::map<std::pair<int, std::string>, std::vector<double>> ts; // (pid, name) → ts of each X
    std::size_t spans = 0;
    for (const auto &e : j.at("traceEvents"))
        if (e.at("ph") == "X") {
            ++spans;
            ts[{e.at("pid").get<int>(), e.at("name").get<std::string>()}].push_back(e.at("ts").get<double>());
            QVERIFY(e.at("dur").get<double>() >= 0);
        }
    QCOMPARE(spans, s->spanCount());
    auto at = [&](int pid, const char *name) -> const std::vector<double> & { return ts[std::pair(pid, std::string(name))]; };
    // Steps are the CPU spans themselves: one event each, not a second copy from Rank::steps.
    QCOMPARE(at(0, "ProfilerStep#0").size(), std::size_t(1));
    QCOMPARE(at(1, "ProfilerStep#1").size(), std::size_t(1));
    // Rank 1 recorded 3 s earlier; with its +3 s offset it lands exactly on rank 0.
    QCOMPARE(at(0, "ProfilerStep#0").front(), 0.0);
    QCOMPARE(at(1, "ProfilerStep#0").front(), 0.0);
    QCOMPARE(at(1, "ProfilerStep#1").front(), 100000.0);
    // Without the offset rank 1 sits 3 s before rank 0 and becomes the origin.
    const nlohmann::json raw = exportJson(*s, {});
    for (const auto &e : raw.at("traceEvents"))
        if (e.at("ph") == "X" && e.at("name") == "ProfilerStep#0")
            QCOMPARE(e.at("ts").get<double>(), e.at("pid") == 0 ? 3e6 : 0.0);
    // Args are the importer's raw JSON, copied as an object.
    bool sawArgs = false;
    for (const auto &e : j.at("traceEvents"))
        if (e.at("ph") == "X" && e.contains("args") && e.at("args").contains("Input Dims")) {
            sawArgs = true;
            QCOMPARE(e.at("args").at("note").get<std::string>(), std::string("a\"b"));
        }
    QVERIFY(sawArgs);
}

void TestChromeTraceExport::countersAndInstants()
{
    const SessionPtr s = shiftedPair();
    const nlohmann::json j = exportJson(*s, shiftedAlignment());
    std::vector<std::pair<int, double>> counters;
    int instants = 0;
    for (const auto &e : j.at("traceEvents")) {
        if (e.at("ph") == "C")
            counters.emplace_back(e.at("pid").get<int>(), e.at("args").at("value").get<double>());
        if (e.at("ph") == "i") {
            ++instants;
            QCOMPARE(e.at("s").get<std::string>(), std::string("t"));
            QCOMPARE(e.at("name").get<std::string>(), std::string("[OutOfMemory]"));
            QCOMPARE(e.at("ts").get<double>(), 150000.0);
        }
    }
    QCOMPARE(counters.size(), std::size_t(3));
    QVERIFY(std::find(counters.begin(), counters.end(), std::pair(0, double(2 * kGiB))) != counters.end());
    QVERIFY(std::find(counters.begin(), counters.end(), std::pair(1, 1.5 * double(kGiB))) != counters.end());
    QCOMPARE(instants, 1);
    QCOMPARE(j.at("traceEvents").size(), eventsExpected(*s));
}

void TestChromeTraceExport::escapingKeepsJsonValid()
{
    const SessionPtr s = shiftedPair();
    std::string text;
    const nlohmann::json j = exportJson(*s, shiftedAlignment(), &text);
    bool quoted = false, replaced = false;
    for (const auto &e : j.at("traceEvents")) {
        if (e.at("ph") != "X")
            continue;
        const std::string name = e.at("name").get<std::string>();
        quoted = quoted || name == "aten::mm \"quoted\" \\ back\nslash";
        replaced = replaced || name == "bad utf8 \xef\xbf\xbd\xef\xbf\xbd end";
    }
    QVERIFY(quoted);
    QVERIFY(replaced);
    std::string control;
    ChromeTraceExport::appendJsonString(control, std::string("a\x01\tb\xc3\xa9", 6));
    QCOMPARE(control, std::string("\"a\\u0001\\tb\xc3\xa9\""));
}

void TestChromeTraceExport::microsFormatting()
{
    std::string s;
    ChromeTraceExport::appendMicros(s, 1234567);
    s += ' ';
    ChromeTraceExport::appendMicros(s, 5);
    s += ' ';
    ChromeTraceExport::appendMicros(s, -1500);
    QCOMPARE(s, std::string("1234.567 0.005 -1.500"));
}

void TestChromeTraceExport::demoEventCount()
{
    const QString demo = QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo");
    std::vector<SourceBuilder> src;
    for (const std::string &path : ImporterRegistry::expandPaths({demo.toStdString()})) {
        if (path.ends_with(".md"))
            continue;
        ImportContext ctx;
        ctx.timeZone = "UTC";
        src.push_back(ImporterRegistry::instance().importFile(path, ctx));
    }
    QVERIFY(!src.empty());
    const SessionPtr s = freeze(std::move(src));
    const AnalysisResult r = Analyzer::run(*s);
    std::string text;
    const nlohmann::json j = exportJson(*s, r.alignment, &text);
    QCOMPARE(j.at("traceEvents").size(), eventsExpected(*s));
    QVERIFY(s->spanCount() > 0);
    QCOMPARE(j.at("metadata").at("ranks").size(), s->ranks().size());
    double minTs = 1e300;
    for (const auto &e : j.at("traceEvents"))
        if (e.at("ph") != "M")
            minTs = std::min(minTs, e.at("ts").get<double>());
    QCOMPARE(minTs, 0.0); // relative to the earliest aligned time

    // Every flow is an `s` at its launch's start and an `f` ("bp": "e") at its kernel's start, on
    // the threads of those spans, under one id: Perfetto binds both ends to the same spans again.
    QVERIFY(s->flows().size() > 100);
    std::map<std::tuple<std::int64_t, std::int64_t, std::string>, std::set<std::string>> slicesAt; // (pid, tid, ts) → names
    std::map<std::int64_t, std::vector<const nlohmann::json *>> ends;
    for (const auto &e : j.at("traceEvents")) {
        const std::string ph = e.at("ph");
        if (ph == "X")
            slicesAt[{e.at("pid").get<std::int64_t>(), e.at("tid").get<std::int64_t>(), e.at("ts").dump()}].insert(e.at("name").get<std::string>());
        else if (ph == "s" || ph == "f")
            ends[e.at("id").get<std::int64_t>()].push_back(&e);
    }
    QCOMPARE(ends.size(), s->flows().size());
    for (const auto &[id, pair] : ends) {
        QCOMPARE(pair.size(), std::size_t(2));
        const Flow &f = s->flows()[static_cast<std::size_t>(id - 1)];
        for (const nlohmann::json *e : pair) {
            const bool start = e->at("ph") == "s";
            const FlowEnd &end = start ? f.from : f.to;
            QCOMPARE(e->at("tid").get<std::int64_t>(), std::int64_t(end.track));
            QCOMPARE(e->at("cat").get<std::string>(), std::string(flowKindCategory(f.kind)));
            QCOMPARE(e->contains("bp"), !start);
            const auto at = slicesAt.find({e->at("pid").get<std::int64_t>(), e->at("tid").get<std::int64_t>(), e->at("ts").dump()});
            QVERIFY(at != slicesAt.end());
            QVERIFY(at->second.count(std::string(s->str(s->tracks()[end.track].spans[end.span].name))));
        }
    }
    qInfo("demo: %zu events, %zu flows, %zu bytes", j.at("traceEvents").size(), s->flows().size(), text.size());
}

QTEST_GUILESS_MAIN(TestChromeTraceExport)
#include "test_chrometraceexport.moc"
