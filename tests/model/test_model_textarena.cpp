// TextArena: what is added reads back whole whatever its size and wherever chunks end; a lazy
// arena over the same entries loads only the chunks of what is read, once, and a chunk that cannot
// be loaded any more reads as empty and is counted, never as another entry's text.

#include "textarena.h"

#include <QTest>

#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace rs;

namespace {

// Chunks cut from the texts an arena was filled with, as the cache's blocks are; counts loads.
class Blocks final : public TextArena::ChunkLoader
{
public:
    Blocks(std::vector<std::string> chunks, bool failing = false) : m_chunks(std::move(chunks)), m_failing(failing) {}
    std::unique_ptr<char[]> load(std::uint32_t chunk, std::size_t bytes) const override
    {
        ++loads;
        if (m_failing || chunk >= m_chunks.size() || m_chunks[chunk].size() != bytes)
            return nullptr;
        std::unique_ptr<char[]> out(new char[bytes]);
        std::memcpy(out.get(), m_chunks[chunk].data(), bytes);
        return out;
    }
    mutable std::atomic<int> loads{0};

private:
    std::vector<std::string> m_chunks;
    bool m_failing;
};

std::vector<std::string> texts(int count, int seed)
{
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) {
        // Lengths from 1 byte to past a whole chunk, each text telling its own number.
        const std::size_t n = i % 97 == 0 ? TextArena::kChunkBytes + 10 : std::size_t(1 + (i * 7919 + seed) % 300);
        std::string t = std::to_string(i) + ":";
        while (t.size() < n)
            t += char('a' + (i + int(t.size())) % 26);
        out.push_back(t.substr(0, std::max<std::size_t>(n, 1)));
    }
    return out;
}

} // namespace

class TestTextArena : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void readsBackWhatWasAdded_data();
    void readsBackWhatWasAdded();
    void lazyLoadsOnlyWhatIsRead();
    void unloadableChunkReadsEmpty();
    void mismatchedChunksAreRefused();
};

void TestTextArena::readsBackWhatWasAdded_data()
{
    QTest::addColumn<int>("count");
    QTest::newRow("one") << 1;
    QTest::newRow("within the first chunk") << 90;
    QTest::newRow("across chunks, with texts larger than a chunk") << 400;
}

void TestTextArena::readsBackWhatWasAdded()
{
    QFETCH(int, count);
    const std::vector<std::string> in = texts(count, count);
    TextArena arena;
    QCOMPARE(arena.add(""), kNoText);
    std::vector<TextId> ids;
    for (const std::string &t : in)
        ids.push_back(arena.add(t));
    QCOMPARE(arena.count(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        QCOMPARE(ids[i], TextId(i + 1));
        QVERIFY2(arena.view(ids[i]) == in[i], qPrintable(QString::number(i)));
    }
    QVERIFY(arena.view(kNoText).empty());
    QVERIFY(arena.view(TextId(in.size() + 1)).empty());
    // Moved, the views stay where they were: chunks never move.
    const std::string_view before = arena.view(ids.back());
    TextArena moved = std::move(arena);
    QCOMPARE(moved.view(ids.back()).data(), before.data());
}

void TestTextArena::lazyLoadsOnlyWhatIsRead()
{
    const std::vector<std::string> in = texts(2000, 3);
    std::vector<std::uint32_t> lengths;
    for (const std::string &t : in)
        lengths.push_back(std::uint32_t(t.size()));
    const std::size_t maxBlock = 64u << 10;
    const std::vector<std::size_t> sizes = TextArena::packChunks(lengths, maxBlock);
    std::vector<std::string> chunks;
    std::size_t next = 0;
    for (std::size_t size : sizes) {
        std::string c;
        while (c.size() < size)
            c += in[next++];
        QCOMPARE(c.size(), size); // chunks end between entries
        chunks.push_back(std::move(c));
    }
    QCOMPARE(next, in.size());
    QVERIFY(chunks.size() > 10);
    auto blocks = std::make_shared<Blocks>(chunks);
    TextArena lazy;
    QVERIFY(lazy.setLazy(lengths, sizes, blocks));
    QVERIFY(lazy.isLazy());
    QCOMPARE(lazy.count(), in.size());
    QVERIFY(lazy.memoryBytes() < 4 * in.size() + 1024 + 16 * sizes.size());
    QCOMPARE(blocks->loads.load(), 0);
    // One entry read loads its chunk alone, once.
    const std::size_t idle = lazy.memoryBytes();
    QVERIFY(lazy.view(TextId(in.size())) == in.back());
    QVERIFY(lazy.view(TextId(in.size())) == in.back());
    QCOMPARE(blocks->loads.load(), 1);
    QCOMPARE(lazy.memoryBytes() - idle, sizes.back());
    for (std::size_t i = 0; i < in.size(); ++i)
        QVERIFY2(lazy.view(TextId(i + 1)) == in[i], qPrintable(QString::number(i)));
    QCOMPARE(blocks->loads.load(), int(chunks.size()));
    QCOMPARE(lazy.failedChunks(), std::size_t(0));
}

void TestTextArena::unloadableChunkReadsEmpty()
{
    const std::vector<std::uint32_t> lengths{5, 7, 9};
    const std::vector<std::size_t> sizes = TextArena::packChunks(lengths, 12);
    QCOMPARE(sizes, (std::vector<std::size_t>{12, 9})); // 5 + 7 fill the first chunk
    auto blocks = std::make_shared<Blocks>(std::vector<std::string>{}, true);
    TextArena lazy;
    QVERIFY(lazy.setLazy(lengths, sizes, blocks));
    QVERIFY(lazy.view(2).empty());
    QVERIFY(lazy.view(2).empty());
    QCOMPARE(blocks->loads.load(), 1); // a failed chunk is not asked for again
    QCOMPARE(lazy.failedChunks(), std::size_t(1));
}

void TestTextArena::mismatchedChunksAreRefused()
{
    TextArena lazy;
    auto none = std::make_shared<Blocks>(std::vector<std::string>{});
    QVERIFY(!lazy.setLazy({5, 7}, {6, 6}, none));      // a chunk ends inside an entry
    QVERIFY(!lazy.setLazy({5, 7}, {12, 3}, none));     // a chunk with no entry
    QVERIFY(!lazy.setLazy({5, 7}, {5}, none));         // entries past the last chunk
    QVERIFY(!lazy.setLazy({5, 0}, {5}, none));         // an empty entry
    QVERIFY(!lazy.setLazy({5}, {5, 0}, none));         // an empty chunk
    QVERIFY(lazy.setLazy({5, 7}, {12}, none));
    QVERIFY(lazy.setLazy({}, {}, none));
    QCOMPARE(lazy.count(), std::size_t(0));
}

QTEST_GUILESS_MAIN(TestTextArena)
#include "test_model_textarena.moc"
