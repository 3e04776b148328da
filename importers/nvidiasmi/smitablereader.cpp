#include "smitablereader.h"

#include "nvidiasmiparser.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>

namespace rs::nvidiasmi {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> words(std::string_view s)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        const std::size_t b = i;
        while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        if (i > b)
            out.push_back(s.substr(b, i - b));
    }
    return out;
}

bool digits(std::string_view s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// "Driver Version: 495.44" → "495.44".
std::string valueAfter(std::string_view body, std::string_view label)
{
    const auto at = body.find(label);
    if (at == std::string_view::npos)
        return {};
    const auto w = words(body.substr(at + label.size()));
    return w.empty() ? std::string() : std::string(w.front());
}

std::string jsonString(const std::string &s)
{
    std::string out = "\"";
    for (char c : s)
        if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20)
            out += c;
    return out + "\"";
}

} // namespace

bool SmiTableReader::isTableLine(std::string_view line)
{
    const std::string_view t = trimmed(line);
    if (t.size() >= 2 && t.front() == '+' && (t[1] == '-' || t[1] == '='))
        return true;
    if (!t.empty() && t.front() == '|')
        return true;
    return tableDate(t, "UTC").has_value();
}

bool SmiTableReader::feed(std::string_view line, std::int64_t lineNo)
{
    const std::string_view t = trimmed(line);
    if (auto d = tableDate(t, m_ctx.timeZone)) {
        m_date = *d;
        return true;
    }
    if (t.size() >= 2 && t.front() == '+' && (t[1] == '-' || t[1] == '='))
        return true;
    if (t.empty() || t.front() != '|')
        return false;
    std::string_view body = t.substr(1);
    if (!body.empty() && body.back() == '|')
        body.remove_suffix(1);
    const std::string_view b = trimmed(body);
    if (b.find("NVIDIA-SMI") != std::string_view::npos) {
        ++m_tables;
        m_section = Section::None;
        m_currentGpu = -1;
        for (auto [label, key] : {std::pair<std::string_view, const char *>{"Driver Version:", "nvidia_smi_driver_version"},
                                  {"CUDA Version:", "nvidia_smi_cuda_version"}}) {
            const std::string v = valueAfter(b, label);
            if (!v.empty() && m_out.source().metadataValue(key).empty())
                m_out.source().metadata.emplace_back(key, jsonString(v));
        }
        return true;
    }
    if (b.rfind("Processes:", 0) == 0) {
        m_section = Section::Processes;
        return true;
    }
    if (!b.empty() && b.front() == '=') {
        if (m_section == Section::None)
            m_section = Section::Gpus;
        return true;
    }
    if (m_section == Section::Processes) {
        processRow(b, lineNo);
        return true;
    }
    if (m_section == Section::Gpus) {
        std::vector<std::string_view> cells;
        for (std::size_t from = 0;;) {
            const auto bar = body.find('|', from);
            cells.push_back(trimmed(body.substr(from, bar == std::string_view::npos ? bar : bar - from)));
            if (bar == std::string_view::npos)
                break;
            from = bar + 1;
        }
        gpuRow(cells, lineNo);
    }
    return true;
}

void SmiTableReader::gpuRow(const std::vector<std::string_view> &cells, std::int64_t lineNo)
{
    if (cells.size() < 2)
        return;
    const auto first = words(cells[0]);
    if (!first.empty() && digits(first.front()) && first.size() >= 2) {
        // "0  Tesla V100-SXM2...  On" | "00000000:16:00.0 Off" | ...
        GpuRecord g;
        // from_chars: an index too long for an int is no GPU row, not an exception (found fuzzing).
        if (std::from_chars(first.front().data(), first.front().data() + first.front().size(), g.index).ec != std::errc())
            return;
        g.rank = g.index;
        g.line = lineNo;
        std::size_t end = first.size();
        if (end > 2 && (first.back() == "On" || first.back() == "Off"))
            --end;
        for (std::size_t i = 1; i < end; ++i)
            g.name += (i > 1 ? " " : "") + std::string(first[i]);
        const auto bus = words(cells[1]);
        if (!bus.empty())
            g.busId = busIdToNccl(bus.front()).value_or(-1);
        m_gpus.push_back(std::move(g));
        m_currentGpu = int(m_gpus.size() - 1);
        return;
    }
    // "N/A   36C    P0    43W / 300W" | "0MiB / 32510MiB" | "0%      Default"
    const auto slash = cells[1].find('/');
    if (m_currentGpu < 0 || slash == std::string_view::npos || cells[1].find("MiB") == std::string_view::npos)
        return;
    GpuRecord &g = m_gpus[std::size_t(m_currentGpu)];
    const auto used = memoryBytes(trimmed(cells[1].substr(0, slash)), "MiB");
    const auto total = memoryBytes(trimmed(cells[1].substr(slash + 1)), "MiB");
    if (used)
        g.maxUsed = std::int64_t(std::llround(*used));
    if (total)
        g.totalMemory = std::int64_t(std::llround(*total));
    if (used && total)
        g.freeAtMax = g.totalMemory - g.maxUsed;
    if (cells.size() > 2) {
        const auto u = words(cells[2]);
        if (!u.empty())
            if (const auto pct = number(u.front()))
                g.utilAtMax = *pct;
    }
    m_currentGpu = -1;
}

void SmiTableReader::processRow(std::string_view body, std::int64_t lineNo)
{
    // "0   N/A  N/A     61877      C   /usr/local/bin/vllm-serve       44000MiB" (GI/CI columns
    // since driver 450), or "0      1234      C   python      1000MiB" before them.
    const auto w = words(body);
    if (w.size() < 4 || !digits(w.front()))
        return;
    static const std::vector<std::string_view> kTypes = {"C", "G", "C+G", "M", "M+C", "M+G", "M+C+G"};
    std::size_t type = 0;
    for (std::size_t i = 2; i < w.size(); ++i)
        if (std::find(kTypes.begin(), kTypes.end(), w[i]) != kTypes.end() && digits(w[i - 1])) {
            type = i;
            break;
        }
    if (type == 0) {
        m_out.warning("table-process-unreadable", "a Processes row of the nvidia-smi table has no PID and Type; skipped", lineNo);
        return;
    }
    GpuProcess p;
    if (std::from_chars(w.front().data(), w.front().data() + w.front().size(), p.index).ec != std::errc()
        || std::from_chars(w[type - 1].data(), w[type - 1].data() + w[type - 1].size(), p.pid).ec != std::errc()) {
        m_out.warning("table-process-unreadable", "a Processes row of the nvidia-smi table has a GPU or PID number out of range; skipped",
                      lineNo);
        return;
    }
    p.rank = p.index;
    p.type = std::string(w[type]);
    p.time = m_date;
    p.line = lineNo;
    std::size_t nameEnd = w.size();
    if (nameEnd > type + 1 && (w.back().find("MiB") != std::string_view::npos || isMissing(w.back()))) {
        --nameEnd;
        if (const auto b = memoryBytes(w.back(), "MiB"))
            p.usedMemory = std::int64_t(std::llround(*b));
    }
    for (std::size_t i = type + 1; i < nameEnd; ++i)
        p.name += (i > type + 1 ? " " : "") + std::string(w[i]);
    m_out.gpus().processes.push_back(std::move(p));
}

void SmiTableReader::mergeInto(std::vector<GpuRecord> &records) const
{
    for (const GpuRecord &g : m_gpus) {
        // The table cuts long names: "Tesla V100-SXM2..." is "Tesla V100-SXM2-32GB".
        std::string stem = g.name;
        if (stem.size() > 3 && stem.compare(stem.size() - 3, 3, "...") == 0)
            stem.resize(stem.size() - 3);
        GpuRecord *match = nullptr;
        for (GpuRecord &r : records)
            if (r.index == g.index
                && ((g.busId >= 0 && r.busId == g.busId) || (r.busId < 0 && !stem.empty() && r.name.rfind(stem, 0) == 0))) {
                match = &r;
                break;
            }
        if (!match) {
            records.push_back(g);
            continue;
        }
        if (match->busId < 0)
            match->busId = g.busId;
        if (match->totalMemory == 0)
            match->totalMemory = g.totalMemory;
    }
}

} // namespace rs::nvidiasmi
