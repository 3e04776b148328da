// Allocator snapshots and the profiler memory timeline: the restricted unpickler (every opcode
// family, memo, rejection of globals/calls, corrupt input), the snapshot mapping (segments,
// blocks, stacks, anchored counters, OOM entries) on pickles the test writes, and the samples.

#include "importerregistry.h"
#include "pickle/restrictedunpickler.h"

#include <QFile>
#include <QTest>

#include <set>

using namespace rs;

namespace {

// A tiny protocol-2 pickle writer, enough to build snapshots the way torch's C++ Pickler does.
class Pickle
{
public:
    Pickle() { m_b = std::string("\x80\x02", 2); }
    Pickle &dict() { return op('}'); }
    Pickle &list() { return op(']'); }
    Pickle &mark() { return op('('); }
    Pickle &setItems() { return op('u'); }
    Pickle &appends() { return op('e'); }
    Pickle &str(const std::string &s)
    {
        op('X');
        le(s.size(), 4);
        m_b += s;
        return *this;
    }
    Pickle &integer(std::int64_t v)
    {
        if (v >= INT32_MIN && v <= INT32_MAX) {
            op('J');
            le(static_cast<std::uint64_t>(v), 4);
        } else {
            op('\x8a');
            m_b += char(8);
            le(static_cast<std::uint64_t>(v), 8);
        }
        return *this;
    }
    Pickle &boolean(bool b) { return op(b ? '\x88' : '\x89'); }
    Pickle &tuple2() { return op('\x86'); }
    Pickle &put(int i) { op('q'); m_b += char(i); return *this; }
    Pickle &get(int i) { op('h'); m_b += char(i); return *this; }
    Pickle &raw(const std::string &bytes) { m_b += bytes; return *this; }
    std::string done() { return m_b + "."; }

private:
    Pickle &op(char c) { m_b += c; return *this; }
    void le(std::uint64_t v, int n)
    {
        for (int i = 0; i < n; ++i)
            m_b += char((v >> (8 * i)) & 0xff);
    }
    std::string m_b;
};

SourceBuilder importBytes(const std::string &bytes, const std::string &name = "snapshot.pickle")
{
    ImportContext ctx;
    return ImporterRegistry::instance().importBytes(bytes, name, ctx);
}

const Track *track(const SourceBuilder &b, TrackKind kind)
{
    for (const Track &t : b.tracks())
        if (t.kind == kind)
            return &t;
    return nullptr;
}

// A frame dict {"filename": f, "line": l, "name": n}.
void frame(Pickle &p, const std::string &file, int line, const std::string &name)
{
    p.dict().mark().str("filename").str(file).str("line").integer(line).str("name").str(name).setItems();
}

// A trace entry with frames; `frames` = memo slot to reuse (>= 0) or -1 to write a new stack.
void entry(Pickle &p, const std::string &action, std::int64_t addr, std::int64_t size, std::int64_t timeUs, int reuse = -1, int store = -1)
{
    p.dict().mark().str("action").str(action).str("addr").integer(addr).str("size").integer(size).str("stream").integer(0);
    if (timeUs >= 0)
        p.str("time_us").integer(timeUs);
    p.str("frames");
    if (reuse >= 0) {
        p.get(reuse);
    } else {
        p.list();
        if (store >= 0)
            p.put(store);
        p.mark();
        frame(p, "model.py", 42, "forward");
        frame(p, "train.py", 7, "step");
        p.appends();
    }
    p.setItems();
}

} // namespace

class TestSnapshot : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void unpicklerValues();
    void unpicklerProtocol4Memo();
    void selfContainingListIsFreed();
    void unpicklerRejects_data();
    void unpicklerRejects();
    void snapshotMapping();
    void snapshotWithGlobalIsRejected();
    void implausibleNumbersAreNotUsed();
    void bareSegmentList();
    void pt20BlockHistory();
    void badStructures_data();
    void badStructures();
    void realSnapshots_data();
    void realSnapshots();
    void realSnapshotContents_data();
    void realSnapshotContents();
    void timelineRawFixture();
    void timelinePlainFixture();
    void realTimeline();
};

void TestSnapshot::unpicklerValues()
{
    Pickle p;
    p.dict().mark();
    p.str("neg").integer(-5);
    p.str("big").integer(0x7f5c2a000000LL);
    p.str("yes").boolean(true);
    p.str("pair").integer(0).integer(3).tuple2();
    p.str("float").raw(std::string("G\x3f\xf8\x00\x00\x00\x00\x00\x00", 9)); // 1.5 big-endian
    p.str("none").raw("N");
    p.str("max").raw(std::string("\x8a\x09\xff\xff\xff\xff\xff\xff\xff\xff\x00", 11)); // SIZE_MAX as LONG1
    p.setItems();
    std::string err;
    const PickleRef v = RestrictedUnpickler::load(p.done(), &err);
    QVERIFY2(v, err.c_str());
    QCOMPARE(v->intOr("neg", 0), std::int64_t(-5));
    QCOMPARE(v->intOr("big", 0), std::int64_t(0x7f5c2a000000LL));
    QCOMPARE(v->intOr("yes", 0), std::int64_t(1));
    QCOMPARE(v->get("pair")->items.size(), std::size_t(2));
    QCOMPARE(v->get("pair")->items[1]->integer, std::int64_t(3));
    QCOMPARE(v->get("float")->real, 1.5);
    QCOMPARE(v->get("none")->type, PickleValue::Type::None);
    QCOMPARE(v->get("max")->type, PickleValue::Type::BigInt);
    QCOMPARE(static_cast<std::uint64_t>(v->get("max")->integer), ~std::uint64_t(0));
}

void TestSnapshot::unpicklerProtocol4Memo()
{
    // PROTO 4, FRAME, EMPTY_LIST, MEMOIZE, SHORT_BINUNICODE "a", MEMOIZE, APPEND, BINGET 0 (the list
    // itself is shared), APPEND via a second list: [[...], same]
    std::string b("\x80\x04\x95\x0e\x00\x00\x00\x00\x00\x00\x00", 11); // FRAME of the 14 bytes that follow
    b += "]\x94";                       // outer list, memo 0
    b += "]\x94";                       // inner list, memo 1
    b += std::string("\x8c\x01" "a\x94", 4); // "a", memo 2
    b += "a";                           // inner.append("a")
    b += "a";                           // outer.append(inner)
    b += std::string("h\x01", 2) + "a"; // outer.append(memo[1]) – the same inner list
    b += ".";
    std::string err;
    const PickleRef v = RestrictedUnpickler::load(b, &err);
    QVERIFY2(v, err.c_str());
    QCOMPARE(v->items.size(), std::size_t(2));
    QCOMPARE(v->items[0].get(), v->items[1].get());
    QCOMPARE(v->items[0]->items[0]->text, std::string("a"));
}

void TestSnapshot::selfContainingListIsFreed()
{
    // ] MEMOIZE (memo 0 = the list), BINGET 0, APPEND: a list that contains itself. Shared
    // references alone would keep it alive forever (found by fuzz_evidence under LeakSanitizer).
    const std::string b("\x80\x04]\x94h\x00" "a.", 8);
    std::string err;
    PickleRef v = RestrictedUnpickler::load(b, &err);
    QVERIFY2(v, err.c_str());
    QCOMPARE(v->items.size(), std::size_t(1));
    QCOMPARE(v->items[0].get(), v.get());
    std::weak_ptr<PickleValue> inner = v->items[0];
    v.reset();
    QVERIFY(inner.expired());
}

void TestSnapshot::unpicklerRejects_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("needle");
    QTest::addColumn<int>("offset");
    QTest::newRow("GLOBAL") << QByteArray("\x80\x02" "cos\nsystem\n.", 13) << "import a global" << 2;
    QTest::newRow("STACK_GLOBAL") << QByteArray("\x80\x04\x8c\x02os\x8c\x06system\x93.", 16) << "import a global" << 14;
    QTest::newRow("REDUCE") << QByteArray("\x80\x02N)R.", 6) << "call a function" << 4;
    QTest::newRow("BUILD") << QByteArray("\x80\x02}}b.", 6) << "set object state" << 4;
    QTest::newRow("truncated") << QByteArray("\x80\x02X\x10\x00\x00\x00" "abc", 10) << "truncated" << 7;
    QTest::newRow("missing memo") << QByteArray("\x80\x02h\x05.", 5) << "memo entry 5" << 2;
    QTest::newRow("unbalanced") << QByteArray("\x80\x02NN.", 5) << "unbalanced" << 4;
    QTest::newRow("unknown opcode") << QByteArray("\x80\x02\xff.", 4) << "opcode 0xff" << 2;
}

void TestSnapshot::unpicklerRejects()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, needle);
    QFETCH(int, offset);
    std::string err;
    std::int64_t at = -1;
    const PickleRef v = RestrictedUnpickler::load(std::string_view(bytes.constData(), std::size_t(bytes.size())), &err, &at);
    QVERIFY(!v);
    QVERIFY2(QString::fromStdString(err).contains(needle), err.c_str());
    QCOMPARE(int(at), offset);
}

void TestSnapshot::snapshotMapping()
{
    constexpr std::int64_t MiB = 1 << 20;
    Pickle p;
    p.dict().mark();
    p.str("segments").list().mark();
    // One 4 MiB segment holding a live 1 MiB block and free space.
    p.dict().mark().str("device").integer(0).str("address").integer(0x1000000).str("total_size").integer(4 * MiB)
        .str("allocated_size").integer(1 * MiB).str("active_size").integer(1 * MiB).str("segment_type").str("large")
        .str("segment_pool_id").integer(0).integer(0).tuple2().str("is_expandable").boolean(false)
        .str("blocks").list().mark()
        .dict().mark().str("address").integer(0x1000000).str("size").integer(MiB).str("requested_size").integer(MiB - 8)
        .str("state").str("active_allocated").setItems()
        .dict().mark().str("address").integer(0x1100000).str("size").integer(3 * MiB).str("requested_size").integer(0)
        .str("state").str("inactive").setItems()
        .appends()
        .setItems();
    p.appends();
    p.str("device_traces").list().mark().list().mark();
    entry(p, "segment_alloc", 0x1000000, 4 * MiB, 1000, -1, 10);
    entry(p, "alloc", 0x1000000, 2 * MiB, 2000, 10);
    entry(p, "free_requested", 0x1000000, 2 * MiB, 3000, 10);
    entry(p, "free_completed", 0x1000000, 2 * MiB, 3500, 10);
    entry(p, "alloc", 0x1000000, 1 * MiB, 4000, 10);
    p.dict().mark().str("action").str("oom").str("size").integer(8 * MiB).str("device_free").integer(MiB / 2)
        .str("time_us").integer(5000).setItems();
    p.appends().appends();
    p.setItems();
    const SourceBuilder b = importBytes(p.done());
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QVERIFY2(b.source().diagnostics.empty(), b.source().diagnostics.empty() ? "" : b.source().diagnostics[0].message.c_str());
    QCOMPARE(b.source().counts.segments, 1);
    QCOMPARE(b.source().counts.traceEntries, 6);
    QCOMPARE(b.source().counts.oomMessages, 1);
    QVERIFY(b.source().hasClock);
    const auto &al = b.allocator();
    QCOMPARE(al.segments[0].blocks.size(), std::size_t(2));
    QCOMPARE(al.segments[0].blocks[0].state, SegmentRecord::Block::State::Allocated);
    QCOMPARE(al.allocations.size(), std::size_t(2));
    QCOMPARE(al.allocations[0].time, TimeNs(2000000));
    QCOMPARE(al.allocations[0].freed, TimeNs(3500000));
    QCOMPARE(al.allocations[1].freed, kNoTime);
    // The memo shares one frame list: one stack for every entry.
    QCOMPARE(al.stacks.size(), std::size_t(1));
    QCOMPARE(al.allocations[1].stack, 0);
    QCOMPARE(al.stacks[0][0].name, std::string("forward"));
    QCOMPARE(al.stacks[0][1].line, 7);
    // Allocated: 2 MiB, 0, 1 MiB (anchored: the segments say 1 MiB is allocated at the end).
    const Track *allocated = track(b, TrackKind::MemoryAllocated);
    QCOMPARE(allocated->counter.values, std::vector<double>({0, 2.0 * MiB, 0, 1.0 * MiB, 1.0 * MiB}));
    const Track *reserved = track(b, TrackKind::MemoryReserved);
    QCOMPARE(reserved->counter.values.front(), 4.0 * MiB);
    QCOMPARE(reserved->counter.values.back(), 4.0 * MiB);
    QCOMPARE(b.ooms()[0].requested, 8 * MiB);
    QCOMPARE(b.ooms()[0].free, MiB / 2);
    QCOMPARE(b.ooms()[0].time, TimeNs(5000000));
}

// Sizes of 2^50 bytes and more, times past 2100 and totals that would wrap are not used: one counted
// warning with the first one's offset; the good segment and entries beside them are kept.
void TestSnapshot::implausibleNumbersAreNotUsed()
{
    constexpr std::int64_t MiB = 1 << 20;
    Pickle p;
    p.dict().mark();
    p.str("segments").list().mark();
    auto segment = [&p](std::int64_t total) {
        p.dict().mark().str("device").integer(0).str("address").integer(0x1000000).str("total_size").integer(total)
            .str("allocated_size").integer(MiB).str("active_size").integer(MiB).str("segment_type").str("large").setItems();
    };
    segment(4 * MiB);
    segment(std::int64_t(1) << 60); // 1 EiB
    p.appends();
    p.str("device_traces").list().mark().list().mark();
    entry(p, "alloc", 0x1000000, 1 * MiB, 1000, -1, 10);
    entry(p, "alloc", 0x2000000, std::int64_t(1) << 62, 2000, 10); // a size no GPU has
    entry(p, "alloc", 0x3000000, 1 * MiB, 5000000000000000, 10);    // a time in 2128
    entry(p, "alloc", 0x4000000, 1 * MiB, 3000, 10);
    p.appends();
    // A second device whose allocations add up past 2^50 without any one being implausible.
    p.list().mark();
    for (int i = 0; i < 40; ++i)
        entry(p, "alloc", 0x5000000 + i, std::int64_t(1) << 46, 4000 + i, 10);
    p.appends();
    p.appends();
    p.setItems();
    const SourceBuilder b = importBytes(p.done());
    QCOMPARE(b.source().counts.segments, 1);
    QCOMPARE(b.allocator().allocations.size(), std::size_t(2 + 40));
    const Diagnostic *d = nullptr;
    for (const Diagnostic &x : b.source().diagnostics)
        if (x.code == "snapshot-value-implausible")
            d = &x;
    QVERIFY(d);
    QVERIFY2(d->message.find("4 numbers") != std::string::npos, d->message.c_str());
    QVERIFY2(d->message.find("total_size = 1152921504606846976") != std::string::npos, d->message.c_str());
    QVERIFY(d->offset > 0);
    // Device 0's counters stay what its good entries say; device 1's would pass 2^50: not drawn.
    for (const Track &t : b.tracks()) {
        QVERIFY(t.device == 0 || t.kind != TrackKind::MemoryAllocated);
        for (const double v : t.counter.values)
            QVERIFY(v >= 0 && v < double(std::int64_t(1) << 50));
    }
}

void TestSnapshot::snapshotWithGlobalIsRejected()
{
    // Looks like a snapshot, then asks for os.system: rejected with its offset, nothing kept.
    std::string bytes("\x80\x02}X\x08\x00\x00\x00segments", 16);
    bytes += "cos\nsystem\n.";
    const SourceBuilder b = importBytes(bytes);
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QCOMPARE(b.source().errorCount(), std::size_t(1));
    QCOMPARE(b.source().diagnostics[0].offset, std::int64_t(16));
    QVERIFY(b.allocator().segments.empty());
}

namespace {

// A segment dict; `withAddresses` false writes PyTorch 2.0 blocks (no address, a history list).
void segmentDict(Pickle &p, int device, std::int64_t address, const std::vector<std::pair<std::int64_t, bool>> &blocks,
                 bool withAddresses, const std::string &type = "large")
{
    std::int64_t total = 0, allocated = 0;
    for (const auto &[size, live] : blocks) {
        total += size;
        allocated += live ? size : 0;
    }
    p.dict().mark().str("device").integer(device).str("address").integer(address).str("total_size").integer(total)
        .str("allocated_size").integer(allocated).str("active_size").integer(allocated).str("requested_size").integer(allocated)
        .str("stream").integer(0).str("segment_type").str(type);
    p.str("blocks").list().mark();
    std::int64_t at = address;
    for (const auto &[size, live] : blocks) {
        p.dict().mark();
        if (withAddresses)
            p.str("address").integer(at);
        p.str("size").integer(size).str("requested_size").integer(live ? size : 0)
            .str("state").str(live ? "active_allocated" : "inactive");
        if (!withAddresses && live) {
            p.str("history").list().mark();
            p.dict().mark().str("addr").integer(at).str("real_size").integer(size).str("frames").list().mark();
            frame(p, "old.py", 1, "earlier");
            p.appends().setItems();
            p.dict().mark().str("addr").integer(at).str("real_size").integer(size).str("frames").list().mark();
            frame(p, "alloc.py", 190, "allocate");
            frame(p, "model.py", 12, "init_weight");
            p.appends().setItems();
            p.appends();
        }
        p.setItems();
        at += size;
    }
    p.appends().setItems();
}

} // namespace

void TestSnapshot::bareSegmentList()
{
    // What torch.cuda.memory_snapshot() returns: the segment list alone, here on devices 1 and 2.
    constexpr std::int64_t MiB = 1 << 20;
    Pickle p;
    p.list().mark();
    segmentDict(p, 1, 0x7f0000000000LL, {{2 * MiB, true}, {2 * MiB, false}}, true);
    segmentDict(p, 2, 0x7f1000000000LL, {{MiB, true}, {MiB / 2, true}, {MiB / 2, false}}, true, "small");
    p.appends();
    const SourceBuilder b = importBytes(p.done(), "memory_snapshot.pkl");
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QVERIFY2(b.source().diagnostics.empty(), b.source().diagnostics.empty() ? "" : b.source().diagnostics[0].message.c_str());
    QCOMPARE(b.source().counts.segments, 2);
    QCOMPARE(b.source().counts.traceEntries, 0);
    QVERIFY(!b.source().hasClock);
    const auto &segs = b.allocator().segments;
    QCOMPARE(segs[0].device, 1);
    QCOMPARE(segs[1].device, 2);
    QVERIFY(!segs[1].large);
    QCOMPARE(segs[1].allocatedSize, MiB + MiB / 2);
    QCOMPARE(segs[1].blocks[2].address, std::uint64_t(0x7f1000000000LL + MiB + MiB / 2));
    QVERIFY(b.tracks().empty());
}

void TestSnapshot::pt20BlockHistory()
{
    // PyTorch 2.0: blocks without an address, a per-block history, one "snapshot" trace entry.
    constexpr std::int64_t MiB = 1 << 20;
    Pickle p;
    p.dict().mark().str("segments").list().mark();
    segmentDict(p, 0, 0x7f5c2a000000LL, {{4 * MiB, true}, {2 * MiB, false}, {2 * MiB, true}}, false);
    p.appends();
    p.str("device_traces").list().mark().list().mark();
    p.dict().mark().str("action").str("snapshot").str("addr").integer(0).str("size").integer(6 * MiB).str("stream").integer(0).setItems();
    p.appends().appends();
    p.setItems();
    const SourceBuilder b = importBytes(p.done(), "oom_snapshot.pickle");
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(b.source().counts.segments, 1);
    QCOMPARE(b.source().counts.traceEntries, 1);
    const SegmentRecord &seg = b.allocator().segments.at(0);
    QCOMPARE(seg.blocks.size(), std::size_t(3));
    // The blocks tile the segment, so their addresses follow from the sizes.
    QCOMPARE(seg.blocks[0].address, std::uint64_t(0x7f5c2a000000LL));
    QCOMPARE(seg.blocks[1].address, std::uint64_t(0x7f5c2a000000LL + 4 * MiB));
    QCOMPARE(seg.blocks[2].address, std::uint64_t(0x7f5c2a000000LL + 6 * MiB));
    // The newest history entry says who holds the block now.
    QVERIFY(seg.blocks[0].stack >= 0);
    QCOMPARE(seg.blocks[1].stack, -1);
    const auto &stack = b.allocator().stacks[std::size_t(seg.blocks[0].stack)];
    QCOMPARE(stack.size(), std::size_t(2));
    QCOMPARE(stack[0].name, std::string("allocate"));
    QCOMPARE(stack[0].line, 190);
    const Track *allocated = track(b, TrackKind::MemoryAllocated);
    QVERIFY(allocated);
    QCOMPARE(allocated->counter.values.back(), 6.0 * MiB);
}

void TestSnapshot::badStructures_data()
{
    // Each starts like a snapshot (so the sniffer claims it) and then goes wrong.
    const std::string head("\x80\x02}X\x08\x00\x00\x00segments", 16);
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("code");
    QTest::addColumn<qint64>("offset");
    std::string frame("\x80\x04\x95", 3);
    frame += std::string("\x00\x00\x00\x00\x00\x00\x00\x40", 8); // 2^62 bytes announced
    frame += std::string("}\x8c\x08segments]u.", 14);
    QTest::newRow("FRAME of 2^62 bytes") << QByteArray(frame.data(), qsizetype(frame.size())) << "pickle-bad-frame" << qint64(2);
    std::string nested = head + std::string(1500, ']') + std::string(1499, 'a') + "s.";
    QTest::newRow("lists nested 1500 deep") << QByteArray(nested.data(), qsizetype(nested.size())) << "pickle-too-deep"
                                            << qint64(16 + 1500 + 1000);
    std::string marks = head + std::string(5000, '(');
    QTest::newRow("5000 nested MARKs") << QByteArray(marks.data(), qsizetype(marks.size())) << "pickle-too-deep" << qint64(16 + 1000);
    std::string cut = head + std::string("]X\x20\x00\x00\x00" "abc", 9);
    QTest::newRow("truncated string") << QByteArray(cut.data(), qsizetype(cut.size())) << "pickle-truncated" << qint64(22);
    std::string global = head + "cos\nsystem\n.";
    QTest::newRow("global") << QByteArray(global.data(), qsizetype(global.size())) << "pickle-forbidden" << qint64(16);
    std::string notSnapshot = head + "Ns.";
    QTest::newRow("segments is not a list") << QByteArray(notSnapshot.data(), qsizetype(notSnapshot.size()))
                                            << "snapshot-no-segments" << qint64(-1);
}

void TestSnapshot::badStructures()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, code);
    QFETCH(qint64, offset);
    const SourceBuilder b = importBytes(bytes.toStdString());
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QCOMPARE(b.source().diagnostics.size(), std::size_t(1)); // never "nothing read" in silence
    QCOMPARE(QString::fromStdString(b.source().diagnostics[0].code), code);
    QCOMPARE(qint64(b.source().diagnostics[0].offset), offset);
    QVERIFY(b.allocator().segments.empty());
}

void TestSnapshot::realSnapshots_data()
{
    // Expected values were read separately with Python's pickle (a find_class that refuses all).
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("segments");
    QTest::addColumn<int>("entries");
    QTest::addColumn<int>("allocs");
    QTest::addColumn<bool>("clock");
    QTest::addColumn<qint64>("finalAllocated");
    QTest::addColumn<qint64>("peakAllocated");
    QTest::newRow("ftcourse (no time_us)") << "ftcourse/memory_snapshot.pickle" << 215 << 10307 << 3505 << false
                                           << qint64(2297283072) << qint64(5888007460);
    QTest::newRow("cs336 (time_us)") << "cs336_magma27/memory_snapshot.pickle" << 216 << 5163 << 1721 << true
                                     << qint64(1377753600) << qint64(13927832064);
    QTest::newRow("no history") << "select_n_no_history/snapshot.pickle" << 40 << 0 << 0 << false << qint64(-1) << qint64(-1);
    QTest::newRow("bare list (memory_snapshot())") << "layoutediting_list/memory_snapshot.pkl" << 255 << 0 << 0 << false
                                                   << qint64(-1) << qint64(-1);
    QTest::newRow("PT 2.0 (block history)") << "flexgen_pt20/oom_snapshot.pickle" << 176 << 1 << 0 << false
                                            << qint64(11840159744) << qint64(11840159744);
}

void TestSnapshot::realSnapshots()
{
    QFETCH(QString, file);
    QFETCH(int, segments);
    QFETCH(int, entries);
    QFETCH(int, allocs);
    QFETCH(bool, clock);
    QFETCH(qint64, finalAllocated);
    QFETCH(qint64, peakAllocated);
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/") + file;
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("memory-snapshot"));
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    QCOMPARE(int(b.source().counts.segments), segments);
    QCOMPARE(int(b.source().counts.traceEntries), entries);
    QCOMPARE(int(b.allocator().allocations.size()), allocs);
    QCOMPARE(b.source().hasClock, clock);
    const Track *allocated = track(b, TrackKind::MemoryAllocated);
    if (finalAllocated < 0) {
        QVERIFY(!allocated);
        return;
    }
    QCOMPARE(qint64(allocated->counter.values.back()), finalAllocated);
    QCOMPARE(qint64(*std::max_element(allocated->counter.values.begin(), allocated->counter.values.end())), peakAllocated);
    QVERIFY(!b.allocator().stacks.empty());
}

void TestSnapshot::realSnapshotContents_data()
{
    // Read separately with Python's pickle (a find_class that refuses all); SOURCES.md states the
    // layoutediting and flexgen figures (3480.0 MiB, 3198.3 MiB, 11296.0 MiB, 4.34 MiB free, ...).
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("device");
    QTest::addColumn<int>("large");
    QTest::addColumn<int>("small");
    QTest::addColumn<qint64>("reserved");
    QTest::addColumn<qint64>("allocated");
    QTest::addColumn<int>("liveBlocks");
    QTest::addColumn<int>("freeBlocks");
    QTest::addColumn<qint64>("freeBytes");
    QTest::addColumn<qint64>("largestFree");
    QTest::addColumn<qint64>("largestSegment");
    QTest::newRow("layoutediting (list, device 1)") << "layoutediting_list/memory_snapshot.pkl" << 1 << 123 << 132
                                                    << qint64(3649044480) << qint64(3353639424) << 1938 << 202
                                                    << qint64(295405056) << qint64(31457280) << qint64(134217728);
    QTest::newRow("flexgen (PT 2.0)") << "flexgen_pt20/oom_snapshot.pickle" << 0 << 174 << 2 << qint64(11844714496)
                                      << qint64(11840159744) << 460 << 3 << qint64(4554752) << qint64(2080768)
                                      << qint64(413138944);
    QTest::newRow("select_n (device 1 of 4)") << "select_n_no_history/snapshot.pickle" << 1 << 32 << 8 << qint64(5559549952)
                                              << qint64(545266688) << 179 << 34 << qint64(5014283264) << qint64(3294625792)
                                              << qint64(3294625792);
    QTest::newRow("ftcourse") << "ftcourse/memory_snapshot.pickle" << 0 << 164 << 51 << qint64(6471811072) << qint64(2297283072)
                              << 802 << 277 << qint64(4174528000) << qint64(130023424) << qint64(262144000);
    QTest::newRow("cs336") << "cs336_magma27/memory_snapshot.pickle" << 0 << 208 << 8 << qint64(14180941824)
                           << qint64(1377753600) << 229 << 226 << qint64(12803188224) << qint64(329252864) << qint64(329252864);
}

void TestSnapshot::realSnapshotContents()
{
    QFETCH(QString, file);
    QFETCH(int, device);
    QFETCH(int, large);
    QFETCH(int, small);
    QFETCH(qint64, reserved);
    QFETCH(qint64, allocated);
    QFETCH(int, liveBlocks);
    QFETCH(int, freeBlocks);
    QFETCH(qint64, freeBytes);
    QFETCH(qint64, largestFree);
    QFETCH(qint64, largestSegment);
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/") + file;
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().errorCount(), std::size_t(0));
    int nLarge = 0, nSmall = 0, nLive = 0, nFree = 0, misplaced = 0;
    qint64 total = 0, alloc = 0, active = 0, free = 0, maxFree = 0, maxSegment = 0;
    for (const SegmentRecord &seg : b.allocator().segments) {
        QCOMPARE(seg.device, device);
        (seg.large ? nLarge : nSmall)++;
        total += seg.totalSize;
        alloc += seg.allocatedSize;
        active += seg.activeSize;
        maxSegment = std::max<qint64>(maxSegment, seg.totalSize);
        std::uint64_t at = seg.address;
        for (const auto &blk : seg.blocks) {
            misplaced += blk.address != at;
            at += std::uint64_t(blk.size);
            if (blk.state == SegmentRecord::Block::State::Allocated)
                ++nLive;
            else if (blk.state == SegmentRecord::Block::State::Inactive) {
                ++nFree;
                free += blk.size;
                maxFree = std::max<qint64>(maxFree, blk.size);
            }
        }
    }
    QCOMPARE(nLarge, large);
    QCOMPARE(nSmall, small);
    QCOMPARE(total, reserved);
    QCOMPARE(alloc, allocated);
    QCOMPARE(active, allocated); // none of these holds blocks awaiting their free
    QCOMPARE(nLive, liveBlocks);
    QCOMPARE(nFree, freeBlocks);
    QCOMPARE(free, freeBytes);
    QCOMPARE(maxFree, largestFree);
    QCOMPARE(maxSegment, largestSegment);
    QCOMPARE(misplaced, 0); // blocks tile their segment, also where the file had no addresses
    // Stacks are kept once per content: no two are equal, and every allocation and block still
    // names a stack that exists.
    const auto &stacks = b.allocator().stacks;
    std::set<std::string> contents;
    for (const auto &stack : stacks) {
        std::string key;
        for (const StackFrame &f : stack)
            key += f.filename + '\0' + f.name + '\0' + std::to_string(f.line) + '\n';
        QVERIFY(contents.insert(key).second);
    }
    for (const AllocationRecord &a : b.allocator().allocations)
        QVERIFY(a.stack < std::int32_t(stacks.size()));
    for (const SegmentRecord &seg : b.allocator().segments)
        for (const auto &blk : seg.blocks)
            QVERIFY(blk.stack < std::int32_t(stacks.size()));
}

void TestSnapshot::timelineRawFixture()
{
    const SourceBuilder b = importBytes("[[-1, 1, 1000, 0], [1700000000000000000, 2, 500, 4], [1700000000000000000, 3, -500, 4],"
                                        " [1700000000000000000, 3, 500, 5], [1700000000500000000, 4, -1000, 0]]",
                                        "timeline.raw.json");
    QCOMPARE(b.source().format, std::string("memory-timeline"));
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.traceEntries, 5);
    QVERIFY(b.source().hasClock);
    const Track *total = nullptr;
    for (const Track &t : b.tracks())
        if (b.str(t.name) == "Memory timeline: total")
            total = &t;
    QVERIFY(total);
    QCOMPARE(total->counter.values, std::vector<double>({1500, 500}));
    QCOMPARE(total->counter.times.front(), TimeNs(1700000000000000000));
}

void TestSnapshot::timelinePlainFixture()
{
    const SourceBuilder b = importBytes("[[1700000000000000000, 1700000001000000000], [[10, 20, 0, 0, 5, 0, 0, 0], [10, 20, 0, 0, 50, 0, 0, 1]]]",
                                        "timeline.json");
    QCOMPARE(b.source().format, std::string("memory-timeline"));
    QCOMPARE(b.source().counts.traceEntries, 2);
    int tracks = 0;
    for (const Track &t : b.tracks()) {
        ++tracks;
        if (b.str(t.name) == "Memory timeline: activation")
            QCOMPARE(t.counter.values, std::vector<double>({5, 50}));
        if (b.str(t.name) == "Memory timeline: total")
            QCOMPARE(t.counter.values, std::vector<double>({35, 81}));
    }
    QCOMPARE(tracks, 9);
}

void TestSnapshot::realTimeline()
{
    const QString path = QStringLiteral(RANKSCOPE_SAMPLES_DIR "/snapshot/hta_memory_timeline/memory_timeline.raw.gz");
    if (!QFile::exists(path))
        QSKIP("shared samples are not present");
    ImportContext ctx;
    const SourceBuilder b = ImporterRegistry::instance().importFile(path.toStdString(), ctx);
    QCOMPARE(b.source().format, std::string("memory-timeline"));
    QCOMPARE(b.source().compression, Compression::Gzip);
    QVERIFY(b.source().diagnostics.empty());
    QCOMPARE(b.source().counts.traceEntries, 16845);
    QVERIFY(b.source().hasClock);
    for (const Track &t : b.tracks()) {
        // Final levels read separately with Python's json module.
        if (b.str(t.name) == "Memory timeline: total")
            QCOMPARE(t.counter.values.back(), 332060904.0);
        if (b.str(t.name) == "Memory timeline: gradient")
            QCOMPARE(t.counter.values.back(), 107868160.0);
    }
    QCOMPARE(b.source().timeRange.begin, TimeNs(1696966047096061874));
}

QTEST_GUILESS_MAIN(TestSnapshot)
#include "test_snapshot.moc"
