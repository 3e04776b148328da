#include "benchreport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>

namespace rs::bench {

namespace {
constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kMB = 1e6;

std::string format(const char *fmt, double a)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, a);
    return buf;
}

const std::vector<std::int64_t> kNoValues;

// Rows measuring a stage after the import (figure, merged trace) rather than a way to read the file.
bool isExportStage(const BenchRow &row)
{
    return row.id.rfind("export_", 0) == 0;
}
} // namespace

bool BenchRow::ok() const
{
    return std::any_of(runs.begin(), runs.end(), [](const ChildResult &r) { return r.ok; });
}

double BenchRow::bestSeconds() const
{
    double best = std::numeric_limits<double>::infinity();
    for (const ChildResult &r : runs)
        if (r.ok)
            best = std::min(best, r.outcome.seconds);
    return best;
}

double BenchRow::bestCpuSeconds() const
{
    double best = std::numeric_limits<double>::infinity();
    for (const ChildResult &r : runs)
        if (r.ok)
            best = std::min(best, r.outcome.cpuSeconds);
    return best;
}

std::int64_t BenchRow::peakRss() const
{
    std::int64_t peak = 0;
    for (const ChildResult &r : runs)
        if (r.ok)
            peak = std::max(peak, r.maxRssBytes);
    return peak;
}

const std::vector<std::int64_t> &BenchRow::values() const
{
    const ChildResult *best = nullptr;
    for (const ChildResult &r : runs)
        if (r.ok && (!best || r.outcome.seconds < best->outcome.seconds))
            best = &r;
    return best ? best->outcome.values : kNoValues;
}

std::string BenchRow::firstError() const
{
    for (const ChildResult &r : runs)
        if (!r.ok)
            return r.error;
    return {};
}

const BenchRow *BenchReport::find(const std::string &id) const
{
    for (const BenchRow &r : m_rows)
        if (r.id == id && r.ok())
            return &r;
    return nullptr;
}

double BenchReport::mbPerSecond(const BenchRow &row) const
{
    // Throughput counts the JSON every row ends up reading, except the raw read, which only moves
    // the file's own bytes.
    const double bytes = row.id == "raw_read" ? static_cast<double>(m_file.fileBytes)
                                              : static_cast<double>(m_file.jsonBytes);
    return bytes / kMB / row.bestSeconds();
}

std::string BenchReport::table() const
{
    std::string out;
    out += "RankScope benchmark: " + std::string(m_file.generated ? "synthetic Kineto trace " : "trace ") +
           m_file.path + "\n";
    out += "  " + format("%.1f", static_cast<double>(m_file.fileBytes) / kMB) + " MB on disk";
    if (m_file.gzip)
        out += " (gzip), " + format("%.1f", static_cast<double>(m_file.jsonBytes) / kMB) + " MB of JSON";
    if (m_file.events >= 0)
        out += ", " + std::to_string(m_file.events) + " events";
    out += "; best of " + std::to_string(m_runs) + " runs, each in its own process\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-36s %9s %8s %8s %13s %9s\n", "measurement", "MB/s", "wall s", "CPU s",
                  "peak RSS MiB", "RSS/file");
    out += line;
    for (const BenchRow &row : m_rows) {
        if (!row.ok()) {
            std::snprintf(line, sizeof line, "%-36s failed: %s\n", row.label.c_str(), row.firstError().c_str());
            out += line;
            continue;
        }
        std::snprintf(line, sizeof line, "%-36s %9.1f %8.3f %8.3f %13.1f %9.3f\n", row.label.c_str(),
                      mbPerSecond(row), row.bestSeconds(), row.bestCpuSeconds(), static_cast<double>(row.peakRss()) / kMiB,
                      static_cast<double>(row.peakRss()) / static_cast<double>(m_file.fileBytes));
        out += line;
    }
    out += "\n";
    if (const BenchRow *import = find("import")) {
        for (const BenchRow &base : m_rows) {
            if (&base == import || !base.ok() || isExportStage(base))
                continue;
            std::snprintf(line, sizeof line,
                          "import vs %s: %.2fx its wall time (%.1f%% of its throughput), %.2fx its CPU time\n",
                          base.label.c_str(), import->bestSeconds() / base.bestSeconds(),
                          100.0 * base.bestSeconds() / import->bestSeconds(),
                          import->bestCpuSeconds() / base.bestCpuSeconds());
            out += line;
        }
        // Export stages are compared the other way round: what they cost relative to the import.
        for (const BenchRow &stage : m_rows) {
            if (!isExportStage(stage) || !stage.ok())
                continue;
            std::snprintf(line, sizeof line, "%s: %.3f s = %.2fx the import's wall time, %.2fx its CPU time\n",
                          stage.label.c_str(), stage.bestSeconds(), stage.bestSeconds() / import->bestSeconds(),
                          stage.bestCpuSeconds() / import->bestCpuSeconds());
            out += line;
        }
        const auto &v = import->values();
        if (v.size() >= 4) {
            std::snprintf(line, sizeof line, "import read %lld spans, %lld memory events, %lld instants, %lld diagnostics\n",
                          static_cast<long long>(v[0]), static_cast<long long>(v[1]), static_cast<long long>(v[2]),
                          static_cast<long long>(v[3]));
            out += line;
        }
    }
    out += "process floor (an idle child): " + format("%.1f", static_cast<double>(m_floorRss) / kMiB) +
           " MiB RSS, included in every row\n";
    return out;
}

std::string BenchReport::json() const
{
    using nlohmann::json;
    json results = json::array();
    for (const BenchRow &row : m_rows) {
        json r = {{"id", row.id}, {"label", row.label}, {"ok", row.ok()}};
        if (row.ok()) {
            json walls = json::array();
            for (const ChildResult &c : row.runs)
                if (c.ok)
                    walls.push_back(c.outcome.seconds);
            r["wall_s"] = row.bestSeconds();
            r["cpu_s"] = row.bestCpuSeconds();
            r["all_wall_s"] = walls;
            r["mb_per_s"] = mbPerSecond(row);
            r["peak_rss_bytes"] = row.peakRss();
            r["rss_per_file_byte"] = static_cast<double>(row.peakRss()) / static_cast<double>(m_file.fileBytes);
            r["rss_per_json_byte"] = static_cast<double>(row.peakRss()) / static_cast<double>(m_file.jsonBytes);
            r["values"] = row.values();
        } else {
            r["error"] = row.firstError();
        }
        results.push_back(std::move(r));
    }
    json ratios = json::object();
    if (const BenchRow *import = find("import")) {
        for (const BenchRow &base : m_rows) {
            if (&base != import && base.ok() && isExportStage(base)) {
                ratios[base.id + "_vs_import_wall"] = base.bestSeconds() / import->bestSeconds();
                ratios[base.id + "_vs_import_cpu"] = base.bestCpuSeconds() / import->bestCpuSeconds();
            } else if (&base != import && base.ok()) {
                ratios["import_vs_" + base.id + "_wall"] = import->bestSeconds() / base.bestSeconds();
                ratios["import_vs_" + base.id + "_cpu"] = import->bestCpuSeconds() / base.bestCpuSeconds();
            }
        }
    }
    json doc = {{"schema", "rankscope.bench/1"},
                {"file",
                 {{"path", m_file.path},
                  {"bytes", m_file.fileBytes},
                  {"json_bytes", m_file.jsonBytes},
                  {"compression", m_file.gzip ? "gzip" : "none"},
                  {"generated", m_file.generated},
                  {"events", m_file.events >= 0 ? json(m_file.events) : json(nullptr)}}},
                {"runs", m_runs},
                {"process_floor_rss_bytes", m_floorRss},
                {"results", results},
                {"ratios", ratios}};
    return doc.dump(2) + "\n";
}

} // namespace rs::bench
