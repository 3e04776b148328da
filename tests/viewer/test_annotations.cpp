// Annotations without a timeline: the undoable store (add, edit, move, delete, merged drags),
// finding annotations replaced across analyses, hiding them, the table model, and the painter's
// hit-testing and ink on known geometry.

#include "annotations/annotationmodel.h"
#include "screenshot.h"
#include "annotations/annotationpainter.h"
#include "annotations/annotationstore.h"
#include "timeformat.h"

#include <QAbstractItemModelTester>
#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QSvgGenerator>
#include <QRegularExpression>
#include <QTest>
#include <QUndoStack>

#include <functional>

using namespace rs;

namespace {

Annotation note(RankId rank, TimeNs t, const QString &text)
{
    Annotation a;
    a.kind = Annotation::Kind::Note;
    a.rank = a.endRank = rank;
    a.time = a.endTime = t;
    a.text = text;
    return a;
}

Annotation rangeOf(std::uint64_t id, RankId rank, TimeNs from, TimeNs to, const QString &text = {})
{
    Annotation a;
    a.id = id;
    a.kind = Annotation::Kind::Range;
    a.rank = rank;
    a.time = from;
    a.endTime = to;
    a.text = text;
    return a;
}

Annotation arrowOf(std::uint64_t id, RankId from, TimeNs at, RankId to, TimeNs endAt, const QString &text = {})
{
    Annotation a;
    a.id = id;
    a.kind = Annotation::Kind::Arrow;
    a.rank = from;
    a.time = at;
    a.endRank = to;
    a.endTime = endAt;
    a.text = text;
    return a;
}

Annotation findingNote(const std::string &key, TimeNs t, const QString &title)
{
    Annotation a = note(kNoRank, t, title);
    a.origin = Annotation::Origin::Finding;
    a.findingKey = key;
    a.color = QColor(0xc9, 0x1d, 0x2e);
    return a;
}

// x = 100 + t / 1000; rank 0 is rows 0..200, rank 1 rows 200..400; rank 2 is hidden.
AnnotationGeometry knownGeometry()
{
    AnnotationGeometry g;
    g.x = [](TimeNs t) { return 100.0 + static_cast<double>(t) / 1000.0; };
    g.rankBand = [](RankId r) -> std::optional<QRectF> {
        if (r == 0)
            return QRectF(100, 0, 1000, 200);
        if (r == 1)
            return QRectF(100, 200, 1000, 200);
        return std::nullopt;
    };
    g.area = QRectF(100, 0, 1000, 400);
    return g;
}

std::vector<Annotation> knownAnnotations()
{
    std::vector<Annotation> v;
    Annotation n = note(0, 200000, QStringLiteral("rank 0 stalls"));
    n.id = 1;
    v.push_back(n);
    v.push_back(arrowOf(2, 0, 400000, 1, 600000));
    v.push_back(rangeOf(3, 1, 700000, 900000, QStringLiteral("slow")));
    Annotation hidden = note(2, 500000, QStringLiteral("on a hidden rank"));
    hidden.id = 4;
    v.push_back(hidden);
    return v;
}

// The SVG `paint` draws on a 1200×400 canvas.
QByteArray svgOf(const std::function<void(QPainter &)> &paint)
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(1200, 400));
    svg.setViewBox(QRect(0, 0, 1200, 400));
    {
        QPainter p(&svg);
        paint(p);
    }
    return buffer.data();
}

} // namespace

class TestAnnotations : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void commandsUndoAndRedo_data();
    void commandsUndoAndRedo();
    void dragMovesMerge_data();
    void dragMovesMerge();
    void rangeEndsStayOrdered();
    void findingsReplacedAcrossAnalyses();
    void hiddenFindingsAreNotVisible();
    void resetRestoresSavedState();
    void modelFollowsStoreAndEditsUndo();
    void hitTest_data();
    void hitTest();
    void markersHitByTheirBadge();
    void paintPutsInkWhereAnnotationsAre();
    void vectorOutputKeepsTextAsText();
    void textIsWholeAndClearOfChartLabels();
};

void TestAnnotations::commandsUndoAndRedo_data()
{
    QTest::addColumn<QString>("op");
    QTest::addColumn<int>("countAfter");
    QTest::addColumn<QString>("textAfter");
    QTest::newRow("add") << "add" << 2 << "first";
    QTest::newRow("edit text") << "text" << 1 << "edited";
    QTest::newRow("edit colour") << "color" << 1 << "first";
    QTest::newRow("move") << "move" << 1 << "first";
    QTest::newRow("remove") << "remove" << 0 << "";
}

void TestAnnotations::commandsUndoAndRedo()
{
    QFETCH(QString, op);
    QFETCH(int, countAfter);
    QFETCH(QString, textAfter);
    AnnotationStore store;
    const std::uint64_t id = store.add(note(0, 1000, QStringLiteral("first")));
    QVERIFY(id != 0);
    const Annotation before = *store.find(id);
    QSignalSpy changed(&store, &AnnotationStore::changed);
    Annotation edited = before;
    if (op == "add") {
        const std::uint64_t second = store.add(note(1, 5000, QStringLiteral("second")));
        QVERIFY(second != id);
    } else if (op == "text") {
        edited.text = QStringLiteral("edited");
        QVERIFY(store.update(edited));
    } else if (op == "color") {
        edited.color = Qt::darkGreen;
        QVERIFY(store.update(edited));
    } else if (op == "move") {
        edited.time = edited.endTime = 9000;
        QVERIFY(store.move(edited));
        store.endMove();
    } else {
        QVERIFY(store.remove(id));
    }
    const std::vector<Annotation> after = store.annotations();
    QCOMPARE(int(after.size()), countAfter);
    QCOMPARE(store.undoStack()->count(), 2);
    QVERIFY(changed.count() >= 1);
    if (countAfter > 0)
        QCOMPARE(store.find(id) ? store.find(id)->text : QString(), textAfter);

    store.undoStack()->undo();
    QCOMPARE(int(store.annotations().size()), 1);
    QCOMPARE(*store.find(id), before);
    store.undoStack()->redo();
    QCOMPARE(store.annotations(), after);
    // A no-op edit is not an undo step.
    if (const Annotation *a = store.find(id)) {
        QVERIFY(!store.update(*a));
        QCOMPARE(store.undoStack()->count(), 2);
    }
}

void TestAnnotations::dragMovesMerge_data()
{
    QTest::addColumn<QList<qint64>>("firstDrag");
    QTest::addColumn<QList<qint64>>("secondDrag");
    QTest::addColumn<int>("steps"); // undo steps the drags leave
    QTest::newRow("one drag, many moves") << QList<qint64>{1100, 1300, 1700, 2000} << QList<qint64>{} << 1;
    QTest::newRow("two drags") << QList<qint64>{1500, 2000} << QList<qint64>{2500, 3000} << 2;
    QTest::newRow("drag back to start") << QList<qint64>{1500, 2000, 1000} << QList<qint64>{} << 0;
}

void TestAnnotations::dragMovesMerge()
{
    QFETCH(QList<qint64>, firstDrag);
    QFETCH(QList<qint64>, secondDrag);
    QFETCH(int, steps);
    AnnotationStore store;
    const std::uint64_t id = store.add(note(0, 1000, QStringLiteral("n")));
    const int base = store.undoStack()->count();
    for (const QList<qint64> &drag : {firstDrag, secondDrag}) {
        for (qint64 t : drag) {
            Annotation a = *store.find(id);
            a.time = a.endTime = t;
            store.move(a);
        }
        store.endMove();
    }
    const TimeNs last = secondDrag.isEmpty() ? firstDrag.back() : secondDrag.back();
    QCOMPARE(store.find(id)->time, last);
    // QUndoStack drops an obsolete merged command, so the count is what the user can undo.
    QCOMPARE(store.undoStack()->count() - base, steps);
    for (int i = 0; i < steps; ++i)
        store.undoStack()->undo();
    QCOMPARE(store.find(id)->time, TimeNs(1000));
    QCOMPARE(store.find(id)->endTime, TimeNs(1000));
}

void TestAnnotations::rangeEndsStayOrdered()
{
    AnnotationStore store;
    Annotation r;
    r.kind = Annotation::Kind::Range;
    r.time = 5000;
    r.endTime = 2000; // given backwards
    const std::uint64_t id = store.add(r);
    QCOMPARE(store.find(id)->time, TimeNs(2000));
    QCOMPARE(store.find(id)->endTime, TimeNs(5000));
    Annotation dragged = *store.find(id);
    dragged.time = 8000; // start dragged past the end
    store.move(dragged);
    QCOMPARE(store.find(id)->time, TimeNs(5000));
    QCOMPARE(store.find(id)->endTime, TimeNs(8000));
}

void TestAnnotations::findingsReplacedAcrossAnalyses()
{
    AnnotationStore store;
    const std::uint64_t user = store.add(note(1, 100, QStringLiteral("mine")));
    store.setFindingAnnotations({findingNote("oom|2|10", 10, QStringLiteral("OOM v1")), findingNote("frag|2|20", 20, QStringLiteral("Frag v1")),
                                 findingNote("desync||30", 30, QStringLiteral("Desync v1"))});
    QCOMPARE(int(store.annotations().size()), 4);
    const int steps = store.undoStack()->count();
    QCOMPARE(steps, 1); // replacing findings is not undoable
    auto byKey = [&store](const std::string &key) -> const Annotation * {
        for (const Annotation &a : store.annotations())
            if (a.findingKey == key)
                return &a;
        return nullptr;
    };
    const std::uint64_t oomId = byKey("oom|2|10")->id;
    // The person moves the fragmentation note and deletes the desync one.
    Annotation frag = *byKey("frag|2|20");
    frag.time = frag.endTime = 25;
    store.move(frag);
    store.endMove();
    QVERIFY(store.remove(byKey("desync||30")->id));
    QCOMPARE(store.deletedFindingKeys(), std::vector<std::string>{"desync||30"});
    QCOMPARE(store.editedFindingKeys(), std::vector<std::string>{"frag|2|20"});

    // A new analysis: new titles, plus one new finding.
    store.setFindingAnnotations({findingNote("oom|2|10", 10, QStringLiteral("OOM v2")), findingNote("frag|2|20", 20, QStringLiteral("Frag v2")),
                                 findingNote("desync||30", 30, QStringLiteral("Desync v2")), findingNote("growth||40", 40, QStringLiteral("Growth"))});
    QCOMPARE(store.undoStack()->count(), steps + 2);
    QVERIFY(store.find(user));
    QCOMPARE(byKey("oom|2|10")->text, QStringLiteral("OOM v2")); // untouched: replaced
    QCOMPARE(byKey("oom|2|10")->id, oomId);                      // with its id
    QCOMPARE(byKey("frag|2|20")->text, QStringLiteral("Frag v1")); // edited: kept
    QCOMPARE(byKey("frag|2|20")->time, TimeNs(25));
    QVERIFY(!byKey("desync||30"));                                 // deleted: not back
    QVERIFY(byKey("growth||40"));
    QCOMPARE(int(store.annotations().size()), 4);

    // Undoing the delete brings the person's copy back; the next analysis does not duplicate it.
    store.undoStack()->undo();
    QVERIFY(byKey("desync||30"));
    QVERIFY(store.deletedFindingKeys().empty());
    store.setFindingAnnotations({findingNote("desync||30", 30, QStringLiteral("Desync v3"))});
    int desync = 0;
    for (const Annotation &a : store.annotations())
        desync += a.findingKey == "desync||30" ? 1 : 0;
    QCOMPARE(desync, 1);
    QCOMPARE(byKey("desync||30")->text, QStringLiteral("Desync v3"));
    QVERIFY(!byKey("oom|2|10")); // gone from the analysis and never edited
    QVERIFY(byKey("frag|2|20")); // edited: kept even though the finding went away
    // Undoing the move clears the edited mark: the next analysis updates it again.
    store.undoStack()->undo();
    QVERIFY(store.editedFindingKeys().empty());
    store.setFindingAnnotations({findingNote("frag|2|20", 20, QStringLiteral("Frag v4"))});
    QCOMPARE(byKey("frag|2|20")->text, QStringLiteral("Frag v4"));
}

void TestAnnotations::hiddenFindingsAreNotVisible()
{
    AnnotationStore store;
    const std::uint64_t user = store.add(note(0, 1, QStringLiteral("u")));
    store.setFindingAnnotations({findingNote("a||1", 5, QStringLiteral("F"))});
    const std::uint64_t finding = store.annotations().back().id;
    store.setSelectedId(finding);
    QCOMPARE(store.selectedId(), finding);
    QSignalSpy changed(&store, &AnnotationStore::changed);
    QSignalSpy selection(&store, &AnnotationStore::selectionChanged);
    store.setFindingAnnotationsVisible(false);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(selection.count(), 1); // a hidden annotation cannot stay selected
    QCOMPARE(store.selectedId(), std::uint64_t(0));
    const auto visible = store.visibleAnnotations();
    QCOMPARE(int(visible.size()), 1);
    QCOMPARE(visible.front().id, user);
    QCOMPARE(int(store.annotations().size()), 2);
    store.setSelectedId(finding);
    QCOMPARE(store.selectedId(), std::uint64_t(0));
    store.setFindingAnnotationsVisible(true);
    QCOMPARE(int(store.visibleAnnotations().size()), 2);
}

void TestAnnotations::resetRestoresSavedState()
{
    AnnotationStore store;
    store.add(note(0, 1, QStringLiteral("before")));
    QVERIFY(store.undoStack()->canUndo());
    Annotation saved = findingNote("oom|2|10", 10, QStringLiteral("kept"));
    saved.id = 7;
    Annotation noId = note(1, 3, QStringLiteral("no id"));
    store.reset({saved, noId}, {"gone||1"}, {"oom|2|10"});
    QVERIFY(!store.undoStack()->canUndo());
    QCOMPARE(int(store.annotations().size()), 2);
    QVERIFY(store.find(7));
    QVERIFY(store.annotations()[1].id != 0 && store.annotations()[1].id != 7);
    // The restored keys drive the next analysis exactly as before saving.
    store.setFindingAnnotations({findingNote("oom|2|10", 10, QStringLiteral("new title")), findingNote("gone||1", 1, QStringLiteral("back?"))});
    QCOMPARE(store.find(7)->text, QStringLiteral("kept"));
    QCOMPARE(int(store.annotations().size()), 2);
    QVERIFY(store.add(note(0, 0, {})) > 7);
}

void TestAnnotations::modelFollowsStoreAndEditsUndo()
{
    AnnotationStore store;
    AnnotationModel model(&store);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTimeOrigin(1000);
    const std::uint64_t id = store.add(note(2, 1000 + 1500000, QStringLiteral("hello")));
    Annotation r;
    r.kind = Annotation::Kind::Range;
    r.time = 1000;
    r.endTime = 1000 + 2000000;
    store.add(r);
    store.setFindingAnnotations({findingNote("x||1", 1000, QStringLiteral("finding"))});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.index(0, AnnotationModel::KindColumn).data().toString(), QStringLiteral("Note"));
    QCOMPARE(model.index(0, AnnotationModel::RankColumn).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(0, AnnotationModel::TimeColumn).data().toString(), TimeFormat::precise(1500000));
    QCOMPARE(model.index(0, AnnotationModel::TimeColumn).data(AnnotationModel::SortRole).toLongLong(), 1000 + 1500000);
    QCOMPARE(model.index(1, AnnotationModel::RankColumn).data().toString(), QStringLiteral("all"));
    QVERIFY(model.index(1, AnnotationModel::TimeColumn).data().toString().contains(TimeFormat::duration(2000000)));
    QCOMPARE(model.index(2, AnnotationModel::OriginColumn).data().toString(), QStringLiteral("Finding"));
    QCOMPARE(model.index(0, 0).data(AnnotationModel::IdRole).value<quint64>(), id);
    QVERIFY(model.flags(model.index(0, AnnotationModel::TextColumn)) & Qt::ItemIsEditable);
    QVERIFY(!(model.flags(model.index(0, AnnotationModel::TimeColumn)) & Qt::ItemIsEditable));

    // An edit through the model is one undo step of the store.
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    QSignalSpy data(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.setData(model.index(0, AnnotationModel::TextColumn), QStringLiteral("edited")));
    QCOMPARE(store.find(id)->text, QStringLiteral("edited"));
    QCOMPARE(model.index(0, AnnotationModel::TextColumn).data().toString(), QStringLiteral("edited"));
    QCOMPARE(reset.count(), 0); // same rows: announced as a data change
    QCOMPARE(data.count(), 1);
    store.undoStack()->undo();
    QCOMPARE(model.index(0, AnnotationModel::TextColumn).data().toString(), QStringLiteral("hello"));
    QVERIFY(!model.setData(model.index(0, AnnotationModel::TimeColumn), QStringLiteral("x")));

    store.setFindingAnnotationsVisible(false);
    QCOMPARE(model.rowCount(), 2);
    store.remove(id);
    QCOMPARE(model.rowCount(), 1);
    QCOMPARE(model.rowOf(id), -1);
    store.undoStack()->undo();
    QCOMPARE(model.rowCount(), 2);
}

void TestAnnotations::hitTest_data()
{
    QTest::addColumn<QPointF>("point");
    QTest::addColumn<quint64>("id");
    QTest::addColumn<int>("part");
    using P = AnnotationPainter::Part;
    QTest::newRow("note flag") << QPointF(303, 4) << quint64(1) << int(P::Body);
    QTest::newRow("note callout") << QPointF(340, 10) << quint64(1) << int(P::Body);
    QTest::newRow("below the note") << QPointF(303, 150) << quint64(0) << int(P::None);
    QTest::newRow("arrow tail") << QPointF(501, 101) << quint64(2) << int(P::Start);
    QTest::newRow("arrow head") << QPointF(698, 298) << quint64(2) << int(P::End);
    QTest::newRow("arrow shaft") << QPointF(601, 199) << quint64(2) << int(P::Body);
    QTest::newRow("beside the shaft") << QPointF(620, 160) << quint64(0) << int(P::None);
    QTest::newRow("range start edge") << QPointF(802, 330) << quint64(3) << int(P::Start);
    QTest::newRow("range end edge") << QPointF(997, 330) << quint64(3) << int(P::End);
    QTest::newRow("range label") << QPointF(812, 210) << quint64(3) << int(P::Body);
    QTest::newRow("inside the range") << QPointF(900, 350) << quint64(0) << int(P::None);
    QTest::newRow("range edge on another rank") << QPointF(802, 100) << quint64(0) << int(P::None);
    QTest::newRow("note on a hidden rank") << QPointF(602, 4) << quint64(0) << int(P::None);
    QTest::newRow("gutter") << QPointF(50, 4) << quint64(0) << int(P::None);
}

void TestAnnotations::hitTest()
{
    QFETCH(QPointF, point);
    QFETCH(quint64, id);
    QFETCH(int, part);
    const auto [hitId, hitPart] = AnnotationPainter::hitTest(point, knownAnnotations(), knownGeometry());
    QCOMPARE(quint64(hitId), id);
    QCOMPARE(int(hitPart), part);
}

void TestAnnotations::markersHitByTheirBadge()
{
    // Numbered markers (the timeline's findings) sit in their rank's marker row, above the band:
    // the badge grabs the annotation (Body), a marked range keeps its edges (Start/End), and the
    // line a marked moment drops down the band leaves the data under it clickable.
    AnnotationGeometry g = knownGeometry();
    g.markerRow = [](RankId r) -> std::optional<QRectF> {
        return r == 1 ? std::optional<QRectF>(QRectF(100, 180, 1000, 20)) : std::nullopt;
    };
    Annotation moment = findingNote("oom|1|300000", 300000, QStringLiteral("rank 1 ran out of memory"));
    moment.id = 7;
    moment.rank = moment.endRank = 1;
    Annotation range = moment;
    range.id = 8;
    range.kind = Annotation::Kind::Range;
    range.findingKey = "spike|1|700000";
    range.time = 700000;
    range.endTime = 900000;
    const std::vector<Annotation> v{moment, range};
    AnnotationStyle style;
    style.findings = FindingMarks::NumberedMarker;
    style.number = [](const Annotation &a) { return a.id == 7 ? 3 : 12; };
    using P = AnnotationPainter::Part;
    // (id, part) as plain numbers, so a failure prints both.
    const auto hit = [&](QPointF p) {
        const auto [id, part] = AnnotationPainter::hitTest(p, v, g, style);
        return std::pair<quint64, int>(id, int(part));
    };
    QCOMPARE(hit({400, 190}), (std::pair<quint64, int>(7, int(P::Body))));  // ③ centred on its moment
    QCOMPARE(hit({800, 190}), (std::pair<quint64, int>(8, int(P::Body))));  // ⑫ at the range's start
    QCOMPARE(hit({400, 300}).first, quint64(0));                             // the moment's line
    QCOMPARE(hit({801, 300}), (std::pair<quint64, int>(8, int(P::Start)))); // the range's edge
    QCOMPARE(hit({999, 300}), (std::pair<quint64, int>(8, int(P::End))));
    // The same annotations as callouts (the default style) are grabbed by their pin instead.
    QCOMPARE(AnnotationPainter::hitTest({403, 204}, v, g).first, std::uint64_t(7));
    QCOMPARE(AnnotationPainter::hitTest({400, 190}, v, g).first, std::uint64_t(0));

    // Drawn: the badge in the row in the finding's colour, nothing of that colour down the band.
    QImage img(1200, 400, QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::white);
    {
        QPainter p(&img);
        AnnotationPainter::paint(p, v, g, 7, 0, style);
    }
    const QColor red(0xc9, 0x1d, 0x2e);
    auto close = [&red](const QColor &c) {
        return std::abs(c.red() - red.red()) + std::abs(c.green() - red.green()) + std::abs(c.blue() - red.blue()) < 40;
    };
    QVERIFY2(close(img.pixelColor(394, 190)), qPrintable(img.pixelColor(394, 190).name()));
    for (int y = 205; y < 400; ++y)
        QVERIFY2(!close(img.pixelColor(400, y)), qPrintable(QString::number(y)));
}

void TestAnnotations::paintPutsInkWhereAnnotationsAre()
{
    for (const qreal dpr : {1.0, 2.0}) {
        QImage img(QSize(1200, 400) * dpr, QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(dpr);
        img.fill(Qt::white);
        std::vector<Annotation> all = knownAnnotations();
        all[2].color = QColor(255, 0, 255);
        {
            QPainter p(&img);
            AnnotationPainter::paint(p, all, knownGeometry(), 3, 0);
        }
        rs::test::keepScreenshot(img, QStringLiteral("annotation-painter-%1x.png").arg(dpr));
        auto at = [&](double x, double y) { return img.pixelColor(QPointF(x * dpr, y * dpr).toPoint()); };
        // The range is washed in its colour between its edges on rank 1 only.
        const QColor inside = at(900, 380);
        QVERIFY2(inside.red() > 220 && inside.green() < 240 && inside.blue() > 220, qPrintable(inside.name()));
        QCOMPARE(at(900, 150), QColor(Qt::white));
        QCOMPARE(at(1050, 380), QColor(Qt::white));
        // The arrow's shaft is dark ink halfway between its ends.
        QVERIFY(at(600, 200).lightness() < 120);
        // The note's callout has a white inside and ink (its text) to the right of its flag.
        bool text = false;
        for (int x = 315; x < 380 && !text; ++x)
            for (int y = 4; y < 18 && !text; ++y)
                text = at(x, y).lightness() < 140;
        QVERIFY(text);
        // Nothing outside the area: the gutter stays clean.
        for (int y = 0; y < 400; y += 7)
            QCOMPARE(at(60, y), QColor(Qt::white));
    }
}

void TestAnnotations::vectorOutputKeepsTextAsText()
{
    const QByteArray out = svgOf([](QPainter &p) { AnnotationPainter::paint(p, knownAnnotations(), knownGeometry(), 2, 0); });
    QVERIFY(out.contains("rank 0 stalls"));
    QVERIFY(out.contains(">slow<"));
    QVERIFY(!out.contains("<image")); // no pixmaps
    QVERIFY(!out.contains("hidden rank"));
}

void TestAnnotations::textIsWholeAndClearOfChartLabels()
{
    // A long note, range label and arrow label: every word is painted (wrapped, never elided), and
    // no box covers a chart label (an OOM's, a spike's) the geometry asks to keep clear.
    const QString longNote = QStringLiteral(
        "rank 3 allocated the optimizer state twice after the checkpoint reload; see the allocator snapshot "
        "taken at step 1200 and the memory summary printed right before the OOM, then compare with rank 0 "
        "which freed its copy; /ckpt/step1200/rank3.pt is the file");
    const QString longRange = QStringLiteral("the all-reduce of bucket 17 waited here for rank 5, which was still in its backward pass");
    const QString longArrow = QStringLiteral("rank 0 waits on rank 1's send of the activations for micro-batch 7");
    std::vector<Annotation> v;
    Annotation n = note(0, 200000, longNote);
    n.id = 1;
    v.push_back(n);
    v.push_back(rangeOf(2, 1, 300000, 350000, longRange));
    v.push_back(arrowOf(3, 1, 800000, 0, 600000, longArrow));
    AnnotationGeometry g = knownGeometry();
    g.keepClear = {QRectF(305, 0, 90, 14), QRectF(395, 200, 70, 14)}; // where the note and range label would go
    const auto boxes = AnnotationPainter::textBoxes(v, g);
    QCOMPARE(boxes.size(), std::size_t(3));
    for (const auto &[id, box] : boxes) {
        for (const QRectF &clear : g.keepClear)
            QVERIFY2(!box.intersects(clear), qPrintable(QStringLiteral("annotation %1 covers a chart label").arg(id)));
        QVERIFY(box.height() > 0);
    }
    // The note needs several lines at its 240 px width: more than the four it used to be cut to.
    QVERIFY(boxes[0].second.height() > 5 * 11);

    // The painted text, tags and line breaks taken out, holds each annotation's text whole.
    QString painted = QString::fromUtf8(svgOf([&](QPainter &p) { AnnotationPainter::paint(p, v, g); }));
    painted.remove(QRegularExpression(QStringLiteral("<[^>]*>")));
    for (const auto &[entity, c] : {std::pair{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&#39;", "'"}})
        painted.replace(QLatin1String(entity), QLatin1String(c));
    painted.remove(QRegularExpression(QStringLiteral("\\s")));
    QVERIFY(!painted.contains(QStringLiteral("…")));
    for (QString text : {longNote, longRange, longArrow})
        QVERIFY2(painted.contains(text.remove(QRegularExpression(QStringLiteral("\\s")))), qPrintable(QStringLiteral("not painted whole: %1").arg(text)));
}

QTEST_MAIN(TestAnnotations)
#include "test_annotations.moc"
