// DetailsPanel: the selected event's fields and its args, parsed from the raw JSON the importer
// kept into a key/value tree; instants; bad JSON; and the empty state.

#include "testsession.h"

#include "panels/detailspanel.h"
#include "timeformat.h"

#include <QApplication>
#include <QClipboard>
#include <QLabel>
#include <QLocale>
#include <QTest>
#include <QTreeWidget>

using namespace rs;
using namespace rs::test;

namespace {

QTreeWidgetItem *child(QTreeWidgetItem *parent, const QString &field)
{
    for (int i = 0; parent && i < parent->childCount(); ++i)
        if (parent->child(i)->text(DetailsPanel::FieldColumn) == field)
            return parent->child(i);
    return nullptr;
}

} // namespace

class TestDetailsPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }
    void init();
    void cleanup();
    void emptyStateWithoutSelection();
    void spanFields();
    void argsTree();
    void invalidArgsAreShownRaw();
    void instantFields();
    void clockOffsetIsApplied();
    void copySelectedRows();
    void longNamesDoNotWidenThePanel();

private:
    TestSession m_t;
    ViewState *m_state = nullptr;
    DetailsPanel *m_panel = nullptr;
};

void TestDetailsPanel::init()
{
    m_t = makeTestSession();
    m_state = new ViewState;
    m_state->setFullRange(m_t.session->timeRange());
    m_panel = new DetailsPanel(m_state);
    m_panel->setSession(m_t.session);
    m_panel->show();
}

void TestDetailsPanel::cleanup()
{
    delete m_panel;
    delete m_state;
}

void TestDetailsPanel::emptyStateWithoutSelection()
{
    QVERIFY(!m_panel->tree()->isVisible());
    QCOMPARE(m_panel->tree()->topLevelItemCount(), 0);
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QVERIFY(m_panel->tree()->isVisible());
    m_state->clearSelection();
    QVERIFY(!m_panel->tree()->isVisible());
    // A stale reference (index out of range) is treated like no selection.
    m_state->setSelection(EventRef::span(m_t.cpu0, 999));
    QVERIFY(!m_panel->tree()->isVisible());
}

void TestDetailsPanel::spanFields()
{
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QCOMPARE(m_panel->fieldValue("Name"), QString("aten::linear"));
    QCOMPARE(m_panel->fieldValue("Category"), QString("cpu_op"));
    QCOMPARE(m_panel->fieldValue("Track"), QString("python 100 (cpu-thread)"));
    QCOMPARE(m_panel->fieldValue("Rank"), QString("0"));
    // Relative to the session start (1 µs after kBase), and on the wall clock.
    QCOMPARE(m_panel->fieldValue("Start"), QString("1 µs"));
    QCOMPARE(m_panel->fieldValue("Start (wall clock)"), TimeFormat::wallClock(kBase + 2000));
    QVERIFY(m_panel->fieldValue("Start (wall clock)").startsWith("2023-11-14 22:13:20.000"));
    QCOMPARE(m_panel->fieldValue("Duration"), QString("3.00 µs (3,000 ns)"));
    QCOMPARE(m_panel->fieldValue("End"), QString("4 µs"));
    QCOMPARE(m_panel->fieldValue("Depth"), QString("1"));
    QCOMPARE(m_panel->fieldValue("Source"), QString("rank0.pt.trace.json"));
    QCOMPARE(m_panel->fieldValue("Clock offset"), QString());

    m_state->setSelection(EventRef::span(m_t.gpu0, m_t.gemm));
    QCOMPARE(m_panel->fieldValue("Name"), QString("gemm_kernel"));
    QCOMPARE(m_panel->fieldValue("Flags"), QString("gpu, kernel"));
    QVERIFY(!m_panel->argsItem()); // no args recorded
}

void TestDetailsPanel::argsTree()
{
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QTreeWidgetItem *args = m_panel->argsItem();
    QVERIFY(args);
    QVERIFY(args->isExpanded());
    QCOMPARE(args->childCount(), 5);
    QCOMPARE(child(args, "External id")->text(DetailsPanel::ValueColumn), QString("42"));
    QCOMPARE(child(args, "ok")->text(DetailsPanel::ValueColumn), QString("true"));
    // Short arrays of scalars stay on one line; arrays of arrays become children.
    QCOMPARE(child(args, "Input type")->text(DetailsPanel::ValueColumn), QString(R"(["float","float"])"));
    QTreeWidgetItem *dims = child(args, "Input Dims");
    QCOMPARE(dims->childCount(), 2);
    QCOMPARE(child(dims, "[1]")->text(DetailsPanel::ValueColumn), QString("[16,16]"));
    // Objects nest; a mixed array is split per element.
    QTreeWidgetItem *nested = child(args, "nested");
    QCOMPARE(child(nested, "a")->text(DetailsPanel::ValueColumn), QString("1.5"));
    QTreeWidgetItem *b = child(nested, "b");
    QCOMPARE(b->childCount(), 3);
    QCOMPARE(child(child(b, "[2]"), "c")->text(DetailsPanel::ValueColumn), QString("x"));
}

void TestDetailsPanel::invalidArgsAreShownRaw()
{
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.addmmC));
    QTreeWidgetItem *args = m_panel->argsItem();
    QVERIFY(args);
    QCOMPARE(args->childCount(), 1);
    QCOMPARE(args->child(0)->text(DetailsPanel::FieldColumn), QString("(raw)"));
    QCOMPARE(args->child(0)->text(DetailsPanel::ValueColumn), QString(R"({"truncated": )"));
}

void TestDetailsPanel::instantFields()
{
    m_state->setSelection(EventRef::instant(m_t.markers0, 0));
    QCOMPARE(m_panel->fieldValue("Name"), QString("checkpoint"));
    QCOMPARE(m_panel->fieldValue("Time"), QString("9 µs"));
    QCOMPARE(m_panel->fieldValue("Duration"), QString());
    QCOMPARE(child(m_panel->argsItem(), "epoch")->text(DetailsPanel::ValueColumn), QString("3"));
}

void TestDetailsPanel::clockOffsetIsApplied()
{
    m_state->setClockOffsets({{0, 250}});
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QCOMPARE(m_panel->fieldValue("Start"), QString("1.250 µs"));
    QCOMPARE(m_panel->fieldValue("Clock offset"), QString("250 ns"));
}

void TestDetailsPanel::copySelectedRows()
{
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    QTreeWidget *tree = m_panel->tree();
    tree->clearSelection();
    tree->topLevelItem(0)->setSelected(true); // Name
    m_panel->copySelection();
    QCOMPARE(QApplication::clipboard()->text(), QString("Name: aten::linear"));
}

// The Details dock keeps the width the user gave it: a 300-character kernel name without a space
// wraps (or is cut, its whole text in the tooltip) instead of raising the panel's minimum width.
void TestDetailsPanel::longNamesDoNotWidenThePanel()
{
    m_state->setSelection(EventRef::span(m_t.cpu0, m_t.linearB));
    const int shortName = m_panel->minimumSizeHint().width();

    SessionBuilder sb;
    SourceBuilder b("/traces/long.json");
    b.source().format = "pytorch-trace";
    b.source().ranks = {0};
    b.source().hasClock = true;
    std::string name = "void at::native::vectorized_elementwise_kernel<4,at::native::BinaryFunctor<float,float,float,"
                       "at::native::binary_internal::MulFunctor<float>>,at::detail::Array<char*,3>>(int,";
    while (name.size() < 300)
        name += "at::native::BinaryFunctor<float>,";
    const TrackId gpu = b.track(TrackKind::GpuStream, 0, 7, 0);
    b.addSpan(gpu, {kBase, 5000, b.intern(name), b.intern("kernel"), kNoArgs, 0, SpanFlagGpu | SpanFlagKernel});
    b.finish();
    sb.addSource(std::move(b));
    const SessionPtr session = sb.freeze();
    m_panel->setSession(session);
    m_state->setFullRange(session->timeRange());
    m_state->setSelection(EventRef::span(session->ranks().front().tracks.front(), 0));
    QCOMPARE(m_panel->fieldValue(QStringLiteral("Name")), QString::fromStdString(name));
    QVERIFY2(m_panel->minimumSizeHint().width() <= std::max(shortName, 320),
             qPrintable(QStringLiteral("%1 vs %2").arg(m_panel->minimumSizeHint().width()).arg(shortName)));
    // Narrow, the title wraps onto several lines rather than running off.
    m_panel->resize(360, 500);
    QTRY_VERIFY(m_panel->findChildren<QLabel *>().size() >= 2);
    const QLabel *title = m_panel->findChildren<QLabel *>().front();
    QVERIFY(title->heightForWidth(340) > 3 * title->fontMetrics().height());
    QCOMPARE(title->toolTip(), QString::fromStdString(name));
}

QTEST_MAIN(TestDetailsPanel)
#include "test_detailspanel.moc"
