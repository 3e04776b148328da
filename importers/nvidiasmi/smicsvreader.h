#pragma once
// The `--query-gpu` CSV (and dmon) rows of one nvidia-smi file → per-GPU counter tracks and GPU
// identity records. Columns are mapped by header name; the GPU id column is decided on the first
// sample (the first time stamp's rows) so that a script-written "index" that never varies does not
// merge eight GPUs into one. Rows that cannot be a row (the head lost to a torn write) are
// reported and dropped; rows cut at their end keep their complete fields.

#include "gpuidentities.h"
#include "importcontext.h"
#include "sourcebuilder.h"

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace rs::nvidiasmi {

enum class Metric { Time, Id, MemoryUsed, MemoryTotal, MemoryFree, UtilGpu, UtilMem, Power, Temp, ClockSm, ClockMem, Name, Date, Other };

/// One header column: what it measures and in which unit.
struct Column {
    Metric metric = Metric::Other;
    std::string name;    ///< header name without unit, lower-cased
    std::string unit;    ///< header unit ("MiB"), "" when none
    int idPriority = 99; ///< lower wins among GPU id candidates (index, gpu, bus id, uuid)
};

/// Classifies a header cell ("memory.used [MiB]").
Column classifyColumn(std::string_view header);
/// Without a header, columns guessed from the units in the first row (nvidia-smi's usual order);
/// `described` lists the guess for the warning.
std::vector<Column> guessColumns(const std::vector<std::string_view> &row, const std::string &zone, std::string &described);
/// True when `value` can stand in column `c` (an index is an integer, a time stamp parses...).
bool fitsColumn(const Column &c, std::string_view value, const std::string &zone);

class SmiCsvReader
{
public:
    SmiCsvReader(SourceBuilder &out, ImportContext &ctx);

    /// Starts (or restarts, when the header changes mid-file) with these columns.
    void setColumns(std::vector<Column> cols);
    bool hasColumns() const { return !m_cols.empty(); }
    const std::vector<Column> &columns() const { return m_cols; }
    /// dmon without -o T: rows have no clock.
    void setNoClock() { m_hasClock = false; }
    /// One data row.
    void row(std::vector<std::string> fields, std::int64_t lineNo);
    /// Settles identities, adds devices and ranks to the source (records() then has the GPUs).
    void finish();
    /// GPU identity records so far (after finish: final).
    std::vector<GpuRecord> records() const { return m_identities.records(); }

private:
    void decide();
    int gpuOf(const std::vector<std::string> &f, std::int64_t lineNo);
    void place(std::vector<std::string> f, std::int64_t lineNo);
    void emit(int gpu, int slot, const PendingRow &row);
    void sample(TrackKind kind, int gpu, int slot, int column, const std::string &name, TimeNs t, double v);
    DeviceInfo &device(int gpu);

    SourceBuilder &m_out;
    ImportContext &m_ctx;
    std::vector<Column> m_cols;
    int m_timeCol = -1;
    int m_dateCol = -1;
    int m_idCol = -1;
    int m_keyCol = -1; // the column naming the physical GPU (uuid, bus id or name), -1 if none
    bool m_idIsOrdinal = false;
    bool m_decided = false;
    bool m_hasClock = true;
    std::string m_firstStamp;
    std::vector<std::pair<std::vector<std::string>, std::int64_t>> m_pending;
    std::map<std::string, int> m_ordinals;
    std::map<int, std::int64_t> m_sampleNo;
    std::map<int, DeviceInfo> m_devices;
    std::set<int> m_gpus;
    std::map<std::tuple<int, int, int>, TrackId> m_tracks; // (gpu, slot, column) → track
    GpuIdentities m_identities;
};

} // namespace rs::nvidiasmi
