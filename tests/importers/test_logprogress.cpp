// What a training loop prints about its progress, read without a profiler: per-step durations
// (`iteration 3/ 1000 | elapsed time per iteration (ms): …`, `iter 100: … time 123ms`) become timed
// steps, a `datetime:` inside a message times its line, and an OOM message that a terminal wrapped
// over several lines is read whole.

#include "importerregistry.h"
#include "logparsetest.h"
#include "nccllog/logline.h"
#include "nccllog/logparser.h"
#include "nccllog/stepprogress.h"

#include <QDateTime>
#include <QFile>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace rs;

namespace {

constexpr double MiB = 1024.0 * 1024.0;
constexpr double GiB = 1024.0 * MiB;

SourceBuilder parse(const std::string &text)
{
    return test::parseLogText(text, "train.log");
}

TimeNs utc(const char *iso)
{
    return TimeNs(QDateTime::fromString(QString::fromLatin1(iso), Qt::ISODateWithMs).toMSecsSinceEpoch()) * 1000000;
}

std::vector<Step> stepsOf(const SourceBuilder &b, RankId rank)
{
    std::vector<Step> out;
    for (const Step &s : b.steps())
        if (s.track != kNoTrack && b.tracks()[s.track].rank == rank)
            out.push_back(s);
    std::sort(out.begin(), out.end(), [](const Step &x, const Step &y) { return x.number < y.number; });
    return out;
}

std::int64_t diagnostics(const SourceBuilder &b, const std::string &code)
{
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.code == code)
            return d.count;
    return 0;
}

// A 2.x OOM message as one line, to be cut at `width` columns the way a terminal wraps it.
const std::string kOom2x = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.23 GiB. GPU 0 has a total capacity of "
                           "79.15 GiB of which 120.00 MiB is free. Including non-PyTorch memory, this process has 79.03 GiB memory "
                           "in use. Of the allocated memory 76.40 GiB is allocated by PyTorch, and 1.62 GiB is reserved by PyTorch "
                           "but unallocated. If reserved but unallocated memory is large try setting "
                           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.";
const std::string kOom1x = "RuntimeError: CUDA out of memory. Tried to allocate 62.00 MiB (GPU 0; 15.90 GiB total capacity; 14.77 GiB "
                           "already allocated; 25.81 MiB free; 14.98 GiB reserved in total by PyTorch)";

std::string wrap(const std::string &s, std::size_t width)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); i += width)
        out += s.substr(i, width) + "\n";
    return out;
}

} // namespace

class TestLogProgress : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void progressWordings_data();
    void progressWordings();
    void labelledStamps_data();
    void labelledStamps();
    void untimedProgressContinuesFromDatetime();
    void timedProgressLinesEndTheirStep();
    void averagedProgressCoversTheInterval();
    void cumulativeTimeIsNotAStepTime();
    void progressWithoutClockIsWarned();
    void prefixedProgressStaysWithItsRank();
    void wrappedOom_data();
    void wrappedOom();
    void unfinishedOomKeepsTheLinesAfterIt();
    void bigscienceIterations();
};

void TestLogProgress::progressWordings_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<qint64>("step");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<double>("ms"); // -1: not a progress line
    QTest::newRow("megatron") << " iteration        3/    1000 | consumed samples:         3072 | elapsed time per iteration (ms): 124362.2 | "
                                 "learning rate: 0.000E+00 | global batch size:  1024 | loss scale: 1073741824.0 |"
                              << qint64(3) << qint64(1000) << 124362.2;
    QTest::newRow("nanogpt") << "iter 100: loss 4.2031, time 123.45ms, mfu 31.20%" << qint64(100) << qint64(-1) << 123.45;
    QTest::newRow("step_time seconds") << "step=250, loss=2.1, step_time=1.75s" << qint64(250) << qint64(-1) << 1750.0;
    QTest::newRow("label unit") << "Step 12/500 | time per step (s): 0.830 | lr 1e-4" << qint64(12) << qint64(500) << 830.0;
    QTest::newRow("iter time ms") << "[2024-05-12 10:31:07] global_step 42 iter time 512 ms" << qint64(42) << qint64(-1) << 512.0;
    QTest::newRow("minutes") << "iteration 7 | time per iteration: 2.5 min" << qint64(7) << qint64(-1) << 150000.0;
    QTest::newRow("no unit") << "step 5 | step_time 1.7" << qint64(-1) << qint64(-1) << -1.0;
    QTest::newRow("cumulative elapsed") << "step 5 | elapsed: 3600 s" << qint64(-1) << qint64(-1) << -1.0;
    QTest::newRow("data time only") << "step 5 | data_time: 0.12 s" << qint64(-1) << qint64(-1) << -1.0;
    QTest::newRow("eta") << "step 5/100 | eta 12 min" << qint64(-1) << qint64(-1) << -1.0;
    QTest::newRow("rate") << "step 5 | 1.53 it/s | time 2s/it" << qint64(-1) << qint64(-1) << -1.0;
    QTest::newRow("megatron timers") << "time (ms) | forward-compute: 29733.63 | backward-compute: 79549.00" << qint64(-1) << qint64(-1) << -1.0;
    QTest::newRow("no step") << "loading took 12.5 s" << qint64(-1) << qint64(-1) << -1.0;
}

void TestLogProgress::progressWordings()
{
    QFETCH(QString, line);
    QFETCH(qint64, step);
    QFETCH(qint64, total);
    QFETCH(double, ms);
    const auto r = StepProgress::parse(line.toStdString());
    if (ms < 0) {
        QVERIFY2(!r, qPrintable(QStringLiteral("read as step %1").arg(r ? r->step : 0)));
        return;
    }
    QVERIFY(r);
    QCOMPARE(r->step, step);
    QCOMPARE(r->total, total);
    QCOMPARE(r->durationNs, static_cast<TimeNs>(std::llround(ms * 1e6)));
}

void TestLogProgress::labelledStamps_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("iso"); // empty: no stamp
    QTest::newRow("megatron") << "[after dataloaders are built] datetime: 2021-05-27 21:42:48 " << "2021-05-27T21:42:48";
    QTest::newRow("timestamp=") << "event=start timestamp=2024-05-01T12:00:00.250 rank=3" << "2024-05-01T12:00:00.250";
    QTest::newRow("Time:") << "Checkpoint saved. Time: 2024-01-02 03:04:05" << "2024-01-02T03:04:05";
    QTest::newRow("unlabelled date") << "loading checkpoint run-2024-01-02 03:04:05.pt" << "";
    QTest::newRow("other label") << "started at: 2024-01-02 03:04:05" << "";
    QTest::newRow("bad date") << "datetime: 2024-13-45 03:04:05" << "";
}

void TestLogProgress::labelledStamps()
{
    QFETCH(QString, line);
    QFETCH(QString, iso);
    const auto t = logline::labelledStamp(line.toStdString(), "UTC");
    if (iso.isEmpty()) {
        QVERIFY(!t);
        return;
    }
    QVERIFY(t);
    QCOMPARE(*t, utc(iso.toLatin1().constData()));
}

void TestLogProgress::untimedProgressContinuesFromDatetime()
{
    // Two ranks named by their NCCL Init lines; Megatron's iteration lines name none: job-wide.
    const SourceBuilder b = parse("host-a:100:100 [0] NCCL INFO comm 0x55d0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
                                  "host-a:101:101 [1] NCCL INFO comm 0x55d1 rank 1 nranks 2 cudaDev 1 busId 2000 - Init COMPLETE\n"
                                  "[before the start of training step] datetime: 2024-03-01 10:00:00\n"
                                  " iteration        1/     100 | elapsed time per iteration (ms): 1500.0 | loss scale: 65536.0 |\n"
                                  " iteration        2/     100 | elapsed time per iteration (ms): 1200.0 | loss scale: 65536.0 |\n"
                                  " iteration        3/     100 | elapsed time per iteration (ms): 1250.5 | loss scale: 65536.0 |\n");
    QVERIFY(b.source().hasClock);
    for (RankId rank : {0, 1}) {
        const auto steps = stepsOf(b, rank);
        QCOMPARE(steps.size(), std::size_t(3));
        const TimeNs t0 = utc("2024-03-01T10:00:00");
        QCOMPARE(steps[0].number, 1);
        QCOMPARE(steps[0].range.begin, t0);
        QCOMPARE(steps[0].range.end, t0 + 1500000000);
        QCOMPARE(steps[1].range.begin, steps[0].range.end);
        QCOMPARE(steps[2].range.end, t0 + TimeNs(3950500000));
        QVERIFY(steps[0].fromLog);
        QCOMPARE(b.str(b.tracks()[steps[0].track].name), std::string_view("training loop (log, job-wide)"));
    }
    QCOMPARE(b.source().counts.steps, 3); // printed once, given to both ranks
}

void TestLogProgress::timedProgressLinesEndTheirStep()
{
    const SourceBuilder b = parse("2024-05-12 10:31:07,412 - INFO - step 5 | loss 2.2 | step_time 1.5s\n"
                                  "2024-05-12 10:31:09,000 - INFO - step 6 | loss 2.1 | step_time 1.6s\n");
    const auto steps = stepsOf(b, kNoRank);
    QCOMPARE(steps.size(), std::size_t(2));
    QCOMPARE(steps[0].range.end, utc("2024-05-12T10:31:07.412"));
    QCOMPARE(steps[0].range.begin, utc("2024-05-12T10:31:05.912"));
    QCOMPARE(steps[1].range.end, utc("2024-05-12T10:31:09.000"));
    QCOMPARE(diagnostics(b, "step-progress-untimed"), 0);
}

void TestLogProgress::averagedProgressCoversTheInterval()
{
    // Logged every 10 iterations: each line's average stands for the 10 since the previous one.
    const SourceBuilder b = parse("[x] datetime: 2024-03-01 10:00:00\n"
                                  " iteration       10/    1000 | elapsed time per iteration (ms): 100.0 |\n"
                                  " iteration       20/    1000 | elapsed time per iteration (ms): 200.0 |\n");
    const auto steps = stepsOf(b, kNoRank);
    QCOMPARE(steps.size(), std::size_t(2));
    QCOMPARE(steps[0].range.duration(), TimeNs(1000000000));
    QCOMPARE(steps[1].range.duration(), TimeNs(2000000000));
}

void TestLogProgress::cumulativeTimeIsNotAStepTime()
{
    const SourceBuilder b = parse("iter 1: loss 9.1, time 100ms\niter 2: loss 8.7, time 210ms\niter 3: loss 8.2, time 330ms\n"
                                  "iter 4: loss 8.0, time 445ms\n");
    QVERIFY(stepsOf(b, kNoRank).empty());
    QCOMPARE(diagnostics(b, "step-progress-cumulative"), 1);
    // Near miss: per-step times that go up and down are steps.
    const SourceBuilder ok = parse("iter 1: loss 9.1, time 100ms\niter 2: loss 8.7, time 120ms\niter 3: loss 8.2, time 110ms\n"
                                   "iter 4: loss 8.0, time 130ms\n");
    QCOMPARE(stepsOf(ok, kNoRank).size(), std::size_t(4));
}

void TestLogProgress::progressWithoutClockIsWarned()
{
    const SourceBuilder b = parse("iter 1: loss 9.1, time 100ms\niter 2: loss 8.7, time 120ms\n");
    const auto steps = stepsOf(b, kNoRank);
    QCOMPARE(steps.size(), std::size_t(2));
    QCOMPARE(steps[0].range.begin, TimeNs(0));
    QCOMPARE(steps[1].range.begin, TimeNs(100000000));
    QCOMPARE(diagnostics(b, "step-progress-untimed"), 1);
    QVERIFY(!b.source().hasClock);
}

void TestLogProgress::prefixedProgressStaysWithItsRank()
{
    const SourceBuilder b = parse("[rank0]:2024-05-12 10:31:07,000 step 5 | step_time 1.0s\n"
                                  "[rank1]:2024-05-12 10:31:07,500 step 5 | step_time 1.5s\n");
    const auto r0 = stepsOf(b, 0), r1 = stepsOf(b, 1);
    QCOMPARE(r0.size(), std::size_t(1));
    QCOMPARE(r1.size(), std::size_t(1));
    QCOMPARE(r0[0].range.duration(), TimeNs(1000000000));
    QCOMPARE(r1[0].range.duration(), TimeNs(1500000000));
    QCOMPARE(b.str(b.tracks()[r0[0].track].name), std::string_view("training loop (log)"));
}

void TestLogProgress::wrappedOom_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("lines");
    QTest::addColumn<double>("requested");
    QTest::addColumn<double>("capacity");
    QTest::addColumn<double>("free");
    QTest::addColumn<double>("allocated");
    QTest::newRow("2.x one line") << QString::fromStdString(kOom2x + "\n") << 1 << 5.23 * GiB << 79.15 * GiB << 120.0 * MiB << 76.40 * GiB;
    QTest::newRow("2.x at 80 columns") << QString::fromStdString(wrap(kOom2x, 80)) << 6 << 5.23 * GiB << 79.15 * GiB << 120.0 * MiB
                                       << 76.40 * GiB;
    QTest::newRow("2.x at 120 columns") << QString::fromStdString(wrap(kOom2x, 120)) << 4 << 5.23 * GiB << 79.15 * GiB << 120.0 * MiB
                                        << 76.40 * GiB;
    QTest::newRow("1.x at 64 columns") << QString::fromStdString(wrap(kOom1x, 64)) << 3 << 62.0 * MiB << 15.90 * GiB << 25.81 * MiB
                                       << 14.77 * GiB;
    QTest::newRow("2.x at 100, prefixed by rank")
        << QString::fromStdString([] {
               std::string out;
               const std::string w = wrap(kOom2x, 100);
               std::istringstream in(w);
               std::string l;
               while (std::getline(in, l))
                   out += "[rank3]:" + l + "\n";
               return out;
           }())
        << 5 << 5.23 * GiB << 79.15 * GiB << 120.0 * MiB << 76.40 * GiB;
}

void TestLogProgress::wrappedOom()
{
    QFETCH(QString, text);
    QFETCH(int, lines);
    QFETCH(double, requested);
    QFETCH(double, capacity);
    QFETCH(double, free);
    QFETCH(double, allocated);
    const SourceBuilder b = parse(text.toStdString() + "next line of the job\n");
    QCOMPARE(b.ooms().size(), std::size_t(1));
    const OomEvent &o = b.ooms().front();
    auto near = [](std::int64_t v, double want) { return std::fabs(double(v) - want) <= want * 0.001 + 1; };
    QVERIFY2(near(o.requested, requested), qPrintable(QString::number(o.requested)));
    QVERIFY2(near(o.capacity, capacity), qPrintable(QString::number(o.capacity)));
    QVERIFY2(near(o.free, free), qPrintable(QString::number(o.free)));
    QVERIFY2(near(o.allocated, allocated), qPrintable(QString::number(o.allocated)));
    QCOMPARE(o.line, 1);
    QCOMPARE(diagnostics(b, "wrapped-line-joined"), lines > 1 ? 1 : 0);
    // The line after the message is still a record of its own.
    QCOMPARE(std::string(b.logs().text(b.logs().records.back())), std::string("next line of the job"));
    QCOMPARE(b.logs().records.back().line, lines + 1);
}

void TestLogProgress::unfinishedOomKeepsTheLinesAfterIt()
{
    // A message cut for good (the process died mid-write): the lines after it are not swallowed.
    const SourceBuilder b = parse("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.90 GiB total capa\n"
                                  "loss 2.3 at step 10\n"
                                  "saving checkpoint\n"
                                  "Traceback (most recent call last):\n");
    QCOMPARE(b.ooms().size(), std::size_t(1));
    QCOMPARE(b.ooms().front().requested, std::int64_t(2LL << 30));
    QCOMPARE(diagnostics(b, "wrapped-line-joined"), 0);
    std::vector<std::string> texts;
    for (const LogRecord &r : b.logs().records)
        texts.push_back(std::string(b.logs().text(r)));
    QVERIFY(std::find(texts.begin(), texts.end(), "loss 2.3 at step 10") != texts.end());
    QVERIFY(std::find(texts.begin(), texts.end(), "saving checkpoint") != texts.end());
}

void TestLogProgress::bigscienceIterations()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/joblog/bigscience_jeanzay_slurm_16node_64gpu_megatron_timelimit.out");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    ctx.timeZone = "UTC";
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    // SOURCES.md: training starts at `datetime: 2021-05-27 21:42:48`; 4 iterations at 150891.7,
    // 123896.3, 124362.2 and 122224.0 ms; the job is cancelled at 21:52:36.
    const double ms[] = {150891.7, 123896.3, 124362.2, 122224.0};
    for (RankId rank : {0, 37, 63}) {
        const auto steps = stepsOf(b, rank);
        QCOMPARE(steps.size(), std::size_t(4));
        QCOMPARE(steps[0].range.begin, utc("2021-05-27T21:42:48"));
        for (int i = 0; i < 4; ++i) {
            QCOMPARE(steps[std::size_t(i)].number, i + 1);
            QCOMPARE(steps[std::size_t(i)].range.duration(), static_cast<TimeNs>(std::llround(ms[i] * 1e6)));
        }
        QVERIFY(steps[3].range.end < utc("2021-05-27T21:52:36"));
    }
    // Records with a `datetime:` are timed.
    bool timed = false;
    for (const LogRecord &r : b.logs().records)
        timed = timed || (r.line == 6581 && r.time == utc("2021-05-27T21:42:48"));
    QVERIFY(timed);
}

QTEST_GUILESS_MAIN(TestLogProgress)
#include "test_logprogress.moc"
