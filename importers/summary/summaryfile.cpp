#include "summaryfile.h"

#include "cache/sourcearchive.h"
#include "cache/sqlite.h"

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

using namespace rs::sqlite;

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
                throw std::runtime_error(std::string("cannot create the summary: ") + sqlite3_errmsg(db.db));
            exec(db.db, ("PRAGMA application_id=" + std::to_string(kApplicationId) + "; PRAGMA user_version=1;"
                        " PRAGMA journal_mode=DELETE; BEGIN;"
                        " CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
                        " CREATE TABLE columns(name TEXT, block INTEGER, raw INTEGER, data BLOB, PRIMARY KEY(name, block));").c_str());
            Stmt meta(db.db, "INSERT INTO meta(key, value) VALUES(?1, ?2)");
            const json facts = *source.source().summary;
            for (const auto &[k, v] : {std::pair<std::string, std::string>{"schema", kSchema},
                                       {"layout", SourceArchive::layoutId()},
                                       {"writer", source.source().summary->writer},
                                       {"facts", facts.dump()}}) {
                meta.text(1, k).text(2, v).step();
                meta.reset();
            }
            Stmt put(db.db, "INSERT INTO columns(name, block, raw, data) VALUES(?1, ?2, ?3, ?4)");
            for (const SourceArchive::Column &c : columns)
                for (std::size_t b = 0; b < c.blocks.size(); ++b) {
                    put.text(1, c.name).integer(2, std::int64_t(b)).integer(3, std::int64_t(c.blockRaw[b])).blob(4, c.blocks[b]);
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
            throw SqliteError(db.db, SQLITE_ERROR);
        // Read in place from memory: SQLite neither copies nor frees the buffer.
        if (sqlite3_deserialize(db.db, "main", reinterpret_cast<unsigned char *>(bytes.data()), sqlite3_int64(bytes.size()),
                                sqlite3_int64(bytes.size()), SQLITE_DESERIALIZE_READONLY)
            != SQLITE_OK)
            throw std::runtime_error(std::string("not readable as a database: ") + sqlite3_errmsg(db.db));
        std::map<std::string, std::string> meta;
        Stmt q(db.db, "SELECT key, value FROM meta");
        while (q.step())
            meta[bytesOf(q.s, 0)] = bytesOf(q.s, 1);
        if (meta["schema"] != kSchema)
            return no("summary schema \"" + meta["schema"] + "\" is not " + kSchema);
        if (!SourceArchive::readsLayout(meta["layout"]))
            return no("written by a RankScope with another model layout (" + meta["layout"] + "); summarize the file again");
        auto facts = std::make_shared<SummaryFacts>(json::parse(meta["facts"]).get<SummaryFacts>());

        std::map<std::string, SourceArchive::Column> byName;
        Stmt c(db.db, "SELECT name, raw, data FROM columns ORDER BY name, block");
        while (c.step()) {
            SourceArchive::Column &col = byName[bytesOf(c.s, 0)];
            col.name = bytesOf(c.s, 0);
            const auto raw = static_cast<std::uint64_t>(sqlite3_column_int64(c.s, 1));
            col.rawBytes += raw;
            col.blockRaw.push_back(raw);
            col.blocks.push_back(bytesOf(c.s, 2));
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
