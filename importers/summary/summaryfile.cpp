#include "summaryfile.h"

#include "cache/sourcearchive.h"

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <map>

#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <unistd.h>

namespace rs {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TimeRange, begin, end)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SummaryFacts::StepInputs, track, step, microBatches, inputElements, hasElements)
} // namespace rs

namespace nlohmann {
// std::optional as null or the value (nlohmann 3.11 has no built-in conversion).
template <typename T>
struct adl_serializer<std::optional<T>> {
    static void to_json(json &j, const std::optional<T> &v) { j = v ? json(*v) : json(nullptr); }
    static void from_json(const json &j, std::optional<T> &v)
    {
        if (j.is_null())
            v.reset();
        else
            v = j.get<T>();
    }
};
} // namespace nlohmann

namespace rs {
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SummaryFacts::Rise, track, from, to, bytes, spanCause, backwardAfterNs)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(SummaryFacts, originPath, originAbsolute, originFormat, originBytes, originMtimeNs, originSha256,
                                   writer, originRange, rises, steps, samplesKept, samplesDropped, spansKept, spansDropped)

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Db {
    sqlite3 *db = nullptr;
    ~Db()
    {
        if (db)
            sqlite3_close_v2(db);
    }
};

[[noreturn]] void fail(sqlite3 *db, const char *what)
{
    throw std::runtime_error(std::string(what) + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

void exec(sqlite3 *db, const std::string &sql)
{
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
        fail(db, "SQLite");
}

struct Stmt {
    sqlite3_stmt *s = nullptr;
    Stmt(sqlite3 *db, const char *sql)
    {
        if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
            fail(db, "SQLite");
    }
    ~Stmt() { sqlite3_finalize(s); }
    bool step()
    {
        const int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            fail(sqlite3_db_handle(s), "SQLite");
        return false;
    }
    void reset()
    {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
    }
    std::string text(int col) const
    {
        const auto *p = static_cast<const char *>(sqlite3_column_blob(s, col));
        return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s, col))) : std::string();
    }
};

} // namespace

bool SummaryFile::sniff(std::string_view head)
{
    static constexpr std::string_view kMagic("SQLite format 3\0", 16);
    if (head.size() < 72 || head.substr(0, 16) != kMagic)
        return false;
    const auto *b = reinterpret_cast<const unsigned char *>(head.data()) + 68; // application_id, big-endian
    return ((std::uint32_t(b[0]) << 24) | (std::uint32_t(b[1]) << 16) | (std::uint32_t(b[2]) << 8) | b[3])
        == std::uint32_t(kApplicationId);
}

bool SummaryFile::write(const std::string &path, const SourceBuilder &source, std::string *why)
{
    if (!source.source().summary) {
        if (why)
            *why = "the source has no summary facts";
        return false;
    }
    // Written beside the target and renamed over it: a reader never sees half a summary.
    const std::string temp = path + ".part-" + std::to_string(::getpid());
    std::error_code ec;
    fs::remove(temp, ec);
    try {
        const std::vector<SourceArchive::Column> columns = SourceArchive::write(source);
        {
            Db db;
            if (sqlite3_open_v2(temp.c_str(), &db.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK)
                fail(db.db, "cannot create the summary");
            exec(db.db, "PRAGMA application_id=" + std::to_string(kApplicationId) + "; PRAGMA user_version=1;"
                        " PRAGMA journal_mode=DELETE; BEGIN;"
                        " CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                        " CREATE TABLE columns(name TEXT, block INTEGER, raw INTEGER, data BLOB, PRIMARY KEY(name, block));");
            Stmt meta(db.db, "INSERT INTO meta(key, value) VALUES(?1, ?2)");
            const json facts = *source.source().summary;
            for (const auto &[k, v] : {std::pair<std::string, std::string>{"schema", kSchema},
                                       {"layout", SourceArchive::layoutId()},
                                       {"writer", source.source().summary->writer},
                                       {"facts", facts.dump()}}) {
                sqlite3_bind_text(meta.s, 1, k.data(), int(k.size()), SQLITE_TRANSIENT);
                sqlite3_bind_text(meta.s, 2, v.data(), int(v.size()), SQLITE_TRANSIENT);
                meta.step();
                meta.reset();
            }
            Stmt put(db.db, "INSERT INTO columns(name, block, raw, data) VALUES(?1, ?2, ?3, ?4)");
            for (const SourceArchive::Column &c : columns)
                for (std::size_t b = 0; b < c.blocks.size(); ++b) {
                    sqlite3_bind_text(put.s, 1, c.name.data(), int(c.name.size()), SQLITE_TRANSIENT);
                    sqlite3_bind_int64(put.s, 2, std::int64_t(b));
                    sqlite3_bind_int64(put.s, 3, std::int64_t(c.blockRaw[b]));
                    sqlite3_bind_blob64(put.s, 4, c.blocks[b].data(), c.blocks[b].size(), SQLITE_STATIC);
                    put.step();
                    put.reset();
                }
            exec(db.db, "COMMIT");
        }
        fs::rename(temp, path);
        return true;
    } catch (const std::exception &e) {
        fs::remove(temp, ec);
        if (why)
            *why = e.what();
        return false;
    }
}

std::optional<SourceBuilder> SummaryFile::read(std::string bytes, std::string *why)
{
    auto no = [why](std::string reason) -> std::optional<SourceBuilder> {
        if (why)
            *why = std::move(reason);
        return std::nullopt;
    };
    if (!sniff(bytes))
        return no("not a rankscope summary (no SQLite header with application id RSSU)");
    try {
        Db db;
        if (sqlite3_open_v2(":memory:", &db.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
            fail(db.db, "SQLite");
        // Read in place from memory: SQLite neither copies nor frees the buffer.
        if (sqlite3_deserialize(db.db, "main", reinterpret_cast<unsigned char *>(bytes.data()), sqlite3_int64(bytes.size()),
                                sqlite3_int64(bytes.size()), SQLITE_DESERIALIZE_READONLY)
            != SQLITE_OK)
            fail(db.db, "not readable as a database");
        std::map<std::string, std::string> meta;
        Stmt q(db.db, "SELECT key, value FROM meta");
        while (q.step())
            meta[q.text(0)] = q.text(1);
        if (meta["schema"] != kSchema)
            return no("summary schema \"" + meta["schema"] + "\" is not " + kSchema);
        if (meta["layout"] != SourceArchive::layoutId())
            return no("written by a RankScope with another model layout (" + meta["layout"] + "); summarize the file again");
        auto facts = std::make_shared<SummaryFacts>(json::parse(meta["facts"]).get<SummaryFacts>());

        std::map<std::string, SourceArchive::Column> byName;
        Stmt c(db.db, "SELECT name, raw, data FROM columns ORDER BY name, block");
        while (c.step()) {
            SourceArchive::Column &col = byName[c.text(0)];
            col.name = c.text(0);
            const auto raw = static_cast<std::uint64_t>(sqlite3_column_int64(c.s, 1));
            col.rawBytes += raw;
            col.blockRaw.push_back(raw);
            col.blocks.push_back(c.text(2));
        }
        std::vector<SourceArchive::Column> columns;
        for (auto &[name, col] : byName)
            columns.push_back(std::move(col));
        std::string error;
        std::optional<SourceBuilder> source = SourceArchive::read(columns, &error);
        if (!source)
            return no("its model does not check out: " + error);
        source->source().format = "summary";
        source->source().summary = std::move(facts);
        return source;
    } catch (const std::exception &e) {
        return no(std::string("unreadable summary: ") + e.what());
    }
}

} // namespace rs
