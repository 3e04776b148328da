// Import log models: one row per source with typed roles, diagnostics per source, sorting and
// filtering through QSortFilterProxyModel, all checked by QAbstractItemModelTester.

#include "testsession.h"

#include "models/diagnosticsmodel.h"
#include "models/importlogmodel.h"
#include "panels/importlogpanel.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QLocale>
#include <QTest>

using namespace rs;
using namespace rs::test;

class TestImportLog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    void sourcesModel();
    void ranksAndCountsText_data();
    void ranksAndCountsText();
    void diagnosticsModel();
    void panelFiltersAndFollowsSelection();
};

void TestImportLog::sourcesModel()
{
    ImportLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    const TestSession t = makeTestSession();
    model.setSession(t.session);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(ImportLogModel::ColumnCount));

    auto cell = [&](int row, int col, int role = Qt::DisplayRole) { return model.index(row, col).data(role); };
    QCOMPARE(cell(0, ImportLogModel::FileColumn).toString(), QString("rank0.pt.trace.json"));
    QCOMPARE(cell(0, ImportLogModel::FileColumn, Qt::ToolTipRole).toString(), QString("/traces/job/rank0.pt.trace.json"));
    QCOMPARE(cell(0, ImportLogModel::FormatColumn).toString(), QString("pytorch-trace"));
    QCOMPARE(cell(1, ImportLogModel::CompressionColumn).toString(), QString("gzip"));
    QCOMPARE(cell(0, ImportLogModel::RanksColumn).toString(), QString("0 (content)"));
    QCOMPARE(cell(0, ImportLogModel::CountsColumn).toString(), QString("6 spans · 4 memory events · 1 steps"));
    QCOMPARE(cell(0, ImportLogModel::StatusColumn).toString(), QString("OK"));
    QCOMPARE(cell(1, ImportLogModel::StatusColumn).toString(), QString("1 error · 1 warning"));
    QCOMPARE(cell(2, ImportLogModel::FormatColumn).toString(), QString("unrecognised"));
    QCOMPARE(cell(2, ImportLogModel::StatusColumn).toString(), QString("not recognised · 1 error"));
    QCOMPARE(cell(2, ImportLogModel::RanksColumn).toString(), QString("none"));

    // Typed roles.
    QCOMPARE(cell(1, ImportLogModel::FileColumn, ImportLogModel::SourceIdRole).toUInt(), 1u);
    QCOMPARE(cell(1, ImportLogModel::StatusColumn, ImportLogModel::StatusRole).toInt(), int(ImportLogModel::Errors));
    QCOMPARE(cell(0, ImportLogModel::StatusColumn, ImportLogModel::StatusRole).toInt(), int(ImportLogModel::Ok));
    QCOMPARE(cell(2, ImportLogModel::StatusColumn, ImportLogModel::StatusRole).toInt(), int(ImportLogModel::Unrecognised));
    QCOMPARE(cell(1, 0, ImportLogModel::ErrorCountRole).toInt(), 1);
    QCOMPARE(cell(1, 0, ImportLogModel::WarningCountRole).toInt(), 1);
    QCOMPARE(cell(1, 0, ImportLogModel::PathRole).toString(), QString("/traces/job/rank1.pt.trace.json.gz"));
    QCOMPARE(cell(0, ImportLogModel::CountsColumn, ImportLogModel::SortRole).toLongLong(), 11);
    QVERIFY(cell(1, ImportLogModel::StatusColumn, Qt::DecorationRole).canConvert<QColor>());

    // Sorting goes through SortRole: by status, the unrecognised file comes last.
    QSortFilterProxyModel proxy;
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setSortRole(ImportLogModel::SortRole);
    proxy.sort(ImportLogModel::StatusColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, ImportLogModel::FileColumn).data().toString(), QString("notes.txt"));
    QCOMPARE(proxy.index(2, ImportLogModel::FileColumn).data().toString(), QString("rank0.pt.trace.json"));

    model.setSession(nullptr);
    QCOMPARE(model.rowCount(), 0);
}

void TestImportLog::ranksAndCountsText_data()
{
    QTest::addColumn<QList<int>>("ranks");
    QTest::addColumn<QString>("expected");
    QTest::newRow("one") << QList<int>{2} << "2 (file-name)";
    QTest::newRow("run and single") << QList<int>{5, 0, 1, 2, 3} << "0–3, 5 (file-name)";
    QTest::newRow("two runs") << QList<int>{0, 1, 4, 5, 6} << "0–1, 4–6 (file-name)";
}

void TestImportLog::ranksAndCountsText()
{
    QFETCH(QList<int>, ranks);
    QFETCH(QString, expected);
    Source s;
    s.ranks.assign(ranks.begin(), ranks.end());
    s.rankOrigin = RankOrigin::FileName;
    QCOMPARE(ImportLogModel::ranksText(s), expected);

    SourceCounts c;
    QCOMPARE(ImportLogModel::countsText(c), QString("nothing read"));
    c.spans = 1234;
    c.steps = 3;
    c.collectives = 2;
    c.logLines = 9;
    QCOMPARE(ImportLogModel::countsText(c), QString("1,234 spans · 3 steps · 2 collectives · 9 log lines"));
    QCOMPARE(ImportLogModel::countsText(c, 2), QString("1,234 spans · 3 steps · …"));
}

void TestImportLog::diagnosticsModel()
{
    DiagnosticsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const TestSession t = makeTestSession();
    model.setSession(t.session);
    QCOMPARE(model.rowCount(), 3);
    auto cell = [&](int row, int col, int role = Qt::DisplayRole) { return model.index(row, col).data(role); };
    QCOMPARE(cell(0, DiagnosticsModel::SeverityColumn).toString(), QString("warning"));
    QCOMPARE(cell(0, DiagnosticsModel::FileColumn).toString(), QString("rank1.pt.trace.json.gz"));
    QCOMPARE(cell(0, DiagnosticsModel::LineColumn).toLongLong(), 12);
    QCOMPARE(cell(0, DiagnosticsModel::OffsetColumn).toString(), QString());
    QCOMPARE(cell(0, DiagnosticsModel::MessageColumn).toString(), QString("unknown phase 'Q' ignored"));
    QCOMPARE(cell(1, DiagnosticsModel::OffsetColumn).toLongLong(), 345);
    QCOMPARE(cell(1, 0, DiagnosticsModel::SeverityRole).toInt(), int(Diagnostic::Severity::Error));
    QCOMPARE(cell(1, 0, DiagnosticsModel::LineRole).toLongLong(), -1);
    QCOMPARE(cell(2, 0, DiagnosticsModel::SourceIdRole).toUInt(), 2u);

    model.setSourceFilter(1);
    QCOMPARE(model.rowCount(), 2);
    model.setSourceFilter(0);
    QCOMPARE(model.rowCount(), 0);
    model.setSourceFilter(std::nullopt);
    QCOMPARE(model.rowCount(), 3);

    QSortFilterProxyModel proxy;
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.setFilterKeyColumn(-1);
    proxy.setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy.setFilterFixedString("RECOGNISED");
    QCOMPARE(proxy.rowCount(), 1);
    QCOMPARE(proxy.index(0, DiagnosticsModel::FileColumn).data().toString(), QString("notes.txt"));
}

void TestImportLog::panelFiltersAndFollowsSelection()
{
    ImportLogPanel panel;
    QAbstractItemModelTester tester(panel.sourcesProxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const TestSession t = makeTestSession();
    panel.setSession(t.session);
    panel.show();
    QCOMPARE(panel.sourcesProxy()->rowCount(), 3);
    QCOMPARE(panel.diagnosticsProxy()->rowCount(), 3);

    // Selecting a source shows only its diagnostics.
    panel.sourcesView()->selectRow(1);
    QCOMPARE(panel.diagnosticsModel()->sourceFilter(), std::optional<SourceId>(1));
    QCOMPARE(panel.diagnosticsProxy()->rowCount(), 2);
    panel.sourcesView()->clearSelection();
    QCOMPARE(panel.diagnosticsProxy()->rowCount(), 3);

    // The filter text applies to both tables.
    panel.setFilterText("gzip");
    QCOMPARE(panel.sourcesProxy()->rowCount(), 1);
    panel.setFilterText("phase");
    QCOMPARE(panel.sourcesProxy()->rowCount(), 0);
    QCOMPARE(panel.diagnosticsProxy()->rowCount(), 1);
    panel.setFilterText(QString());
    QCOMPARE(panel.sourcesProxy()->rowCount(), 3);
}

QTEST_MAIN(TestImportLog)
#include "test_importlog.moc"
