#pragma once
// Turns the children's results into the benchmark's table or JSON. Ratios always compare the import
// with baselines measured in the same run, on the same file and machine, so they stay meaningful
// across machines even when absolute numbers do not.

#include "childprocess.h"

#include <cstdint>
#include <string>
#include <vector>

namespace rs::bench {

struct BenchFile {
    std::string path;
    std::uint64_t fileBytes = 0;     ///< on disk
    std::uint64_t jsonBytes = 0;     ///< uncompressed JSON
    bool gzip = false;
    std::int64_t events = -1;        ///< when generated here; -1 when unknown
    bool generated = false;
};

/// One measured operation over all its runs.
struct BenchRow {
    std::string id;                  ///< "raw_read", "gunzip", "nlohmann_sax", "import"
    std::string label;               ///< for the table
    std::vector<ChildResult> runs;

    bool ok() const;
    /// Best (lowest) wall time of the successful runs.
    double bestSeconds() const;
    /// Best (lowest) CPU time of the successful runs.
    double bestCpuSeconds() const;
    /// Highest peak RSS over the runs: memory is reported conservatively.
    std::int64_t peakRss() const;
    /// Counters of the best run.
    const std::vector<std::int64_t> &values() const;
    std::string firstError() const;
};

class BenchReport
{
public:
    BenchReport(BenchFile file, int runs, std::int64_t floorRss) : m_file(std::move(file)), m_runs(runs), m_floorRss(floorRss) {}

    void add(BenchRow row) { m_rows.push_back(std::move(row)); }
    const std::vector<BenchRow> &rows() const { return m_rows; }

    std::string table() const;
    std::string json() const;

private:
    const BenchRow *find(const std::string &id) const;
    double mbPerSecond(const BenchRow &row) const;

    BenchFile m_file;
    int m_runs;
    std::int64_t m_floorRss;
    std::vector<BenchRow> m_rows;
};

} // namespace rs::bench
