// The log table: every record in source order with typed roles, "—" for untimed records, times
// relative to the view's origin, and the filters (rank incl. the job's agent, minimum level with
// OOMs counted as errors, kind, text) under QAbstractItemModelTester. The panel follows the
// selected rank and the selected record, and jumps the timeline to a record.

#include "evidencesession.h"

#include "models/logfiltermodel.h"
#include "models/logmodel.h"
#include "panels/logpanel.h"
#include "viewstate.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QStyleOptionComboBox>
#include <QApplication>
#include <QTest>

using namespace rs;
using namespace rs::test;

namespace {

std::vector<std::uint32_t> recordsShown(const QAbstractItemModel &m)
{
    std::vector<std::uint32_t> out;
    for (int r = 0; r < m.rowCount(); ++r)
        out.push_back(m.index(r, 0).data(LogModel::RecordIndexRole).toUInt());
    return out;
}

using Records = std::vector<std::uint32_t>;

} // namespace

class TestLogModel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void init();
    void cleanup();
    void rowsAndRoles();
    void timesFollowTheViewState();
    void filterByRank();
    void filterByLevelCountsOomAsError();
    void filterByKindAndText();
    void filtersCombineAndReset();
    void sortingByTimePutsUntimedFirst();
    void panelFollowsSelectedRankAndSelection();
    void panelSelectsAndJumps();
    void panelEmptyState();

private:
    EvidenceSession m_e;
    ViewState *m_state = nullptr;
    LogModel *m_model = nullptr;
    LogFilterModel *m_proxy = nullptr;
    QAbstractItemModelTester *m_modelTester = nullptr;
    QAbstractItemModelTester *m_proxyTester = nullptr;
};

void TestLogModel::init()
{
    m_e = makeEvidenceSession();
    m_state = new ViewState;
    m_state->setFullRange({kEvBase, kEvBase + 10000});
    m_model = new LogModel;
    m_proxy = new LogFilterModel;
    m_proxy->setSourceModel(m_model);
    m_modelTester = new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_proxyTester = new QAbstractItemModelTester(m_proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m_model->setViewState(m_state);
    m_model->setSession(m_e.session);
}

void TestLogModel::cleanup()
{
    delete m_proxyTester;
    delete m_modelTester;
    delete m_proxy;
    delete m_model;
    delete m_state;
}

void TestLogModel::rowsAndRoles()
{
    QCOMPARE(m_model->rowCount(), int(RecordCount));
    QCOMPARE(m_model->columnCount(), int(LogModel::ColumnCount));
    const QModelIndex warn = m_model->index(RecR0Warn, LogModel::MessageColumn);
    QCOMPARE(warn.data(LogModel::RecordIndexRole).toUInt(), uint(RecR0Warn));
    QCOMPARE(warn.data(LogModel::RankRole).toInt(), 0);
    QCOMPARE(warn.data(LogModel::LevelRole).toInt(), int(LogLevel::Warning));
    QCOMPARE(warn.data(LogModel::KindRole).toInt(), int(LogKind::Nccl));
    QCOMPARE(warn.data(LogModel::LineRole).toLongLong(), 5LL);
    QCOMPARE(warn.data(LogModel::TimeRole).toLongLong(), kEvBase + 3000);
    QCOMPARE(warn.data(LogModel::SourceRole).toString(), QStringLiteral("/incident/job.log"));
    QVERIFY(warn.data(LogModel::TextRole).toString().contains(QLatin1String("Got completion with error")));
    QCOMPARE(warn.data(Qt::DisplayRole).toString(), warn.data(LogModel::TextRole).toString());
    QCOMPARE(m_model->index(RecR0Warn, LogModel::SourceColumn).data().toString(), QStringLiteral("job.log:5"));
    QCOMPARE(m_model->index(RecR0Warn, LogModel::LevelColumn).data().toString(), QStringLiteral("WARN"));
    // Job-level records say so; an OOM reads as OOM in the level column but keeps its level role.
    QCOMPARE(m_model->index(RecJobStart, LogModel::RankColumn).data().toString(), QStringLiteral("job"));
    QCOMPARE(m_model->index(RecJobStart, 0).data(LogModel::RankRole).toInt(), int(kJobLevel));
    QCOMPARE(m_model->index(RecR1Oom, LogModel::LevelColumn).data().toString(), QStringLiteral("OOM"));
    QCOMPARE(m_model->index(RecR1Oom, 0).data(LogModel::LevelRole).toInt(), int(LogLevel::Error));
    // Untimed: "—" and no time role.
    const QModelIndex untimed = m_model->index(RecR0Untimed, LogModel::TimeColumn);
    QCOMPARE(untimed.data().toString(), QStringLiteral("—"));
    QVERIFY(!untimed.data(LogModel::TimeRole).isValid());
    // INFO dimmed, WARN and ERROR in their own colours.
    const QColor info = m_model->index(RecR0Info1, LogModel::MessageColumn).data(Qt::ForegroundRole).value<QColor>();
    const QColor warnColor = warn.data(Qt::ForegroundRole).value<QColor>();
    const QColor error = m_model->index(RecR1Error, LogModel::MessageColumn).data(Qt::ForegroundRole).value<QColor>();
    QVERIFY(info != warnColor && warnColor != error && info != error);
    QVERIFY(info.lightness() > error.lightness());
    QVERIFY(!m_model->index(RecR0Info1, 0).data(Qt::BackgroundRole).isValid());
    QVERIFY(m_model->index(RecR1Error, 0).data(Qt::BackgroundRole).isValid());
}

void TestLogModel::timesFollowTheViewState()
{
    const QModelIndex warn = m_model->index(RecR0Warn, LogModel::TimeColumn);
    QCOMPARE(warn.data().toString(), QStringLiteral("3 µs"));
    QSignalSpy changed(m_model, &QAbstractItemModel::dataChanged);
    m_state->setClockOffsets({{0, 2000}});
    m_model->refreshTimes();
    QVERIFY(!changed.isEmpty());
    QCOMPARE(warn.data().toString(), QStringLiteral("5 µs"));
    // Other ranks are not shifted.
    QCOMPARE(m_model->index(RecR1Info, LogModel::TimeColumn).data().toString(), QStringLiteral("2 µs"));
}

void TestLogModel::filterByRank()
{
    m_proxy->setRankFilter(1);
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR1Info, RecR1Info2, RecR1Error, RecR1Oom}));
    m_proxy->setRankFilter(kJobLevel);
    QCOMPARE(recordsShown(*m_proxy), (Records{RecJobStart, RecJobFailed}));
    m_proxy->setRankFilter(7);
    QCOMPARE(m_proxy->rowCount(), 0);
    m_proxy->setRankFilter(std::nullopt);
    QCOMPARE(m_proxy->rowCount(), int(RecordCount));
}

void TestLogModel::filterByLevelCountsOomAsError()
{
    m_proxy->setMinimumLevel(LogLevel::Warning);
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR0Warn, RecR1Error, RecR1Oom, RecJobFailed}));
    m_proxy->setMinimumLevel(LogLevel::Error);
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR1Error, RecR1Oom, RecJobFailed}));
}

void TestLogModel::filterByKindAndText()
{
    m_proxy->setKindFilter(LogKind::Nccl);
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR0Info1, RecR0Untimed, RecR0Warn}));
    m_proxy->setKindFilter(std::nullopt);
    m_proxy->setTextFilter(QStringLiteral("out of MEMORY"));
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR1Oom}));
    // The file name matches too.
    m_proxy->setTextFilter(QStringLiteral("job.log"));
    QCOMPARE(m_proxy->rowCount(), int(RecordCount));
    QCOMPARE(m_proxy->indexOfRecord(RecR0Warn).row(), int(RecR0Warn));
}

void TestLogModel::filtersCombineAndReset()
{
    m_proxy->setRankFilter(0);
    m_proxy->setMinimumLevel(LogLevel::Warning);
    m_proxy->setTextFilter(QStringLiteral("completion"));
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR0Warn}));
    QVERIFY(!m_proxy->indexOfRecord(RecR1Oom).isValid());
    // A new session keeps the filters and the tester sees a clean reset.
    m_model->setSession(makeEvidenceSession().session);
    QCOMPARE(recordsShown(*m_proxy), (Records{RecR0Warn}));
    m_model->setSession(nullptr);
    QCOMPARE(m_proxy->rowCount(), 0);
}

void TestLogModel::sortingByTimePutsUntimedFirst()
{
    m_proxy->sort(LogModel::TimeColumn, Qt::AscendingOrder);
    QCOMPARE(m_proxy->index(0, 0).data(LogModel::RecordIndexRole).toUInt(), uint(RecR0Untimed));
    m_proxy->sort(LogModel::TimeColumn, Qt::DescendingOrder);
    QCOMPARE(m_proxy->index(0, 0).data(LogModel::RecordIndexRole).toUInt(), uint(RecJobFailed));
}

void TestLogModel::panelFollowsSelectedRankAndSelection()
{
    LogPanel panel(m_state);
    panel.setSession(m_e.session);
    panel.resize(900, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    // Entries: all, the job, every rank of the session or the log.
    QCOMPARE(panel.rankCombo()->count(), 5);
    QCOMPARE(panel.rankCombo()->itemData(1).toInt(), int(kJobLevel));
    // Wide enough for its longest entry, even when the dock is narrow: no "Job (torc…".
    for (const int width : {900, 320}) {
        panel.resize(width, 300);
        QApplication::processEvents();
        QComboBox *combo = panel.rankCombo();
        QStyleOptionComboBox opt;
        opt.initFrom(combo);
        for (int i = 0; i < combo->count(); ++i) {
            const int text = combo->fontMetrics().horizontalAdvance(combo->itemText(i));
            const int icon = combo->itemIcon(i).isNull() ? 0 : combo->iconSize().width() + 4;
            const QRect field = combo->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, combo);
            QVERIFY2(field.width() >= text + icon,
                     qPrintable(QStringLiteral("%1 px wide panel: \"%2\" needs %3 px, the field has %4")
                                    .arg(width).arg(combo->itemText(i)).arg(text + icon).arg(field.width())));
        }
    }
    panel.resize(900, 300);

    m_state->setSelectedRank(1);
    QCOMPARE(panel.rankCombo()->currentData().toInt(), 1);
    QCOMPARE(panel.proxy()->rankFilter(), std::optional<RankId>(1));
    QCOMPARE(panel.proxy()->rowCount(), 4);
    // A record of another rank picked on the timeline switches the rank filter to show it.
    m_state->setSelection(EventRef::logRecord(RecR0Warn));
    QCOMPARE(panel.proxy()->rankFilter(), std::optional<RankId>(0));
    QCOMPARE(panel.view()->currentIndex().data(LogModel::RecordIndexRole).toUInt(), uint(RecR0Warn));
    m_state->clearSelectedRank();
    QCOMPARE(panel.proxy()->rankFilter(), std::nullopt);

    // A record selected elsewhere (a marker on the timeline) becomes the current row.
    m_state->setSelection(EventRef::logRecord(RecR1Error));
    QCOMPARE(panel.view()->currentIndex().data(LogModel::RecordIndexRole).toUInt(), uint(RecR1Error));
    // Changing the level keeps it selected when it survives the filter.
    panel.levelCombo()->setCurrentIndex(2); // errors only
    QCOMPARE(panel.proxy()->rowCount(), 3);
    QCOMPARE(panel.view()->currentIndex().data(LogModel::RecordIndexRole).toUInt(), uint(RecR1Error));
    panel.textFilter()->setText(QStringLiteral("ChildFailed"));
    QCOMPARE(panel.proxy()->rowCount(), 1);
}

void TestLogModel::panelSelectsAndJumps()
{
    m_state->setFullRange({kEvBase - 10'000'000'000LL, kEvBase + 10'000'000'000LL});
    LogPanel panel(m_state);
    panel.setSession(m_e.session);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    // Clicking a row selects the record; it does not move the timeline.
    const TimeRange before = m_state->visibleRange();
    const QModelIndex warn = panel.proxy()->indexOfRecord(RecR0Warn, LogModel::MessageColumn);
    panel.view()->setCurrentIndex(warn);
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR0Warn));
    QCOMPARE(m_state->visibleRange(), before);

    QSignalSpy reveal(&panel, &LogPanel::revealRequested);
    Q_EMIT panel.view()->activated(panel.proxy()->indexOfRecord(RecR1Oom));
    const TimeNs t = kEvBase + 7000;
    QCOMPARE(m_state->visibleRange(), (TimeRange{t - LogPanel::kJumpWindowNs / 2, t + LogPanel::kJumpWindowNs / 2}));
    QCOMPARE(m_state->selectedRank(), 1);
    QCOMPARE(m_state->selection(), EventRef::logRecord(RecR1Oom));
    QCOMPARE(reveal.count(), 1);

    // An untimed record selects its rank but leaves the time axis alone.
    const TimeRange now = m_state->visibleRange();
    panel.jumpToRecord(RecR0Untimed);
    QCOMPARE(m_state->visibleRange(), now);
    QCOMPARE(m_state->selectedRank(), 0);
}

void TestLogModel::panelEmptyState()
{
    LogPanel panel(m_state);
    panel.setSession(nullptr);
    QCOMPARE(panel.model()->rowCount(), 0);
    QCOMPARE(panel.rankCombo()->count(), 1);
}

QTEST_MAIN(TestLogModel)
#include "test_logmodel.moc"
