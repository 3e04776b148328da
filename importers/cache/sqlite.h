#pragma once
// The few SQLite pieces the import cache and the summary files share: a failure with its result
// code, a connection that closes itself, a prepared statement with typed binds, and exec.

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace rs::sqlite {

// An SQLite failure with its result code: only a file that is not (or no longer) a database is
// thrown away; a busy or full disk is reported and the import goes on without the cache.
struct SqliteError : std::runtime_error {
    SqliteError(sqlite3 *db, int rc)
        : std::runtime_error(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc))
        , code(rc & 0xff)
    {
    }
    int code;
    bool damaged() const { return code == SQLITE_NOTADB || code == SQLITE_CORRUPT; }
};

struct Db {
    sqlite3 *db = nullptr;
    ~Db()
    {
        if (db)
            sqlite3_close_v2(db);
    }
};

struct Stmt {
    sqlite3_stmt *s = nullptr;
    Stmt(sqlite3 *db, const char *sql)
    {
        if (const int rc = sqlite3_prepare_v2(db, sql, -1, &s, nullptr); rc != SQLITE_OK)
            throw SqliteError(db, rc);
    }
    ~Stmt() { sqlite3_finalize(s); }
    Stmt &text(int i, const std::string &v)
    {
        sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Stmt &integer(int i, std::int64_t v)
    {
        sqlite3_bind_int64(s, i, v);
        return *this;
    }
    Stmt &blob(int i, const std::string &v)
    {
        sqlite3_bind_blob64(s, i, v.data(), v.size(), SQLITE_STATIC);
        return *this;
    }
    bool step()
    {
        const int rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            return true;
        if (rc != SQLITE_DONE)
            throw SqliteError(sqlite3_db_handle(s), rc);
        return false;
    }
    void reset()
    {
        sqlite3_reset(s);
        sqlite3_clear_bindings(s);
    }
};

inline void exec(sqlite3 *db, const char *sql)
{
    if (const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr); rc != SQLITE_OK)
        throw SqliteError(db, rc);
}

/// The column as bytes (text or blob), "" when NULL.
inline std::string bytesOf(sqlite3_stmt *s, int col)
{
    const auto *p = static_cast<const char *>(sqlite3_column_blob(s, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s, col))) : std::string();
}

} // namespace rs::sqlite
