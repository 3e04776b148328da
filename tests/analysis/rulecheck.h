#pragma once
// The data-driven check shared by the finding-rule tests: a scenario (a function that builds a
// session) and what one rule must say about it: nothing (a near miss), or exactly one finding with
// this severity, these ranks, this time and a fix that names the exact setting.

#include "sessionfixture.h"

#include <QTest>

#include <functional>
#include <map>

namespace rs::test {

using Scenario = std::function<SessionPtr()>;

/// Columns: scenario, id, severity (-1: no finding of `id`), ranks, time (-1: none), fix needle,
/// title needle.
inline void addRuleColumns()
{
    QTest::addColumn<QString>("scenario");
    QTest::addColumn<QString>("id");
    QTest::addColumn<int>("severity");
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<qint64>("time");
    QTest::addColumn<QString>("fix");
    QTest::addColumn<QString>("title");
}

inline void expectFinding(const char *row, const char *scenario, const char *id, Severity severity, QList<int> ranks,
                          qint64 time, const char *fix, const char *title = "")
{
    QTest::newRow(row) << QString::fromLatin1(scenario) << QString::fromLatin1(id) << int(severity) << ranks << time
                       << QString::fromUtf8(fix) << QString::fromUtf8(title);
}

inline void expectNothing(const char *row, const char *scenario, const char *id)
{
    QTest::newRow(row) << QString::fromLatin1(scenario) << QString::fromLatin1(id) << -1 << QList<int>{} << qint64(-1)
                       << QString() << QString();
}

/// Runs the scenario and checks the current row.
inline void checkRule(const std::map<QString, Scenario> &scenarios)
{
    QFETCH(QString, scenario);
    QFETCH(QString, id);
    QFETCH(int, severity);
    QFETCH(QList<int>, ranks);
    QFETCH(qint64, time);
    QFETCH(QString, fix);
    QFETCH(QString, title);
    const auto it = scenarios.find(scenario);
    QVERIFY2(it != scenarios.end(), qPrintable(scenario));
    const SessionPtr session = it->second();
    const AnalysisResult r = Analyzer::run(*session);
    const auto found = findingsOf(r, id.toStdString());
    if (severity < 0) {
        QVERIFY2(found.empty(), describe(r).c_str());
        return;
    }
    QVERIFY2(found.size() == 1, describe(r).c_str());
    const Finding &f = *found.front();
    QCOMPARE(QString::fromLatin1(severityName(f.severity)), QString::fromLatin1(severityName(Severity(severity))));
    QCOMPARE(QList<int>(f.ranks.begin(), f.ranks.end()), ranks);
    if (time < 0)
        QVERIFY2(!f.timeNs, qPrintable(QString::number(f.timeNs.value_or(0))));
    else
        QCOMPARE(qint64(f.timeNs.value_or(-1)), time);
    QVERIFY2(qs(f.fix).contains(fix), f.fix.c_str());
    QVERIFY2(qs(f.title).contains(title), f.title.c_str());
    QVERIFY(!f.evidence.empty());
    for (const Evidence &e : f.evidence)
        QVERIFY2(!e.text.empty(), "empty evidence line");
}

} // namespace rs::test
