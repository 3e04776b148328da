// Events larger than the tokenizer's value limit (issue 11): they are streamed through the
// condenser, which must give the same event as the buffered parse when nothing is cut, cut strings
// longer than the limit at a clean boundary with one counted warning at the value's offset, keep
// memory bounded for a 2 GiB string in a zstd trace, and handle broken, unclosed, truncated and
// cancelled oversized events like ordinary ones.

#include "kineto/jsontokenizer.h"
#include "kinetotesthelpers.h"
#include "ownedevent.h"
#include "peakmemory.h"

#include <QElapsedTimer>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace rs;
using namespace rs::test;

namespace {

using Ev = OwnedEvent;

struct Run {
    std::vector<Ev> events;
    std::vector<std::pair<std::string, std::string>> topLevel;
    std::vector<Diagnostic> diagnostics;
    bool truncated = false;
    bool cancelled = false;
    std::int64_t cut = 0;
};

// What the importer can read from an args value: strings decoded (the condensed copy escapes
// stray quotes the file left bare), nested values without blanks (the buffered parse keeps the
// file's, the condensed copy drops them; nothing but the compact args text uses them).
std::string readable(const JsonRaw &v)
{
    std::string scratch;
    if (v.kind != JsonRaw::Kind::Object && v.kind != JsonRaw::Kind::Array)
        return std::string(v.toText(scratch));
    std::string out;
    bool inString = false;
    for (std::size_t i = 0; i < v.text.size(); ++i) {
        const char c = v.text[i];
        if (inString && c == '\\') {
            out += c;
            out += v.text[++i];
            continue;
        }
        if (c == '"')
            inString = !inString;
        if (inString || !JsonEventParser::isBlank(c))
            out += c;
    }
    return out;
}

Run tokenize(const std::string &bytes, std::size_t chunk, std::size_t limit, int cancelAfterChunks = -1)
{
    Run run;
    auto in = InputStream::fromMemory(bytes, nullptr);
    int chunks = 0;
    JsonTokenizer tok(
        *in, [&run](Diagnostic d) { run.diagnostics.push_back(std::move(d)); },
        [&] { return cancelAfterChunks < 0 || ++chunks <= cancelAfterChunks; }, chunk);
    tok.setValueLimit(limit);
    JsonEvent ev;
    const auto take = [&] {
        while (tok.nextEvent(ev)) {
            run.events.push_back(ownedCopy(ev, readable));
        }
    };
    const auto root = tok.open();
    if (root == JsonTokenizer::Root::Array)
        take();
    std::string key, value;
    while (root == JsonTokenizer::Root::Object && tok.nextKey(key)) {
        if (key == "traceEvents" && tok.enterArray())
            take();
        else if (key != "traceEvents" && tok.readValue(value, 1 << 20))
            run.topLevel.emplace_back(key, value);
    }
    run.truncated = tok.truncated();
    run.cancelled = tok.cancelled();
    run.cut = tok.cutValues();
    return run;
}

// Events of every kind the parser reads, each a few hundred bytes: blanks and newlines, escapes,
// stray quotes, nested args, keys the parser skips (with nested values), string pids.
std::string variedTrace()
{
    std::string s = "{\"schemaVersion\": 1,\n \"traceEvents\": [\n";
    for (int i = 0; i < 40; ++i) {
        const std::string n = std::to_string(i);
        s += "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\",\n    \"name\": \"op_" + n + std::string(std::size_t(i * 5), 'n') + "\\\"q\\\" \\u00e9\",";
        if (i % 3 == 0)
            s += " \"extra\": {\"k\": [1, 2, {\"deep\": \"x, ] }\"}], \"s\": \"}\"},";
        s += "\n    \"pid\": " + (i % 2 ? n : "\"" + n + "\"") + ", \"tid\": " + n + ", \"ts\": " + std::to_string(1000 + i) + ".125, \"dur\": 2.5,\n";
        s += "    \"args\": {\n      \"Input Dims\": [[1, 2], [3]], \"say\": \"a \"quoted\" word\", \"esc\": \"tab\\tback\\\\slash\",\n"
             "      \"n\": " + n + ", \"f\": -1.5e3, \"b\": true, \"z\": null, \"o\": {\"p\": [ ], \"q\": { }}\n    }\n  }";
        s += i + 1 < 40 ? ",\n" : "\n";
    }
    s += "  ],\n \"traceName\": \"x\"\n}";
    return s;
}

const Diagnostic *find(const Run &run, std::string_view code)
{
    for (const Diagnostic &d : run.diagnostics)
        if (d.code == code)
            return &d;
    return nullptr;
}

// Writes `parts` as one zstd frame, each part repeated its count of times, without holding the text.
std::string zstdOf(const std::vector<std::pair<std::string, std::int64_t>> &parts)
{
    std::string out;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    std::string buf(ZSTD_CStreamOutSize(), '\0');
    const auto push = [&](const std::string &piece, ZSTD_EndDirective mode) {
        ZSTD_inBuffer input{piece.data(), piece.size(), 0};
        bool finished = false;
        while (!finished) {
            ZSTD_outBuffer output{buf.data(), buf.size(), 0};
            const std::size_t left = ZSTD_compressStream2(cctx, &output, &input, mode);
            out.append(buf.data(), output.pos);
            finished = mode == ZSTD_e_end ? left == 0 : input.pos == input.size;
        }
    };
    for (const auto &[piece, times] : parts)
        for (std::int64_t k = 0; k < times; ++k)
            push(piece, ZSTD_e_continue);
    push(std::string(), ZSTD_e_end);
    ZSTD_freeCCtx(cctx);
    return out;
}

} // namespace

class TestKinetoOversized : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // First, while the process has not yet needed much memory of its own.
    void twoGiBArgsStringInZstd();
    void twentyMiBNameIsCut();
    void condensedEqualsBuffered_data();
    void condensedEqualsBuffered();
    void stringCutAtLimit();
    void cutEndsCleanly_data();
    void cutEndsCleanly();
    void argsBeyondBudgetDropElements();
    void brokenOversizedEvents();
    void truncatedInsideOversizedEvent();
    void cancelInsideOversizedEvent();
    void hugeTopLevelKey();
};

void TestKinetoOversized::twoGiBArgsStringInZstd()
{
    const std::string head = R"({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "before", "pid": 1, "tid": 1, "ts": 1, "dur": 1},
  {"ph": "X", "cat": "cpu_op", "name": "big", "pid": 1, "tid": 1, "ts": 2, "dur": 1, "args": {"Call stack": ")";
    const std::string tail = R"("}},
  {"ph": "X", "cat": "cpu_op", "name": "after", "pid": 1, "tid": 1, "ts": 3, "dur": 1}
]})";
    const std::string mib(1 << 20, 'x');
    const std::string bytes = zstdOf({{head, 1}, {mib, 2048}, {tail, 1}});
    QVERIFY2(bytes.size() < (1 << 20), qPrintable(QString::number(bytes.size())));

    const bool reset = resetPeakRss();
    const std::int64_t before = peakRssBytes();
    QElapsedTimer timer;
    timer.start();
    const SourceBuilder b = importText(bytes, "trace.json.zst");
    const qint64 ms = timer.elapsed();
    const std::int64_t growth = peakRssBytes() - before;
    qInfo("2 GiB args string: %lld ms, peak RSS growth %lld MiB (peak reset: %s)", ms, static_cast<long long>(growth >> 20),
          reset ? "yes" : "no");
    QVERIFY2(growth < (std::int64_t(256) << 20), qPrintable(QString::number(growth >> 20) + " MiB"));

    QCOMPARE(b.source().format, std::string("pytorch-trace"));
    QVERIFY(findSpan(b, "before"));
    QVERIFY(findSpan(b, "big"));
    QVERIFY(findSpan(b, "after"));
    const Diagnostic *cut = nullptr;
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == "value-too-long")
            cut = &d;
    QVERIFY2(cut, diagnosticsText(b).constData());
    QVERIFY(!cut->isError());
    QCOMPARE(cut->count, std::int64_t(1));
    QCOMPARE(cut->offset, std::int64_t(head.size() - 1)); // the string's opening quote
    QCOMPARE(cut->line, std::int64_t(3));
    QVERIFY(cut->message.find("\"args\"") != std::string::npos);
    QCOMPARE(countDiagnostics(b, Diagnostic::Severity::Error), 0);
}

void TestKinetoOversized::twentyMiBNameIsCut()
{
    const std::string name(20 << 20, 'n');
    const std::string text = R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": ")" + name
        + R"(", "pid": 1, "tid": 1, "ts": 1, "dur": 1}, {"ph": "X", "cat": "cpu_op", "name": "next", "pid": 1, "tid": 1, "ts": 2, "dur": 1}]})";
    const SourceBuilder b = importText(text);
    const Span *cut = findSpan(b, std::string(JsonTokenizer::kDefaultValueLimit, 'n'));
    QVERIFY2(cut, diagnosticsText(b).constData());
    QVERIFY(findSpan(b, "next"));
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1));
    const Diagnostic &d = b.source().diagnostics[0];
    QCOMPARE(d.code, std::string("value-too-long"));
    QCOMPARE(d.offset, std::int64_t(text.find(name) - 1));
    QVERIFY(d.message.find("\"name\"") != std::string::npos);
    QVERIFY(d.message.find("16 MiB") != std::string::npos);
}

void TestKinetoOversized::condensedEqualsBuffered_data()
{
    QTest::addColumn<int>("chunk");
    for (int c : {64, 97, 256, 1000})
        QTest::addRow("%d", c) << c;
}

void TestKinetoOversized::condensedEqualsBuffered()
{
    // With a 300-byte limit nearly every event is streamed, and none holds a longer string.
    QFETCH(int, chunk);
    const std::string text = variedTrace();
    const Run reference = tokenize(text, 1 << 20, JsonTokenizer::kDefaultValueLimit);
    const Run run = tokenize(text, std::size_t(chunk), 300);
    QVERIFY(reference.diagnostics.empty());
    QVERIFY2(run.diagnostics.empty(), run.diagnostics.empty() ? "" : run.diagnostics[0].message.c_str());
    QCOMPARE(run.events.size(), std::size_t(40));
    QCOMPARE(run.events.size(), reference.events.size());
    for (std::size_t i = 1; i < run.events.size(); ++i)
        QVERIFY(run.events[i].offset - run.events[i - 1].offset > 300); // each one larger than the limit
    for (std::size_t i = 0; i < run.events.size(); ++i) {
        QVERIFY2(run.events[i] == reference.events[i], qPrintable(QStringLiteral("event %1: %2 vs %3").arg(i)
                     .arg(QString::fromStdString(run.events[i].args), QString::fromStdString(reference.events[i].args))));
        QVERIFY(!nlohmann::json::parse(run.events[i].args, nullptr, false).is_discarded());
    }
    QVERIFY(run.topLevel == reference.topLevel);
    QCOMPARE(run.cut, std::int64_t(0));
}

void TestKinetoOversized::stringCutAtLimit()
{
    const std::string text = "[\n{\"ph\": \"X\", \"ts\": 1},\n{\"ph\": \"X\",\n \"name\": \"" + std::string(5000, 'a')
        + "\", \"ts\": 2, \"args\": {\"s\": \"" + std::string(3000, 'b') + "\", \"k\": 7}},\n{\"ph\": \"X\", \"ts\": 3}\n]";
    // (A first chunk larger than the limit would hold the event whole: the limit bounds growth.)
    for (std::size_t chunk : {std::size_t(64), std::size_t(500), std::size_t(1000)}) {
        const Run run = tokenize(text, chunk, 1000);
        QCOMPARE(run.events.size(), std::size_t(3));
        QCOMPARE(run.events[1].name, std::string(1000, 'a'));
        QCOMPARE(run.events[1].ts, std::string("2"));
        QCOMPARE(run.events[1].args, "{\"s\":\"" + std::string(1000, 'b') + "\",\"k\":7}");
        QCOMPARE(run.events[1].offset, std::int64_t(text.find("{\"ph\": \"X\",\n")));
        QCOMPARE(run.events[2].offset, std::int64_t(text.find("{\"ph\": \"X\", \"ts\": 3}")));
        QCOMPARE(run.cut, std::int64_t(2));
        // One report for the event, counting both, at the first value cut.
        QCOMPARE(run.diagnostics.size(), std::size_t(1));
        const Diagnostic &d = run.diagnostics[0];
        QCOMPARE(d.code, std::string("value-too-long"));
        QCOMPARE(d.count, std::int64_t(2));
        QCOMPARE(d.offset, std::int64_t(text.find("\"aaa")));
        QCOMPARE(d.line, std::int64_t(4));
        QVERIFY(d.message.find("1000 bytes") != std::string::npos);
    }
}

void TestKinetoOversized::cutEndsCleanly_data()
{
    QTest::addColumn<QString>("unit");
    QTest::newRow("\\u escapes") << QStringLiteral("\\u00e9");
    QTest::newRow("surrogate pairs") << QStringLiteral("\\ud83d\\ude00");
    QTest::newRow("two-byte UTF-8") << QString::fromUtf8("\xc3\xa9");
    QTest::newRow("four-byte UTF-8") << QString::fromUtf8("\xf0\x9f\x98\x80");
    QTest::newRow("escaped backslash") << QStringLiteral("\\\\");
    QTest::newRow("escaped quote") << QStringLiteral("\\\"");
    QTest::newRow("stray quote") << QStringLiteral("a \" b");
}

void TestKinetoOversized::cutEndsCleanly()
{
    // Whatever byte the limit falls on, the kept name is whole characters and the args valid JSON.
    QFETCH(QString, unit);
    const std::string u = unit.toStdString();
    std::string body;
    while (body.size() < 2000)
        body += u;
    const std::string text = "[{\"ph\": \"X\", \"name\": \"" + body + "\", \"args\": {\"v\": \"" + body + "\"}, \"ts\": 5}]";
    const std::string whole = tokenize(text, 1 << 20, 1 << 20).events.at(0).name;
    for (std::size_t limit = 1000; limit < 1012; ++limit) {
        const Run run = tokenize(text, 128, limit);
        QCOMPARE(run.events.size(), std::size_t(1));
        const Ev &e = run.events[0];
        QCOMPARE(e.ts, std::string("5"));
        QVERIFY(run.cut == 2);
        const QString name = QString::fromUtf8(e.name.data(), qsizetype(e.name.size()));
        QVERIFY2(!name.contains(QChar::ReplacementCharacter), qPrintable(QStringLiteral("limit %1").arg(limit)));
        QCOMPARE(name.toStdString(), e.name);
        QVERIFY(e.name.size() > 200);
        QVERIFY(whole.starts_with(e.name));
        const auto args = nlohmann::json::parse(e.args, nullptr, false);
        QVERIFY2(!args.is_discarded(), e.args.c_str());
        QVERIFY(e.args.size() <= limit + 10);
    }
}

void TestKinetoOversized::argsBeyondBudgetDropElements()
{
    // 20 strings of 300 bytes against a limit of 1000: args may keep 1250 bytes, so the list is
    // closed after the strings that fit; the fields after args are all kept.
    std::string list;
    for (int i = 0; i < 20; ++i)
        list += (i ? ", \"" : "\"") + std::string(300, char('a' + i)) + "\"";
    const std::string text = "[{\"ph\": \"X\", \"args\": {\"first\": 1, \"many\": [" + list + "], \"last\": 2}, \"name\": \"kept\", \"ts\": 9}]";
    const Run run = tokenize(text, 100, 1000);
    QCOMPARE(run.events.size(), std::size_t(1));
    const Ev &e = run.events[0];
    QCOMPARE(e.name, std::string("kept"));
    QCOMPARE(e.ts, std::string("9"));
    const auto args = nlohmann::json::parse(e.args, nullptr, false);
    QVERIFY2(!args.is_discarded(), e.args.c_str());
    QCOMPARE(args["first"].get<int>(), 1);
    QVERIFY(args["many"].size() >= 2 && args["many"].size() <= 4);
    QVERIFY(e.args.size() <= 1250);
    QVERIFY(run.cut >= 1);
    const Diagnostic *d = find(run, "value-too-long");
    QVERIFY(d);
    QVERIFY2(d->message.find("\"args\"") != std::string::npos, d->message.c_str());
    QCOMPARE(d->offset, std::int64_t(text.find("\"" + std::string(300, char('a' + args["many"].size())))));
}

void TestKinetoOversized::brokenOversizedEvents()
{
    const std::string big(3000, 'x');
    // A big event whose '}' is lost, then one with garbage between its keys, then a good one.
    const std::string text = "[{\"ph\": \"X\", \"name\": \"" + big + "\", \"ts\": 1, {\"ph\": \"X\", \"ts\": 2},\n"
        "{\"ph\": \"X\", \"name\": \"" + big + "\", garbage, \"ts\": 3},\n{\"ph\": \"X\", \"ts\": 4}]";
    for (std::size_t chunk : {std::size_t(64), std::size_t(700)}) {
        const Run run = tokenize(text, chunk, 1000);
        QCOMPARE(run.events.size(), std::size_t(2));
        QCOMPARE(run.events[0].ts, std::string("2"));
        QCOMPARE(run.events[1].ts, std::string("4"));
        QVERIFY(!run.truncated);
        int errors = 0;
        for (const Diagnostic &d : run.diagnostics)
            errors += d.isError();
        QCOMPARE(errors, 2);
        const Diagnostic *garbage = nullptr;
        for (const Diagnostic &d : run.diagnostics)
            if (d.isError() && d.offset == std::int64_t(text.find("garbage")))
                garbage = &d;
        QVERIFY(garbage);
        QCOMPARE(garbage->line, std::int64_t(2));
    }
}

void TestKinetoOversized::truncatedInsideOversizedEvent()
{
    const std::string text = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}, {\"ph\": \"X\", \"args\": {\"s\": \"" + std::string(5000, 'y');
    const Run run = tokenize(text, 256, 1000);
    QCOMPARE(run.events.size(), std::size_t(1));
    QVERIFY(run.truncated);
    const Diagnostic *d = find(run, "truncated");
    QVERIFY(d);
    QCOMPARE(d->offset, std::int64_t(text.size()));
}

void TestKinetoOversized::cancelInsideOversizedEvent()
{
    const std::string text = "[{\"ph\": \"X\", \"args\": {\"s\": \"" + std::string(100000, 'y') + "\"}}, {\"ph\": \"X\", \"ts\": 2}]";
    const Run run = tokenize(text, 1024, 2048, 20);
    QVERIFY(run.cancelled);
    QVERIFY(!run.truncated);
    QVERIFY(run.events.empty());
    QVERIFY(run.diagnostics.empty());
}

void TestKinetoOversized::hugeTopLevelKey()
{
    const std::string key(3000, 'k');
    const std::string text = "{\"" + key + "\": 1, \"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}], \"after\": 2}";
    const Run run = tokenize(text, 128, 1000);
    QCOMPARE(run.events.size(), std::size_t(1));
    QCOMPARE(run.topLevel.size(), std::size_t(2));
    QCOMPARE(run.topLevel[0].first, std::string(999, 'k'));
    QCOMPARE(run.topLevel[1], (std::pair<std::string, std::string>("after", "2")));
    const Diagnostic *d = find(run, "value-too-long");
    QVERIFY(d);
    QCOMPARE(d->offset, std::int64_t(1));
    QCOMPARE(run.cut, std::int64_t(1));
}

QTEST_GUILESS_MAIN(TestKinetoOversized)
#include "test_kineto_oversized.moc"
