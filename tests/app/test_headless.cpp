// `rankscope export` as CI scripts and ssh sessions run it: the real executable, in an environment
// with no display at all (no DISPLAY, WAYLAND_DISPLAY or QT_QPA_PLATFORM). It must pick a headless
// platform itself, write the figure and say nothing on stderr but the contract's lines.

#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <QTest>

class TestHeadless : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void exportWithoutDisplay_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("png") << QStringLiteral("incident.png");
        QTest::newRow("svg") << QStringLiteral("incident.svg");
        QTest::newRow("pdf") << QStringLiteral("incident.pdf");
    }
    void exportWithoutDisplay()
    {
        QFETCH(QString, file);
        QTemporaryDir dir;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *var : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XDG_RUNTIME_DIR"})
            env.remove(QString::fromLatin1(var));
        QProcess p;
        p.setProcessEnvironment(env);
        const QString out = dir.filePath(file);
        p.start(QStringLiteral(RANKSCOPE_EXECUTABLE),
                {QStringLiteral("export"), QStringLiteral("--time-zone"), QStringLiteral("UTC"), QStringLiteral("--output"), out,
                 QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo/rank-2.pt.trace.json.gz"),
                 QStringLiteral(RANKSCOPE_SOURCE_DIR "/resources/demo/torchrun.log")});
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromLocal8Bit(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.trimmed().isEmpty(), qPrintable(err)); // no Qt platform chatter
        QCOMPARE(QString::fromLocal8Bit(p.readAllStandardOutput()).trimmed(), out);
        QVERIFY(QFileInfo(out).size() > 10000);
        if (file.endsWith(QLatin1String(".png")))
            QCOMPARE(QImage(out).width(), 1600);
    }
};

QTEST_GUILESS_MAIN(TestHeadless)
#include "test_headless.moc"
