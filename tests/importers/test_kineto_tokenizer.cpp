// The streaming trace tokenizer and its value conversions: exact decimal timestamps, number-or-
// string values, escapes, the quirks of real traces, and results that do not depend on where the
// chunk boundaries fall (every buffer size must give the same events).

#include "kineto/jsontokenizer.h"
#include "kinetotesthelpers.h"
#include "ownedevent.h"

#include <QDirIterator>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace rs;
using namespace rs::test;

namespace {

using Ev = OwnedEvent;

struct Run {
    JsonTokenizer::Root root = JsonTokenizer::Root::Empty;
    std::vector<Ev> events;
    std::vector<std::pair<std::string, std::string>> topLevel;
    std::vector<Diagnostic> diagnostics;
    bool truncated = false;
    bool cancelled = false;
};

Run tokenize(const std::string &bytes, std::size_t chunk, std::size_t cap = 1 << 20, int cancelAfterChunks = -1)
{
    Run run;
    auto in = InputStream::fromMemory(bytes, nullptr);
    int chunks = 0;
    JsonTokenizer tok(
        *in, [&run](Diagnostic d) { run.diagnostics.push_back(std::move(d)); },
        [&] { return cancelAfterChunks < 0 || ++chunks <= cancelAfterChunks; }, chunk);
    JsonEvent ev;
    const auto take = [&] {
        while (tok.nextEvent(ev)) {
            run.events.push_back(ownedCopy(ev, [](const JsonRaw &v) { return std::string(v.text); }));
        }
    };
    run.root = tok.open();
    if (run.root == JsonTokenizer::Root::Array)
        take();
    std::string key, value;
    while (run.root == JsonTokenizer::Root::Object && tok.nextKey(key)) {
        if (key == "traceEvents" && tok.enterArray())
            take();
        else if (key != "traceEvents" && tok.readValue(value, cap))
            run.topLevel.emplace_back(key, value);
    }
    run.truncated = tok.truncated();
    run.cancelled = tok.cancelled();
    return run;
}

// Exercises long strings, escapes, nested args, blanks and keys on both sides of traceEvents.
std::string mixedFixture()
{
    std::string s = "\n  {\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [ {\"id\": 0, \"name\": \"GPU A\"} ],\n"
                    "  \"traceEvents\": [\n";
    for (int i = 0; i < 60; ++i) {
        s += "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op_" + std::to_string(i) + std::string(static_cast<std::size_t>(i * 7), 'n')
             + "\\\"q\\\"\",\n    \"pid\": 1, \"tid\": \"" + std::to_string(i % 3) + "\",\n    \"ts\": " + std::to_string(1000 + i)
             + ".125, \"dur\": 2.5,\n    \"args\": {\n      \"Input Dims\": [[1, 2], [3]], \"s\": \"a b\",\n      \"n\": " + std::to_string(i)
             + "\n    }\n  },\n";
    }
    s += "  {\"ph\": \"i\", \"s\": \"g\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\", \"ts\": 2000}\n  ],\n"
         "  \"traceName\": \"x.json\",\n  \"baseTimeNanoseconds\": 1700000000000000000\n}";
    return s;
}

} // namespace

class TestKinetoTokenizer : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void microsToNs_data();
    void microsToNs();
    void toInt_data();
    void toInt();
    void toDoubleSpellings();
    void unescape_data();
    void unescape();
    void eventFields();
    void chunkBoundariesDoNotMatter_data();
    void chunkBoundariesDoNotMatter();
    void samplesSameForEveryChunkSize();
    void strayQuotes();
    void escapedName();
    void valueCap();
    void eventLargerThanBuffer();
    void bareArrayAndBom();
    void nonObjectElementsAndMissingComma();
    void truncated();
    void brokenEventNamesLine();
    void brokenEventWithoutClosingBrace();
    void cancelStops();
};

void TestKinetoTokenizer::microsToNs_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("ns");
    QTest::newRow("zero") << "0" << true << qint64(0);
    QTest::newRow("integer us") << "12" << true << qint64(12000);
    QTest::newRow("one digit") << "1.5" << true << qint64(1500);
    QTest::newRow("two digits") << "4909733314695.21" << true << qint64(4909733314695210);
    QTest::newRow("relative kineto") << "5237914766.180" << true << qint64(5237914766180);
    QTest::newRow("absolute with ns") << "1711650000123456.789" << true << qint64(1711650000123456789);
    QTest::newRow("absolute integer") << "1698770201469520" << true << qint64(1698770201469520000);
    QTest::newRow("round half up") << "1.0005" << true << qint64(1001);
    QTest::newRow("round down") << "1.0004" << true << qint64(1000);
    QTest::newRow("carry") << "0.9995" << true << qint64(1000);
    QTest::newRow("negative") << "-2.5" << true << qint64(-2500);
    QTest::newRow("blanks") << " 7 " << true << qint64(7000);
    QTest::newRow("leading dot") << ".5" << true << qint64(500);
    QTest::newRow("exponent") << "1e3" << true << qint64(1000000);
    QTest::newRow("exponent fraction") << "1.5E+2" << true << qint64(150000);
    QTest::newRow("inf") << "inf" << false << qint64(0);
    QTest::newRow("nan") << "NaN" << false << qint64(0);
    QTest::newRow("word") << "abc" << false << qint64(0);
    QTest::newRow("empty") << "" << false << qint64(0);
    QTest::newRow("two dots") << "1.2.3" << false << qint64(0);
    QTest::newRow("overflow") << "99999999999999999999" << false << qint64(0);
}

void TestKinetoTokenizer::microsToNs()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(qint64, ns);
    const auto got = JsonRaw::microsToNs(text.toStdString());
    QCOMPARE(got.has_value(), ok);
    if (ok)
        QCOMPARE(qint64(*got), ns);
}

void TestKinetoTokenizer::toInt_data()
{
    QTest::addColumn<bool>("quoted");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("value");
    QTest::newRow("number") << false << "8" << true << qint64(8);
    QTest::newRow("string") << true << "8" << true << qint64(8);
    QTest::newRow("negative") << false << "-3" << true << qint64(-3);
    QTest::newRow("whole float") << false << "8.0" << true << qint64(8);
    QTest::newRow("exponent") << false << "1e3" << true << qint64(1000);
    QTest::newRow("fraction") << false << "8.5" << false << qint64(0);
    QTest::newRow("literal") << false << "true" << false << qint64(0);
    QTest::newRow("word") << true << "x" << false << qint64(0);
    QTest::newRow("big") << false << "4194304000000" << true << qint64(4194304000000);
}

void TestKinetoTokenizer::toInt()
{
    QFETCH(bool, quoted);
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(qint64, value);
    const std::string t = text.toStdString();
    const JsonRaw raw{t, quoted ? JsonRaw::Kind::String : JsonRaw::Kind::Token, false};
    const auto got = raw.toInt();
    QCOMPARE(got.has_value(), ok);
    if (ok)
        QCOMPARE(qint64(*got), value);
}

void TestKinetoTokenizer::toDoubleSpellings()
{
    const auto d = [](const char *t, JsonRaw::Kind k = JsonRaw::Kind::Token) { return JsonRaw{t, k, false}.toDouble(); };
    QVERIFY(std::isinf(*d("inf")));
    QVERIFY(std::isinf(*d("inf", JsonRaw::Kind::String))); // "warps per SM": "inf"
    QVERIFY(std::isnan(*d("nan")));
    QCOMPARE(*d("0.1"), 0.1);
    QCOMPARE(*d("+2"), 2.0);
    QVERIFY(!d("N/A", JsonRaw::Kind::String));
    QVERIFY(!(JsonRaw{"[1]", JsonRaw::Kind::Array, false}.toDouble()));
    QVERIFY(!JsonRaw{}.toDouble());
}

void TestKinetoTokenizer::unescape_data()
{
    QTest::addColumn<QByteArray>("in");
    QTest::addColumn<QByteArray>("out");
    QTest::newRow("quote") << QByteArray(R"(a\"b)") << QByteArray("a\"b");
    QTest::newRow("backslash") << QByteArray(R"(c:\\x)") << QByteArray("c:\\x");
    QTest::newRow("controls") << QByteArray(R"(\n\t\/)") << QByteArray("\n\t/");
    QTest::newRow("bmp") << QByteArray(R"(caf\u00e9)") << QByteArray("caf\xc3\xa9");
    QTest::newRow("surrogate pair") << QByteArray(R"(\ud83d\ude00)") << QByteArray("\xf0\x9f\x98\x80");
    QTest::newRow("lone surrogate") << QByteArray(R"(\ud800x)") << QByteArray("\xef\xbf\xbdx");
    QTest::newRow("unknown escape kept") << QByteArray(R"(\x)") << QByteArray(R"(\x)");
    QTest::newRow("short unicode kept") << QByteArray(R"(\u12)") << QByteArray(R"(\u12)");
}

void TestKinetoTokenizer::unescape()
{
    QFETCH(QByteArray, in);
    QFETCH(QByteArray, out);
    std::string buf(static_cast<std::size_t>(in.size()), '\0');
    buf.resize(JsonRaw::unescapeTo(std::string_view(in.constData(), static_cast<std::size_t>(in.size())), buf.data()));
    QCOMPARE(QByteArray::fromStdString(buf), out);
}

void TestKinetoTokenizer::eventFields()
{
    const Run run = tokenize(mixedFixture(), 1 << 20);
    QCOMPARE(run.root, JsonTokenizer::Root::Object);
    QVERIFY(run.diagnostics.empty());
    QCOMPARE(run.events.size(), std::size_t(61));
    const Ev &e = run.events[1];
    QCOMPARE(e.ph, std::string("X"));
    QCOMPARE(e.cat, std::string("cpu_op"));
    QCOMPARE(e.name, std::string("op_1nnnnnnn\"q\""));
    QCOMPARE(e.pid, std::string("1"));
    QCOMPARE(e.tid, std::string("1")); // the string "1", quotes removed
    QCOMPARE(e.ts, std::string("1001.125"));
    QCOMPARE(e.dur, std::string("2.5"));
    // Pretty-printed args are stored compact, blanks inside strings kept.
    QCOMPARE(e.args, std::string(R"({"Input Dims":[[1,2],[3]],"s":"a b","n":1})"));
    QCOMPARE(e.argList.size(), std::size_t(3));
    QCOMPARE(e.argList[0], (std::pair<std::string, std::string>("Input Dims", "[[1, 2], [3]]")));
    QCOMPARE(e.argList[2], (std::pair<std::string, std::string>("n", "1")));
    const Ev &last = run.events.back();
    QCOMPARE(last.pid, std::string());
    QCOMPARE(last.name, std::string("Record Window End"));
    const auto top = run.topLevel;
    QCOMPARE(top.size(), std::size_t(4));
    QCOMPARE(top[1], (std::pair<std::string, std::string>("deviceProperties", R"([{"id":0,"name":"GPU A"}])")));
    QCOMPARE(top[2], (std::pair<std::string, std::string>("traceName", "\"x.json\"")));
    QCOMPARE(top[3], (std::pair<std::string, std::string>("baseTimeNanoseconds", "1700000000000000000")));
    QVERIFY(!run.truncated);
}

void TestKinetoTokenizer::chunkBoundariesDoNotMatter_data()
{
    QTest::addColumn<int>("chunk");
    for (int c : {64, 65, 100, 333, 1000, 4096})
        QTest::addRow("%d", c) << c;
}

void TestKinetoTokenizer::chunkBoundariesDoNotMatter()
{
    QFETCH(int, chunk);
    const std::string text = mixedFixture();
    const Run reference = tokenize(text, 1 << 20);
    const Run run = tokenize(text, static_cast<std::size_t>(chunk));
    QCOMPARE(run.events.size(), reference.events.size());
    for (std::size_t i = 0; i < run.events.size(); ++i)
        QVERIFY2(run.events[i] == reference.events[i], qPrintable(QStringLiteral("event %1 differs").arg(i)));
    QVERIFY(run.topLevel == reference.topLevel);
    QVERIFY(run.diagnostics.empty());
}

void TestKinetoTokenizer::samplesSameForEveryChunkSize()
{
    const QString dir = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/profiler");
    if (!QFileInfo::exists(dir))
        QSKIP("samples/profiler is not present");
    int files = 0;
    for (QDirIterator it(dir, QDir::Files, QDirIterator::Subdirectories); it.hasNext();) {
        std::string err;
        auto in = InputStream::open(it.next().toStdString(), &err);
        QVERIFY2(in, err.c_str());
        std::string text(1 << 16, '\0'), all;
        while (const std::size_t n = in->read(text.data(), text.size()))
            all.append(text.data(), n);
        const Run big = tokenize(all, 1 << 20);
        const Run small = tokenize(all, 997);
        QVERIFY(big.diagnostics.empty());
        QVERIFY(!big.events.empty());
        QVERIFY2(big.events == small.events, qPrintable(it.filePath()));
        QVERIFY(big.topLevel == small.topLevel);
        // Every stored args text is valid, compact JSON.
        for (std::size_t i = 0; i < big.events.size(); i += 97)
            if (!big.events[i].args.empty())
                QVERIFY2(!nlohmann::json::parse(big.events[i].args, nullptr, false).is_discarded(), big.events[i].args.c_str());
        ++files;
    }
    QCOMPARE(files, 15);
}

void TestKinetoTokenizer::strayQuotes()
{
    // pytorch#146900: quotes inside names were not escaped.
    const std::string text = R"({"traceEvents": [{"ph": "X", "name": "say "hi" now", "args": {"v": "a "b" c", "w": 1}, "ts": 1}]})";
    const Run run = tokenize(text, 1 << 20);
    QVERIFY(run.diagnostics.empty());
    QCOMPARE(run.events.size(), std::size_t(1));
    QCOMPARE(run.events[0].name, std::string("say \"hi\" now"));
    QCOMPARE(run.events[0].ts, std::string("1"));
    // The stored copy escapes them, so it stays valid JSON.
    QCOMPARE(run.events[0].args, std::string(R"({"v":"a \"b\" c","w":1})"));
    const auto args = nlohmann::json::parse(run.events[0].args);
    QCOMPARE(QString::fromStdString(args["v"].get<std::string>()), QStringLiteral("a \"b\" c"));
}

void TestKinetoTokenizer::escapedName()
{
    const std::string text = R"([{"ph": "X", "name": "a\"b\\c\u00e9", "ts": 1}])";
    const Run run = tokenize(text, 64);
    QCOMPARE(run.events.size(), std::size_t(1));
    QCOMPARE(run.events[0].name, std::string("a\"b\\c\xc3\xa9"));
}

void TestKinetoTokenizer::valueCap()
{
    const std::string big(5000, 'x');
    const std::string text = "{\"INFO\": [\"" + big + "\"], \"after\": {\"k\": 1}, \"traceEvents\": []}";
    const Run run = tokenize(text, 100, 1000);
    QCOMPARE(run.topLevel.size(), std::size_t(2));
    QCOMPARE(run.topLevel[0].second.size(), std::size_t(1000));
    QCOMPARE(run.topLevel[1], (std::pair<std::string, std::string>("after", R"({"k":1})")));
    QVERIFY(run.diagnostics.empty());
}

void TestKinetoTokenizer::eventLargerThanBuffer()
{
    const std::string stack(3 << 20, 's');
    const std::string text = R"({"traceEvents": [{"ph": "X", "name": "small", "ts": 1}, {"ph": "X", "name": "big", "args": {"Call stack": ")"
        + stack + R"("}, "ts": 2}, {"ph": "X", "name": "after", "ts": 3}]})";
    const Run run = tokenize(text, 64 * 1024);
    QCOMPARE(run.events.size(), std::size_t(3));
    QCOMPARE(run.events[1].args.size(), stack.size() + 17);
    QCOMPARE(run.events[2].name, std::string("after"));
    QCOMPARE(run.events[2].offset, std::int64_t(text.find(R"({"ph": "X", "name": "after")")));
}

void TestKinetoTokenizer::bareArrayAndBom()
{
    const std::string text = "\xEF\xBB\xBF\n [ {\"ph\": \"B\", \"name\": \"a\", \"ts\": 1}, {\"ph\": \"E\", \"ts\": 2} ]";
    const Run run = tokenize(text, 64);
    QCOMPARE(run.root, JsonTokenizer::Root::Array);
    QCOMPARE(run.events.size(), std::size_t(2));
    QCOMPARE(run.events[1].ph, std::string("E"));
    QVERIFY(!run.truncated);
    QCOMPARE(tokenize("  \n ", 64).root, JsonTokenizer::Root::Empty);
    QCOMPARE(tokenize("PK\x03\x04", 64).root, JsonTokenizer::Root::NotJson);
}

void TestKinetoTokenizer::nonObjectElementsAndMissingComma()
{
    const std::string text = R"({"traceEvents": [1, "x", {"ph": "X", "ts": 1} {"ph": "X", "ts": 2}, [3], {"ph": "X", "ts": 4},]})";
    const Run run = tokenize(text, 1 << 20);
    QCOMPARE(run.events.size(), std::size_t(3));
    QCOMPARE(run.events[2].ts, std::string("4"));
    int warnings = 0;
    for (const Diagnostic &d : run.diagnostics)
        warnings += !d.isError();
    QCOMPARE(warnings, 4); // 1, "x", the missing comma, [3]
    QCOMPARE(int(run.diagnostics.size()), 4);
}

void TestKinetoTokenizer::truncated()
{
    const std::string text = R"({"schemaVersion": 1, "traceEvents": [{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2}, {"ph": "X", "na)";
    const Run run = tokenize(text, 64);
    QCOMPARE(run.events.size(), std::size_t(2));
    QVERIFY(run.truncated);
    QCOMPARE(run.diagnostics.size(), std::size_t(1));
    QVERIFY(run.diagnostics[0].isError());
    QCOMPARE(run.diagnostics[0].offset, std::int64_t(text.size()));
    QVERIFY(run.diagnostics[0].message.find("after 2 events") != std::string::npos);
}

void TestKinetoTokenizer::brokenEventNamesLine()
{
    const std::string text = "{\n\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1},\n{\"ph\": \"X\",\n  garbage here, \"ts\": 2},\n"
                             "{\"ph\": \"X\", \"ts\": 3}\n]}";
    for (std::size_t chunk : {std::size_t(64), std::size_t(1) << 20}) {
        const Run run = tokenize(text, chunk);
        QCOMPARE(run.events.size(), std::size_t(2));
        QCOMPARE(run.events[1].ts, std::string("3"));
        QCOMPARE(run.diagnostics.size(), std::size_t(1));
        QVERIFY(run.diagnostics[0].isError());
        QCOMPARE(run.diagnostics[0].line, std::int64_t(5));
        QCOMPARE(run.diagnostics[0].offset, std::int64_t(text.find("garbage")));
    }
}

void TestKinetoTokenizer::brokenEventWithoutClosingBrace()
{
    // The second event lost its '}': the next event starts at a '{' right after a ','.
    const std::string text = R"([{"ph": "X", "ts": 1}, {"ph": "X", "ts": 2, {"ph": "X", "ts": 3}, {"ph": "X", "ts": 4}])";
    const Run run = tokenize(text, 1 << 20);
    QCOMPARE(run.events.size(), std::size_t(3));
    QCOMPARE(run.events[1].ts, std::string("3"));
    QCOMPARE(run.events[2].ts, std::string("4"));
    QCOMPARE(run.diagnostics.size(), std::size_t(1));
    QVERIFY(!run.truncated);
}

void TestKinetoTokenizer::cancelStops()
{
    std::string text = "[";
    for (int i = 0; i < 20000; ++i)
        text += R"({"ph": "X", "name": "n", "ts": 1},)";
    text += "{}]";
    const Run run = tokenize(text, 4096, 1 << 20, 2);
    QVERIFY(run.cancelled);
    QVERIFY(!run.truncated);
    QVERIFY(run.diagnostics.empty());
    QVERIFY(run.events.size() > 100);
    QVERIFY(run.events.size() < 1000);
}

QTEST_GUILESS_MAIN(TestKinetoTokenizer)
#include "test_kineto_tokenizer.moc"
