#include "nvidiasmiimporter.h"

#include "nvidiasmiparser.h"
#include "text/linereader.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace rs {

using namespace nvidiasmi;

namespace {

enum class Metric { Time, Id, MemoryUsed, MemoryTotal, UtilGpu, UtilMem, Power, Temp, ClockSm, ClockMem, Name, Date, Other };

struct Column {
    Metric metric = Metric::Other;
    std::string name;  // header name without unit
    std::string unit;  // header unit ("MiB"), "" when none
    int idPriority = 99; // lower wins among GPU id candidates
};

Column classify(std::string_view header)
{
    Column c;
    c.name = columnName(header);
    c.unit = columnUnit(header);
    const std::string &n = c.name;
    static const std::map<std::string, Metric> kMetrics = {
        {"timestamp", Metric::Time},          {"time", Metric::Time},
        {"#date", Metric::Date},              {"date", Metric::Date},
        {"memory.used", Metric::MemoryUsed},  {"fb", Metric::MemoryUsed},
        {"memory.total", Metric::MemoryTotal}, {"utilization.gpu", Metric::UtilGpu},
        {"sm", Metric::UtilGpu},              {"utilization.memory", Metric::UtilMem},
        {"mem", Metric::UtilMem},             {"power.draw", Metric::Power},
        {"pwr", Metric::Power},               {"temperature.gpu", Metric::Temp},
        {"gtemp", Metric::Temp},              {"clocks.sm", Metric::ClockSm},
        {"clocks.current.sm", Metric::ClockSm}, {"pclk", Metric::ClockSm},
        {"clocks.mem", Metric::ClockMem},     {"clocks.current.memory", Metric::ClockMem},
        {"mclk", Metric::ClockMem},           {"name", Metric::Name},
    };
    static const std::map<std::string, int> kIds = {
        {"index", 0}, {"gpu", 1}, {"pci.bus_id", 2}, {"gpu_bus_id", 2}, {"uuid", 3}, {"gpu_uuid", 3}};
    if (auto it = kIds.find(n); it != kIds.end()) {
        c.metric = Metric::Id;
        c.idPriority = it->second;
    } else if (auto m = kMetrics.find(n); m != kMetrics.end()) {
        c.metric = m->second;
    }
    return c;
}

std::string jsonString(std::string_view s)
{
    std::string out = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            out += '\\';
        if (static_cast<unsigned char>(ch) >= 0x20)
            out += ch;
    }
    return out + "\"";
}

std::vector<std::string_view> splitWhitespace(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
        const std::size_t b = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
        if (i > b)
            out.push_back(line.substr(b, i - b));
    }
    return out;
}

// Streams rows of one file into tracks. Rows are buffered only until the first sample (all rows of
// the first time stamp) has been seen, which is when the GPU id column can be decided.
class Reader
{
public:
    Reader(SourceBuilder &out, ImportContext &ctx) : m_out(out), m_ctx(ctx) {}

    void setColumns(std::vector<Column> cols)
    {
        m_cols = std::move(cols);
        for (std::size_t i = 0; i < m_cols.size(); ++i) {
            if (m_cols[i].metric == Metric::Time && m_timeCol < 0)
                m_timeCol = int(i);
            if (m_cols[i].metric == Metric::Date && m_dateCol < 0)
                m_dateCol = int(i);
        }
    }
    bool hasColumns() const { return !m_cols.empty(); }

    void row(std::vector<std::string> fields, std::int64_t lineNo)
    {
        if (fields.size() < m_cols.size()) {
            m_out.warning("row has " + std::to_string(fields.size()) + " of " + std::to_string(m_cols.size())
                              + " fields (cut off); the complete fields are kept",
                          lineNo);
            // The last field of a cut row is itself cut ("NVIDIA A100-S"): only whole fields count.
            if (fields.size() > 1)
                fields.pop_back();
        }
        else if (fields.size() > m_cols.size())
            m_out.warning("row has " + std::to_string(fields.size()) + " fields but the header names "
                              + std::to_string(m_cols.size()) + "; the extra fields are ignored",
                          lineNo);
        if (m_decided) {
            emit(fields, lineNo);
            return;
        }
        const std::string stamp = m_timeCol >= 0 && std::size_t(m_timeCol) < fields.size() ? fields[std::size_t(m_timeCol)] : "";
        if (!m_pending.empty() && (stamp != m_firstStamp || m_pending.size() >= 512))
            decide();
        if (m_decided) {
            emit(fields, lineNo);
            return;
        }
        if (m_pending.empty())
            m_firstStamp = stamp;
        m_pending.emplace_back(std::move(fields), lineNo);
    }

    void finish()
    {
        if (!m_decided)
            decide();
        for (auto &[gpu, dev] : m_devices)
            m_out.addDevice(dev);
        std::vector<RankId> ranks;
        for (int gpu : m_gpus)
            ranks.push_back(gpu);
        if (!ranks.empty()) {
            m_out.source().ranks = ranks;
            m_out.source().rankOrigin = RankOrigin::DeviceIndex;
        }
        m_out.source().hasClock = m_hasClock && m_out.source().counts.gpuSamples > 0;
        if (!m_hasClock && m_out.source().counts.gpuSamples > 0)
            m_out.warning("no time stamps in this output: samples are numbered at nvidia-smi's default 1 s interval "
                          "and the source has no wall clock");
    }

    void setNoClock() { m_hasClock = false; }

private:
    void decide()
    {
        // The GPU id column: the best-ranked candidate whose values differ across the first sample.
        int best = -1;
        for (std::size_t i = 0; i < m_cols.size(); ++i) {
            if (m_cols[i].metric != Metric::Id)
                continue;
            std::set<std::string> values;
            for (const auto &[f, l] : m_pending)
                if (i < f.size())
                    values.insert(f[i]);
            const bool distinct = values.size() == m_pending.size();
            if (distinct && (best < 0 || m_cols[i].idPriority < m_cols[std::size_t(best)].idPriority))
                best = int(i);
        }
        if (best < 0) // no column tells GPUs apart: fall back to the best-ranked id column, if any
            for (std::size_t i = 0; i < m_cols.size(); ++i)
                if (m_cols[i].metric == Metric::Id && (best < 0 || m_cols[i].idPriority < m_cols[std::size_t(best)].idPriority))
                    best = int(i);
        m_idCol = best;
        m_idIsOrdinal = best >= 0 && m_cols[std::size_t(best)].idPriority >= 2;
        m_decided = true;
        for (auto &[f, l] : m_pending)
            emit(f, l);
        m_pending.clear();
    }

    int gpuOf(const std::vector<std::string> &f, std::int64_t lineNo)
    {
        if (m_idCol < 0 || std::size_t(m_idCol) >= f.size())
            return 0;
        const std::string &v = f[std::size_t(m_idCol)];
        if (m_idIsOrdinal) {
            auto [it, inserted] = m_ordinals.emplace(v, int(m_ordinals.size()));
            return it->second;
        }
        const auto n = number(v);
        if (!n || *n < 0 || *n > 4096) {
            m_out.error("GPU id '" + v + "' is not a GPU index; the row is skipped", lineNo);
            return -1;
        }
        return int(*n);
    }

    void emit(const std::vector<std::string> &f, std::int64_t lineNo)
    {
        const int gpu = gpuOf(f, lineNo);
        if (gpu < 0)
            return;
        TimeNs t = 0;
        if (m_timeCol >= 0 && m_hasClock) {
            std::string stamp = std::size_t(m_timeCol) < f.size() ? f[std::size_t(m_timeCol)] : std::string();
            if (m_dateCol >= 0 && std::size_t(m_dateCol) < f.size()) {
                // dmon -o DT: "20240131" + "12:34:56" (local time).
                const std::string &d = f[std::size_t(m_dateCol)];
                if (d.size() == 8)
                    stamp = d.substr(0, 4) + "/" + d.substr(4, 2) + "/" + d.substr(6, 2) + " " + stamp;
            }
            const auto ts = timestamp(stamp, m_ctx.timeZone);
            if (!ts) {
                m_out.error("unreadable time stamp '" + stamp + "'; the row is skipped", lineNo);
                return;
            }
            t = *ts;
        } else {
            m_hasClock = false;
            t = TimeNs(m_sampleNo[gpu]++) * 1000000000;
        }
        m_gpus.insert(gpu);
        ++m_out.source().counts.gpuSamples;
        for (std::size_t i = 0; i < m_cols.size() && i < f.size(); ++i) {
            const Column &c = m_cols[i];
            switch (c.metric) {
            case Metric::MemoryUsed:
                if (auto b = memoryBytes(f[i], c.unit))
                    sample(TrackKind::GpuMemoryUsed, gpu, 0, "GPU " + std::to_string(gpu) + " memory used (nvidia-smi)", t, *b);
                break;
            case Metric::UtilGpu:
                if (auto v = number(f[i]))
                    sample(TrackKind::GpuUtilization, gpu, 0, "GPU " + std::to_string(gpu) + " utilization %", t, *v);
                break;
            case Metric::MemoryTotal:
                if (auto b = memoryBytes(f[i], c.unit)) {
                    auto &dev = device(gpu);
                    dev.totalMemory = std::int64_t(std::llround(*b));
                }
                break;
            case Metric::Name:
                if (!isMissing(f[i]))
                    device(gpu).name = f[i];
                break;
            case Metric::UtilMem:
            case Metric::Power:
            case Metric::Temp:
            case Metric::ClockSm:
            case Metric::ClockMem:
            case Metric::Other:
                if (auto v = number(f[i])) {
                    std::string label = "GPU " + std::to_string(gpu) + " " + c.name;
                    if (!c.unit.empty())
                        label += " (" + c.unit + ")";
                    sample(TrackKind::Counter, gpu, int(i) + 1, label, t, *v);
                }
                break;
            case Metric::Time:
            case Metric::Date:
            case Metric::Id:
                break;
            }
        }
    }

    DeviceInfo &device(int gpu)
    {
        DeviceInfo &d = m_devices[gpu];
        d.id = gpu;
        return d;
    }

    void sample(TrackKind kind, int gpu, int column, const std::string &name, TimeNs t, double v)
    {
        const TrackId id = m_out.track(kind, 0, column, gpu, gpu);
        Track &tr = m_out.trackAt(id);
        if (tr.name == 0)
            tr.name = m_out.intern(name);
        m_out.addCounterSample(id, t, v);
    }

    SourceBuilder &m_out;
    ImportContext &m_ctx;
    std::vector<Column> m_cols;
    int m_timeCol = -1;
    int m_dateCol = -1;
    int m_idCol = -1;
    bool m_idIsOrdinal = false;
    bool m_decided = false;
    bool m_hasClock = true;
    std::string m_firstStamp;
    std::vector<std::pair<std::vector<std::string>, std::int64_t>> m_pending;
    std::map<std::string, int> m_ordinals;
    std::map<int, std::int64_t> m_sampleNo;
    std::map<int, DeviceInfo> m_devices;
    std::set<int> m_gpus;
};

// Without a header, columns are guessed from the units in the first row (nvidia-smi's usual order).
std::vector<Column> guessColumns(const std::vector<std::string_view> &f, const std::string &zone, std::string &described)
{
    std::vector<Column> cols;
    int mib = 0, pct = 0, mhz = 0;
    int mibCount = 0;
    for (auto v : f)
        if (v.find("MiB") != std::string_view::npos)
            ++mibCount;
    for (std::size_t i = 0; i < f.size(); ++i) {
        const std::string_view v = f[i];
        std::string header;
        if (i == 0 && timestamp(v, zone))
            header = "timestamp";
        else if (v.find("MiB") != std::string_view::npos)
            header = mibCount >= 3 ? (mib == 0 ? "memory.total" : mib == 1 ? "memory.used" : "memory.free")
                                   : (mibCount == 2 ? (mib == 0 ? "memory.total" : "memory.used") : "memory.used"),
            ++mib;
        else if (v.find('%') != std::string_view::npos)
            header = pct++ == 0 ? "utilization.gpu" : "utilization.memory";
        else if (v.size() > 2 && v.substr(v.size() - 2) == " W")
            header = "power.draw";
        else if (v.find("MHz") != std::string_view::npos)
            header = mhz++ == 0 ? "clocks.sm" : "clocks.mem";
        else if (i == 1 && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            header = "index";
        else
            header = "column " + std::to_string(i + 1);
        described += (described.empty() ? "" : ", ") + header;
        cols.push_back(classify(header));
    }
    return cols;
}

} // namespace

int NvidiaSmiImporter::sniff(std::string_view head, std::string_view) const
{
    if (head.find('\0') != std::string_view::npos)
        return 0;
    const std::string_view first = head.substr(0, head.find('\n'));
    if (first.rfind("# gpu", 0) == 0 || first.rfind("#Date", 0) == 0)
        return head.find("# Idx") != std::string_view::npos || head.find("#YYYYMMDD") != std::string_view::npos ? 85 : 50;
    const bool csvLike = first.find(',') != std::string_view::npos;
    if (!csvLike)
        return 0;
    for (const char *key : {"memory.used", "utilization.gpu", "power.draw", "used_gpu_memory", "memory.total"})
        if (first.find(key) != std::string_view::npos)
            return 85;
    // noheader: "YYYY/MM/DD HH:MM:SS.mmm, ..."
    if (first.size() > 25 && first[4] == '/' && first[7] == '/' && first[10] == ' ' && first[13] == ':'
        && first.find(", ") != std::string_view::npos)
        return 70;
    return 0;
}

void NvidiaSmiImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    LineReader lines(in, ctx);
    Reader reader(out, ctx);
    std::string_view line;
    enum class Mode { Unknown, Csv, Dmon, Apps } mode = Mode::Unknown;
    std::vector<Column> appCols;
    while (lines.next(line)) {
        const std::int64_t no = lines.lineNumber();
        if (line.find_first_not_of(" \t") == std::string_view::npos)
            continue;
        if (mode == Mode::Unknown) {
            if (line.rfind("# gpu", 0) == 0 || line.rfind("#Date", 0) == 0) {
                mode = Mode::Dmon;
            } else {
                const auto f = splitCsv(line);
                std::vector<Column> cols;
                bool header = false;
                for (auto h : f) {
                    cols.push_back(classify(h));
                    header = header || cols.back().metric != Metric::Other;
                }
                if (header && std::any_of(f.begin(), f.end(), [](std::string_view h) { return columnName(h) == "pid"; })) {
                    mode = Mode::Apps;
                    appCols = cols;
                    continue;
                }
                mode = Mode::Csv;
                if (header && !timestamp(f.front(), ctx.timeZone)) {
                    reader.setColumns(cols);
                    continue;
                }
                std::string described;
                reader.setColumns(guessColumns(f, ctx.timeZone, described));
                out.warning("no header line: columns guessed from the units of the first row as: " + described, no);
            }
        }
        if (mode == Mode::Dmon) {
            if (line.front() == '#') {
                // "# gpu pwr ..." names the columns (it repeats; "# Idx W C ..." gives units).
                std::string_view body = line.substr(1);
                auto names = splitWhitespace(body);
                if (!names.empty() && names.front() != "Idx" && names.front() != "YYYYMMDD" && !reader.hasColumns()) {
                    std::vector<Column> cols;
                    for (auto n : names)
                        cols.push_back(classify(n == "gpu" ? std::string_view("index") : n));
                    reader.setColumns(cols);
                }
                continue;
            }
            if (!reader.hasColumns()) {
                out.error("dmon data row before its '# gpu' header; skipped", no);
                continue;
            }
            std::vector<std::string> fields;
            for (auto v : splitWhitespace(line))
                fields.emplace_back(v);
            reader.row(std::move(fields), no);
            continue;
        }
        if (mode == Mode::Apps) {
            const auto f = splitCsv(line);
            std::string json = "{";
            for (std::size_t i = 0; i < f.size() && i < appCols.size(); ++i) {
                json += (i ? "," : "") + jsonString(appCols[i].name) + ":";
                if (appCols[i].name.find("memory") != std::string::npos) {
                    const auto b = memoryBytes(f[i], appCols[i].unit);
                    json += b ? std::to_string(std::llround(*b)) : std::string("null");
                } else {
                    json += jsonString(f[i]);
                }
            }
            out.source().metadata.emplace_back("compute_app", json + "}");
            ++out.source().counts.gpuSamples;
            continue;
        }
        // CSV data row; a header repeated mid-file (a restarted sidecar) is skipped.
        const auto f = splitCsv(line);
        if (!f.empty() && classify(f.front()).metric == Metric::Time && !timestamp(f.front(), ctx.timeZone))
            continue;
        std::vector<std::string> fields(f.begin(), f.end());
        reader.row(std::move(fields), no);
    }
    if (mode == Mode::Dmon || mode == Mode::Csv)
        reader.finish();
    if (mode == Mode::Apps)
        out.source().hasClock = false;
}

} // namespace rs
