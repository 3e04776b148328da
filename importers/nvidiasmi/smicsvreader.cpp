#include "smicsvreader.h"

#include "nvidiasmiparser.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace rs::nvidiasmi {

Column classifyColumn(std::string_view header)
{
    Column c;
    c.name = columnName(header);
    c.unit = columnUnit(header);
    static const std::map<std::string, Metric> kMetrics = {
        {"timestamp", Metric::Time},          {"time", Metric::Time},
        {"#date", Metric::Date},              {"date", Metric::Date},
        {"memory.used", Metric::MemoryUsed},  {"fb", Metric::MemoryUsed},
        {"memory.total", Metric::MemoryTotal}, {"memory.free", Metric::MemoryFree},
        {"utilization.gpu", Metric::UtilGpu}, {"sm", Metric::UtilGpu},
        {"utilization.memory", Metric::UtilMem}, {"mem", Metric::UtilMem},
        {"power.draw", Metric::Power},        {"pwr", Metric::Power},
        {"temperature.gpu", Metric::Temp},    {"gtemp", Metric::Temp},
        {"clocks.sm", Metric::ClockSm},       {"clocks.current.sm", Metric::ClockSm},
        {"pclk", Metric::ClockSm},            {"clocks.mem", Metric::ClockMem},
        {"clocks.current.memory", Metric::ClockMem}, {"mclk", Metric::ClockMem},
        {"name", Metric::Name},               {"gpu_name", Metric::Name},
    };
    static const std::map<std::string, int> kIds = {
        {"index", 0}, {"gpu", 1}, {"pci.bus_id", 2}, {"gpu_bus_id", 2}, {"uuid", 3}, {"gpu_uuid", 3}};
    if (auto it = kIds.find(c.name); it != kIds.end()) {
        c.metric = Metric::Id;
        c.idPriority = it->second;
    } else if (auto m = kMetrics.find(c.name); m != kMetrics.end()) {
        c.metric = m->second;
    }
    return c;
}

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
        else if (i <= 1 && !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
            header = "index";
        else
            header = "column " + std::to_string(i + 1);
        described += (described.empty() ? "" : ", ") + header;
        cols.push_back(classifyColumn(header));
    }
    return cols;
}

bool fitsColumn(const Column &c, std::string_view value, const std::string &zone)
{
    if (isMissing(value))
        return true;
    switch (c.metric) {
    case Metric::Id:
        if (c.idPriority <= 1)
            return std::all_of(value.begin(), value.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
        if (c.idPriority == 2)
            return busIdToNccl(value).has_value();
        return value.rfind("GPU-", 0) == 0 || value.rfind("MIG-", 0) == 0;
    case Metric::Time:
        return timestamp(value, zone).has_value();
    case Metric::Name:
    case Metric::Date:
    case Metric::Other:
        return true;
    default:
        return number(value).has_value();
    }
}

SmiCsvReader::SmiCsvReader(SourceBuilder &out, ImportContext &ctx)
    : m_out(out), m_ctx(ctx), m_identities([this](int gpu, int slot, const PendingRow &r) { emit(gpu, slot, r); })
{
}

void SmiCsvReader::setColumns(std::vector<Column> cols)
{
    if (!m_decided && !m_pending.empty())
        decide();
    m_cols = std::move(cols);
    m_timeCol = m_dateCol = -1;
    m_decided = false;
    for (std::size_t i = 0; i < m_cols.size(); ++i) {
        if (m_cols[i].metric == Metric::Time && m_timeCol < 0)
            m_timeCol = int(i);
        if (m_cols[i].metric == Metric::Date && m_dateCol < 0)
            m_dateCol = int(i);
    }
}

void SmiCsvReader::row(std::vector<std::string> fields, std::int64_t lineNo)
{
    const std::size_t n = fields.size();
    if (n < m_cols.size()) {
        // A row whose start was lost (a torn write leaves " P0, 100 %, 10 %") does not line up with
        // the header at all; a row cut at its end does, up to its last (itself cut) field.
        const bool headLost = fields.size() <= 1 || !fitsColumn(m_cols.front(), fields.front(), m_ctx.timeZone);
        if (fields.size() > 1)
            fields.pop_back();
        const bool anyValue = std::any_of(m_cols.begin(), m_cols.begin() + std::ptrdiff_t(fields.size()), [](const Column &c) {
            return c.metric != Metric::Id && c.metric != Metric::Time && c.metric != Metric::Date;
        });
        if (headLost || !anyValue) {
            m_out.warning("row-fragment", "a piece of a row (" + std::to_string(n) + " of "
                              + std::to_string(m_cols.size()) + " fields, torn or cut by a writer); skipped",
                          lineNo);
            return;
        }
        m_out.warning("row-missing-fields", "row has " + std::to_string(n) + " of " + std::to_string(m_cols.size())
                          + " fields (cut off); the complete fields are kept",
                      lineNo);
    } else if (n > m_cols.size()) {
        m_out.warning("row-extra-fields", "row has " + std::to_string(n) + " fields but the header names "
                          + std::to_string(m_cols.size()) + "; the extra fields are ignored",
                      lineNo);
    }
    if (m_decided) {
        place(std::move(fields), lineNo);
        return;
    }
    const std::string stamp = m_timeCol >= 0 && std::size_t(m_timeCol) < fields.size() ? fields[std::size_t(m_timeCol)] : "";
    if (!m_pending.empty() && (stamp != m_firstStamp || m_pending.size() >= 512))
        decide();
    if (m_decided) {
        place(std::move(fields), lineNo);
        return;
    }
    if (m_pending.empty())
        m_firstStamp = stamp;
    m_pending.emplace_back(std::move(fields), lineNo);
}

void SmiCsvReader::decide()
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
    // The identity of the physical GPU: uuid, else bus id, else the name (never the id column itself).
    m_keyCol = -1;
    for (std::size_t i = 0; i < m_cols.size(); ++i) {
        if (int(i) == m_idCol)
            continue;
        const Column &c = m_cols[i];
        const int rank = c.metric == Metric::Id && c.idPriority >= 2 ? c.idPriority : c.metric == Metric::Name ? 1 : -1;
        const int have = m_keyCol < 0 ? -1
            : m_cols[std::size_t(m_keyCol)].metric == Metric::Name ? 1
                                                                    : m_cols[std::size_t(m_keyCol)].idPriority;
        if (rank > have)
            m_keyCol = int(i);
    }
    m_decided = true;
    auto pending = std::move(m_pending);
    m_pending.clear();
    for (auto &[f, l] : pending)
        place(std::move(f), l);
}

int SmiCsvReader::gpuOf(const std::vector<std::string> &f, std::int64_t lineNo)
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
        m_out.error("bad-gpu-id", "GPU id '" + v + "' is not a GPU index; the row is skipped", lineNo);
        return -1;
    }
    return int(*n);
}

void SmiCsvReader::place(std::vector<std::string> f, std::int64_t lineNo)
{
    const int gpu = gpuOf(f, lineNo);
    if (gpu < 0)
        return;
    PendingRow r;
    r.line = lineNo;
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
            m_out.error("bad-timestamp", "unreadable time stamp '" + stamp + "'; the row is skipped", lineNo);
            return;
        }
        r.time = *ts;
    } else {
        // Numbered in file order per index, so two writers' rows keep their order on the axis.
        m_hasClock = false;
        r.time = TimeNs(m_sampleNo[gpu]++) * 1000000000;
    }
    m_gpus.insert(gpu);
    ++m_out.source().counts.gpuSamples;
    const std::string key = m_keyCol >= 0 && std::size_t(m_keyCol) < f.size() ? f[std::size_t(m_keyCol)] : std::string();
    r.fields = std::move(f);
    m_identities.row(gpu, key, std::move(r));
}

void SmiCsvReader::emit(int gpu, int slot, const PendingRow &row)
{
    const std::vector<std::string> &f = row.fields;
    const TimeNs t = row.time;
    GpuRecord &rec = m_identities.record(gpu, slot);
    if (rec.line == 0)
        rec.line = row.line;
    std::optional<double> used, freeBytes, util;
    const std::string prefix = "GPU " + std::to_string(gpu) + " ";
    for (std::size_t i = 0; i < m_cols.size() && i < f.size(); ++i) {
        const Column &c = m_cols[i];
        switch (c.metric) {
        case Metric::MemoryUsed:
            if ((used = memoryBytes(f[i], c.unit)))
                sample(TrackKind::GpuMemoryUsed, gpu, slot, 0, prefix + "memory used (nvidia-smi)", t, *used);
            break;
        case Metric::UtilGpu:
            if ((util = number(f[i])))
                sample(TrackKind::GpuUtilization, gpu, slot, 0, prefix + "utilization %", t, *util);
            break;
        case Metric::MemoryTotal:
            if (auto b = memoryBytes(f[i], c.unit)) {
                rec.totalMemory = std::int64_t(std::llround(*b));
                if (slot == 0)
                    device(gpu).totalMemory = rec.totalMemory;
            }
            break;
        case Metric::Name:
            if (!isMissing(f[i]) && rec.name.empty() && rec.tornRows == 0)
                rec.name = f[i];
            if (!isMissing(f[i]) && slot == 0 && device(gpu).name.empty())
                device(gpu).name = f[i];
            break;
        case Metric::MemoryFree:
            freeBytes = memoryBytes(f[i], c.unit);
            [[fallthrough]];
        case Metric::UtilMem:
        case Metric::Power:
        case Metric::Temp:
        case Metric::ClockSm:
        case Metric::ClockMem:
        case Metric::Other:
            if (auto v = number(f[i])) {
                std::string label = prefix + c.name;
                if (!c.unit.empty())
                    label += " (" + c.unit + ")";
                sample(TrackKind::Counter, gpu, slot, int(i) + 1, label, t, *v);
            }
            break;
        case Metric::Id:
        case Metric::Time:
        case Metric::Date:
            break;
        }
    }
    // The uuid / bus id of a GPU also identifies it when it is not the identity column.
    for (std::size_t i = 0; i < m_cols.size() && i < f.size(); ++i)
        if (m_cols[i].metric == Metric::Id && !isMissing(f[i])) {
            if (m_cols[i].idPriority == 3 && rec.uuid.empty())
                rec.uuid = f[i];
            else if (m_cols[i].idPriority == 2 && rec.busId < 0)
                rec.busId = busIdToNccl(f[i]).value_or(-1);
        }
    if (used && std::int64_t(std::llround(*used)) > rec.maxUsed) {
        rec.maxUsed = std::int64_t(std::llround(*used));
        rec.freeAtMax = freeBytes ? std::int64_t(std::llround(*freeBytes)) : -1;
        rec.utilAtMax = util ? *util : -1;
    }
}

DeviceInfo &SmiCsvReader::device(int gpu)
{
    DeviceInfo &d = m_devices[gpu];
    d.id = gpu;
    return d;
}

void SmiCsvReader::sample(TrackKind kind, int gpu, int slot, int column, const std::string &name, TimeNs t, double v)
{
    auto [it, inserted] = m_tracks.emplace(std::make_tuple(gpu, slot, int(kind) * 4096 + column), kNoTrack);
    if (inserted) {
        it->second = m_out.track(kind, slot, column, gpu, gpu);
        m_out.trackAt(it->second).name = m_out.intern(name);
    }
    m_out.addCounterSample(it->second, t, v);
}

void SmiCsvReader::finish()
{
    if (!m_decided && !m_pending.empty())
        decide();
    m_identities.finish(m_out);
    // Where one index held several GPUs, every track says which GPU it is.
    for (const auto &[key, id] : m_tracks) {
        const int gpu = std::get<0>(key);
        if (m_identities.slots(gpu) < 2)
            continue;
        const GpuRecord &rec = m_identities.record(gpu, std::get<1>(key));
        Track &tr = m_out.trackAt(id);
        tr.name = m_out.intern(std::string(m_out.str(tr.name)) + " [" + (rec.name.empty() ? rec.uuid : rec.name) + "]");
    }
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
        m_out.warning("no-timestamps", "no time stamps in this output: samples are numbered at nvidia-smi's default 1 s interval "
                                       "and the source has no wall clock");
}

} // namespace rs::nvidiasmi
