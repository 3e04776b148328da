// Golden files (Perfetto's diff tests): for every real sample under ../shared/samples/ the output of
// `inspect --json` and `analyze --json` is kept under tests/goldens/samples/, so a change in what any
// real file yields shows up in review. On a mismatch the new output is written beside the golden as
// `<golden>.actual` and a unified diff is printed. RANKSCOPE_UPDATE_GOLDENS=1 rewrites the goldens.
//
// Every sample is read from the samples folder with a relative path and in UTC, so the output holds
// no machine-specific path or time zone. Folders of several files are also analysed as one incident
// (the multi-rank sets), since alignment and divergence only exist across ranks.

#include "clirunner.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QTest>

#include <map>

using namespace rs;
using namespace rs::test;

namespace {

const QString kSamples = QStringLiteral(RANKSCOPE_SAMPLES_DIR);
const QString kGoldens = QStringLiteral(RANKSCOPE_SOURCE_DIR "/tests/goldens/samples");

bool updating()
{
    return qEnvironmentVariableIntValue("RANKSCOPE_UPDATE_GOLDENS") != 0;
}

// Sample inputs (relative paths) and the folders that hold more than one of them.
struct SampleSet {
    QStringList files;
    QStringList folders;
};

SampleSet samples()
{
    SampleSet s;
    const QDir root(kSamples);
    std::map<QString, int> perFolder;
    QDirIterator it(kSamples, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString rel = root.relativeFilePath(path);
        if (!rel.contains(QLatin1Char('/')) || QFileInfo(path).fileName().startsWith(QLatin1Char('.')))
            continue; // SOURCES.md and other top-level notes are not inputs
        s.files << rel;
        ++perFolder[QFileInfo(rel).path()];
    }
    s.files.sort();
    for (const auto &[folder, n] : perFolder)
        if (n > 1)
            s.folders << folder;
    return s;
}

QString readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

bool writeAll(const QString &path, const QByteArray &bytes)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return false;
    return f.write(bytes) == bytes.size();
}

QString unifiedDiff(const QString &golden, const QString &actual)
{
    QProcess diff;
    diff.start(QStringLiteral("diff"), {QStringLiteral("-u"), golden, actual});
    if (!diff.waitForFinished(30000))
        return QStringLiteral("(diff did not run; compare the files by hand)");
    QStringList lines = QString::fromUtf8(diff.readAllStandardOutput()).split(QLatin1Char('\n'));
    if (lines.size() > 120) {
        const qsizetype more = lines.size() - 120;
        lines = lines.mid(0, 120);
        lines << QStringLiteral("… %1 more diff lines").arg(more);
    }
    return lines.join(QLatin1Char('\n'));
}

// Runs `command --json --time-zone UTC input` in the samples folder and compares with the golden.
void check(const QString &command, const QString &input, const QString &goldenName)
{
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(kSamples));
    const CliResult r = runCli({command, QStringLiteral("--json"), QStringLiteral("--time-zone"), QStringLiteral("UTC"), input});
    QDir::setCurrent(cwd);
    // Exit statuses 0 and 1 (some sources had errors) both print the document; 2 prints none.
    QVERIFY2(r.status == 0 || r.status == 1, qPrintable(QString::fromStdString(r.err)));
    const QByteArray actual = QByteArray::fromStdString(r.out);
    const QString golden = kGoldens + QLatin1Char('/') + goldenName;
    if (updating()) {
        QVERIFY2(writeAll(golden, actual), qPrintable(golden));
        QFile::remove(golden + QStringLiteral(".actual"));
        return;
    }
    const QString expected = readAll(golden);
    if (expected.toUtf8() == actual) {
        QFile::remove(golden + QStringLiteral(".actual"));
        return;
    }
    QVERIFY2(writeAll(golden + QStringLiteral(".actual"), actual), qPrintable(golden));
    if (expected.isEmpty() && !QFileInfo::exists(golden))
        QFAIL(qPrintable(QStringLiteral("no golden %1; the output is in %1.actual (RANKSCOPE_UPDATE_GOLDENS=1 writes it)")
                             .arg(golden)));
    QFAIL(qPrintable(QStringLiteral("%1 %2 differs from %3 (new output in .actual; RANKSCOPE_UPDATE_GOLDENS=1 accepts it):\n%4")
                         .arg(command, input, golden, unifiedDiff(golden, golden + QStringLiteral(".actual")))));
}

} // namespace

class TestGoldens : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo(kSamples).isDir())
            QSKIP("../shared/samples is not here");
    }

    void sample_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("golden");
        const SampleSet s = samples();
        for (const QString &f : s.files)
            for (const char *command : {"inspect", "analyze"})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(QLatin1String(command), f)))
                    << QString::fromLatin1(command) << f << QStringLiteral("%1.%2.json").arg(f, QLatin1String(command));
        for (const QString &d : s.folders)
            QTest::newRow(qPrintable(QStringLiteral("analyze %1/").arg(d)))
                << QStringLiteral("analyze") << d << QStringLiteral("%1/folder.analyze.json").arg(d);
    }
    void sample()
    {
        QFETCH(QString, command);
        QFETCH(QString, input);
        QFETCH(QString, golden);
        check(command, input, golden);
    }

    // Every golden belongs to a sample that still exists: a renamed or removed sample leaves none behind.
    void noOrphanGoldens()
    {
        if (updating())
            QSKIP("goldens are being rewritten");
        const SampleSet s = samples();
        QStringList expected;
        for (const QString &f : s.files)
            expected << f + QStringLiteral(".inspect.json") << f + QStringLiteral(".analyze.json");
        for (const QString &d : s.folders)
            expected << d + QStringLiteral("/folder.analyze.json");
        QDirIterator it(kGoldens, {QStringLiteral("*.json")}, QDir::Files, QDirIterator::Subdirectories);
        const QDir root(kGoldens);
        while (it.hasNext()) {
            const QString rel = root.relativeFilePath(it.next());
            QVERIFY2(expected.contains(rel), qPrintable(QStringLiteral("golden without a sample: ") + rel));
        }
    }
};

QTEST_GUILESS_MAIN(TestGoldens)
#include "test_goldens.moc"
