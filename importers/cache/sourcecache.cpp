#include "sourcecache.h"

#include "sourcearchive.h"
#include "sqlite.h"

#include <QCryptographicHash>

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>

namespace rs {

namespace {

namespace fs = std::filesystem;

// Bumped when the tables change; a database of another version is dropped and made anew.
constexpr int kSchemaVersion = 2;

std::int64_t nowSeconds()
{
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The program that imports: a rebuilt importer may read the same file differently, so its entries
// are not reused. The executable's size and mtime change with every build.
const std::string &programIdentity()
{
    static const std::string id = [] {
        std::error_code ec;
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        if (ec)
            return std::string("unknown-program");
        const auto size = fs::file_size(exe, ec);
        const auto mtime = fs::last_write_time(exe, ec).time_since_epoch().count();
        return exe.string() + ":" + std::to_string(size) + ":" + std::to_string(mtime);
    }();
    return id;
}

using namespace rs::sqlite;

// Opens (creating) the database; a file that is not a database of this schema is replaced.
std::unique_ptr<Db> open(const std::string &dir, const std::string &path)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    // Threads of this process set the database up one at a time; other processes may still race
    // (switching to WAL is not covered by the busy timeout), so a busy setup is tried again.
    static std::mutex setup;
    std::lock_guard lock(setup);
    for (int attempt = 0, busy = 0; attempt < 2; ++attempt) {
        auto db = std::make_unique<Db>();
        if (sqlite3_open_v2(path.c_str(), &db->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr)
            != SQLITE_OK)
            throw std::runtime_error(db->db ? sqlite3_errmsg(db->db) : "cannot open the cache database");
        sqlite3_busy_timeout(db->db, 20000);
        try {
            exec(db->db, "PRAGMA journal_mode=WAL");
            // Columns are read through a memory map of the database (up to SQLite's own ceiling)
            // rather than copied page by page through read().
            exec(db->db, "PRAGMA mmap_size=2147418112");
            Stmt version(db->db, "PRAGMA user_version");
            version.step();
            const int found = sqlite3_column_int(version.s, 0);
            if (found != kSchemaVersion) {
                exec(db->db, "BEGIN IMMEDIATE");
                // Another thread or process may have made the tables while this one waited.
                Stmt again(db->db, "PRAGMA user_version");
                again.step();
                if (sqlite3_column_int(again.s, 0) == kSchemaVersion) {
                    again.reset();
                    exec(db->db, "COMMIT");
                    return db;
                }
                again.reset();
                exec(db->db, "DROP TABLE IF EXISTS columns; DROP TABLE IF EXISTS entries;"
                             "CREATE TABLE entries(key TEXT PRIMARY KEY, path TEXT, bytes INTEGER, created INTEGER, used INTEGER);"
                             "CREATE TABLE columns(key TEXT, name TEXT, block INTEGER, raw INTEGER, data BLOB,"
                             " PRIMARY KEY(key, name, block));");
                exec(db->db, ("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
                exec(db->db, "COMMIT");
            }
            return db;
        } catch (const SqliteError &e) {
            db.reset();
            if (e.code == SQLITE_BUSY && ++busy < 250) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                --attempt;
                continue;
            }
            // Not a database, or a damaged one: start over once. Anything else (still busy, a
            // full disk) is the caller's failure to report.
            if (attempt == 0 && e.damaged()) {
                fs::remove(path, ec);
                fs::remove(path + "-wal", ec);
                fs::remove(path + "-shm", ec);
                continue;
            }
            throw;
        }
    }
    throw std::runtime_error("cannot open the cache database");
}

// The columns of one entry but its lazy text columns (args, log messages), which stay in the
// cache until an entry of them is viewed.
class SqliteColumns final : public SourceArchive::ColumnSource
{
public:
    SqliteColumns(sqlite3 *db, std::string key)
        : m_key(std::move(key))
        , m_read(db, "SELECT raw, data FROM columns WHERE key = ?1 AND name = ?2 ORDER BY block")
    {
        const std::vector<std::string> &lazy = SourceArchive::lazyColumns();
        Stmt sizes(db, "SELECT name, SUM(raw) FROM columns WHERE key = ?1 GROUP BY name");
        sizes.text(1, m_key);
        while (sizes.step()) {
            std::string name(reinterpret_cast<const char *>(sqlite3_column_text(sizes.s, 0)), sqlite3_column_bytes(sizes.s, 0));
            if (std::find(lazy.begin(), lazy.end(), name) == lazy.end())
                m_raw[std::move(name)] = static_cast<std::uint64_t>(sqlite3_column_int64(sizes.s, 1));
        }
    }
    bool empty() const { return m_raw.empty(); }
    bool has(const std::string &name) const override { return m_raw.count(name) > 0; }
    std::uint64_t rawBytes(const std::string &name) const override
    {
        const auto it = m_raw.find(name);
        if (it == m_raw.end())
            throw std::runtime_error("column " + name + " is missing");
        return it->second;
    }
    void read(const std::string &name, char *out) const override
    {
        const std::uint64_t total = rawBytes(name);
        m_read.reset();
        m_read.text(1, m_key).text(2, name);
        std::uint64_t at = 0;
        while (m_read.step()) {
            const auto n = static_cast<std::uint64_t>(sqlite3_column_int64(m_read.s, 0));
            const std::string_view frame(static_cast<const char *>(sqlite3_column_blob(m_read.s, 1)),
                                         static_cast<std::size_t>(sqlite3_column_bytes(m_read.s, 1)));
            if (at + n > total || !SourceArchive::decompressBlock(frame, out + at, n))
                throw std::runtime_error("column " + name + " is damaged");
            at += n;
        }
        if (at != total)
            throw std::runtime_error("column " + name + " is shorter than recorded");
    }

private:
    std::string m_key;
    mutable Stmt m_read;
    std::map<std::string, std::uint64_t, std::less<>> m_raw;
};

// A lazy arena's chunks: the blocks of its entry's text column, read when first viewed. An entry
// evicted or cleared since gives nothing: those texts view as empty and the arena counts the chunk
// as failed (the log view says the message is gone from the cache).
class ColumnBlocks final : public TextArena::ChunkLoader
{
public:
    ColumnBlocks(std::string dir, std::string path, std::string key, std::string column)
        : m_dir(std::move(dir))
        , m_path(std::move(path))
        , m_key(std::move(key))
        , m_column(std::move(column))
    {
    }

    std::unique_ptr<char[]> load(std::uint32_t chunk, std::size_t bytes) const override
    {
        try {
            auto db = open(m_dir, m_path);
            Stmt q(db->db, "SELECT data FROM columns WHERE key = ?1 AND name = ?2 AND block = ?3");
            q.text(1, m_key).text(2, m_column).integer(3, chunk);
            if (!q.step())
                return nullptr;
            std::unique_ptr<char[]> out(new char[bytes]); // not zeroed: every byte is written
            const std::string_view frame(static_cast<const char *>(sqlite3_column_blob(q.s, 0)),
                                         static_cast<std::size_t>(sqlite3_column_bytes(q.s, 0)));
            return SourceArchive::decompressBlock(frame, out.get(), bytes) ? std::move(out) : nullptr;
        } catch (const std::exception &) {
            return nullptr;
        }
    }

private:
    std::string m_dir, m_path, m_key, m_column;
};

// Least recently used entries go first while the cache is over `limit` (never `keep`, the one
// just written).
void evict(sqlite3 *db, std::int64_t limit, const std::string &keep)
{
    Stmt total(db, "SELECT COALESCE(SUM(bytes), 0) FROM entries");
    total.step();
    std::int64_t held = sqlite3_column_int64(total.s, 0);
    if (held <= limit)
        return;
    Stmt oldest(db, "SELECT key, bytes FROM entries WHERE key != ?1 ORDER BY used, created");
    oldest.text(1, keep);
    std::vector<std::string> gone;
    while (held > limit && oldest.step()) {
        gone.emplace_back(reinterpret_cast<const char *>(sqlite3_column_text(oldest.s, 0)));
        held -= sqlite3_column_int64(oldest.s, 1);
    }
    for (const std::string &k : gone) {
        Stmt c(db, "DELETE FROM columns WHERE key = ?1");
        c.text(1, k).step();
        Stmt e(db, "DELETE FROM entries WHERE key = ?1");
        e.text(1, k).step();
    }
}

} // namespace

SourceCache::SourceCache(std::string dir, std::int64_t maxBytes)
    : m_dir(std::move(dir))
    , m_maxBytes(maxBytes)
{
}

std::string SourceCache::defaultDir()
{
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "rankscope").string();
    if (const char *home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "rankscope").string();
    return (fs::temp_directory_path() / "rankscope-cache").string();
}

std::string SourceCache::databasePath() const
{
    return (fs::path(m_dir) / "sources.sqlite").string();
}

std::string SourceCache::keyOf(const std::string &path, const std::string &settings)
{
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
        return {};
    const auto size = fs::file_size(path, ec);
    if (ec)
        return {};
    const auto mtime = fs::last_write_time(path, ec).time_since_epoch().count();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return {};
    // The content, sampled: the head and tail (where a rewrite or a cut shows first) and 16 slices
    // spread over the file. Hashing every byte would cost as much as a fast import.
    QCryptographicHash hash(QCryptographicHash::Sha256);
    const auto slice = [&](std::uint64_t at, std::uint64_t n) {
        std::string buf(n, '\0');
        in.seekg(static_cast<std::streamoff>(at));
        in.read(buf.data(), static_cast<std::streamsize>(n));
        hash.addData(QByteArrayView(buf.data(), in.gcount()));
        in.clear();
    };
    constexpr std::uint64_t kEdge = 1u << 20, kSlice = 64u << 10;
    slice(0, std::min<std::uint64_t>(size, kEdge));
    if (size > kEdge) {
        slice(size - std::min<std::uint64_t>(size - kEdge, kEdge), std::min<std::uint64_t>(size - kEdge, kEdge));
        for (int i = 1; i <= 16; ++i)
            slice(size / 17 * static_cast<std::uint64_t>(i), std::min<std::uint64_t>(kSlice, size / 17));
    }
    const std::string facts = std::to_string(size) + "|" + std::to_string(mtime) + "|" + settings + "|" + SourceArchive::layoutId() + "|"
        + programIdentity();
    hash.addData(QByteArrayView(facts.data(), static_cast<qsizetype>(facts.size())));
    return hash.result().toHex().toStdString();
}

std::optional<SourceBuilder> SourceCache::load(const std::string &key, const std::string &path, std::string *why) const
{
    if (key.empty())
        return std::nullopt;
    try {
        std::error_code ec;
        if (!fs::exists(databasePath(), ec))
            return std::nullopt;
        auto db = open(m_dir, databasePath());
        // Everything but the args' text, which stays in the cache until an entry is viewed; each
        // column is decompressed from SQLite's own buffer into the vector that keeps it.
        SqliteColumns columns(db->db, key);
        if (columns.empty())
            return std::nullopt;
        SourceArchive::LazyColumns lazy;
        for (const std::string &name : SourceArchive::lazyColumns()) {
            SourceArchive::LazyColumn &c = lazy[name];
            c.loader = std::make_shared<ColumnBlocks>(m_dir, databasePath(), key, name);
            Stmt blocks(db->db, "SELECT raw FROM columns WHERE key = ?1 AND name = ?2 ORDER BY block");
            blocks.text(1, key).text(2, name);
            while (blocks.step())
                c.blockRaw.push_back(static_cast<std::uint64_t>(sqlite3_column_int64(blocks.s, 0)));
        }
        std::string error;
        std::optional<SourceBuilder> source = SourceArchive::read(columns, &error, lazy);
        if (!source) {
            // Damaged or foreign: never trusted, dropped so the next store rewrites it.
            Stmt drop(db->db, "DELETE FROM columns WHERE key = ?1");
            drop.text(1, key).step();
            Stmt dropEntry(db->db, "DELETE FROM entries WHERE key = ?1");
            dropEntry.text(1, key).step();
            if (why)
                *why = "the cached copy is damaged (" + error + ")";
            return std::nullopt;
        }
        Stmt touch(db->db, "UPDATE entries SET used = ?2 WHERE key = ?1");
        touch.text(1, key).integer(2, nowSeconds()).step();
        source->source().path = path;
        return source;
    } catch (const std::exception &e) {
        if (const auto *sq = dynamic_cast<const SqliteError *>(&e); sq && sq->damaged())
            clear(); // a damaged database is dropped; the next store starts a new one
        if (why)
            *why = std::string("the cache could not be read: ") + e.what();
        return std::nullopt;
    }
}

bool SourceCache::store(const std::string &key, const std::string &path, SourceBuilder &source, std::string *why) const
{
    if (key.empty())
        return false;
    try {
        const std::vector<SourceArchive::Column> columns = SourceArchive::write(source);
        auto db = open(m_dir, databasePath());
        exec(db->db, "BEGIN IMMEDIATE");
        try {
            Stmt drop(db->db, "DELETE FROM columns WHERE key = ?1");
            drop.text(1, key).step();
            Stmt put(db->db, "INSERT INTO columns(key, name, block, raw, data) VALUES(?1, ?2, ?3, ?4, ?5)");
            std::int64_t bytes = 0;
            for (const SourceArchive::Column &c : columns) {
                for (std::size_t b = 0; b < c.blocks.size(); ++b) {
                    put.text(1, key).text(2, c.name).integer(3, static_cast<std::int64_t>(b))
                        .integer(4, static_cast<std::int64_t>(c.blockRaw[b])).blob(5, c.blocks[b]);
                    put.step();
                    put.reset();
                    bytes += static_cast<std::int64_t>(c.blocks[b].size());
                }
            }
            Stmt entry(db->db, "INSERT OR REPLACE INTO entries(key, path, bytes, created, used) VALUES(?1, ?2, ?3, ?4, ?4)");
            entry.text(1, key).text(2, path).integer(3, bytes).integer(4, nowSeconds()).step();
            evict(db->db, m_maxBytes, key);
            exec(db->db, "COMMIT");
            // The args and messages are kept now: what a session holds of them is what is read.
            SourceArchive::releaseTexts(source, [&](const std::string &column) {
                return std::make_shared<ColumnBlocks>(m_dir, databasePath(), key, column);
            });
        } catch (...) {
            sqlite3_exec(db->db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
        return true;
    } catch (const std::exception &e) {
        if (const auto *sq = dynamic_cast<const SqliteError *>(&e); sq && sq->damaged())
            clear();
        if (why)
            *why = std::string("the cache could not be written: ") + e.what();
        return false;
    }
}

SourceCache::Stats SourceCache::stats() const
{
    Stats s;
    std::error_code ec;
    if (!fs::exists(databasePath(), ec))
        return s;
    try {
        auto db = open(m_dir, databasePath());
        Stmt q(db->db, "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM entries");
        q.step();
        s.entries = sqlite3_column_int64(q.s, 0);
        s.bytes = sqlite3_column_int64(q.s, 1);
    } catch (const std::exception &) {
    }
    return s;
}

bool SourceCache::trim(std::string *why) const
{
    std::error_code ec;
    if (!fs::exists(databasePath(), ec))
        return true;
    try {
        auto db = open(m_dir, databasePath());
        exec(db->db, "BEGIN IMMEDIATE");
        try {
            evict(db->db, m_maxBytes, std::string());
            exec(db->db, "COMMIT");
        } catch (...) {
            sqlite3_exec(db->db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
        return true;
    } catch (const std::exception &e) {
        if (why)
            *why = e.what();
        return false;
    }
}

bool SourceCache::clear(std::string *why) const
{
    std::error_code ec;
    for (const char *suffix : {"", "-wal", "-shm"})
        fs::remove(databasePath() + suffix, ec);
    if (ec && why)
        *why = ec.message();
    return !ec;
}

} // namespace rs
