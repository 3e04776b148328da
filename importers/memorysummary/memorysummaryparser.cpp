#include "memorysummaryparser.h"

#include <charconv>
#include <cmath>
#include <regex>

namespace rs {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// The table's frame: "|" + 75 "=" + "|". Logs may prefix it ("[rank0]: ", "| " from fairseq),
// so look for the rule anywhere in the line.
bool isDoubleRule(std::string_view line, std::string_view *before = nullptr)
{
    const auto pos = line.find("|=====");
    if (pos == std::string_view::npos)
        return false;
    std::string_view rest = trim(line.substr(pos + 1));
    if (rest.size() < 20 || rest.back() != '|')
        return false;
    for (char c : rest.substr(0, rest.size() - 1))
        if (c != '=')
            return false;
    if (before)
        *before = line.substr(0, pos);
    return true;
}

std::int64_t unitFactor(std::string_view unit, bool &isBytes, bool &ok)
{
    ok = true;
    isBytes = true;
    if (unit == "B" || unit == "bytes" || unit == "byte")
        return 1;
    if (unit == "KiB" || unit == "KB")
        return 1LL << 10;
    if (unit == "MiB" || unit == "MB")
        return 1LL << 20;
    if (unit == "GiB" || unit == "GB")
        return 1LL << 30;
    if (unit == "TiB" || unit == "TB")
        return 1LL << 40;
    if (unit == "PiB" || unit == "PB")
        return 1LL << 50;
    isBytes = false;
    if (unit.empty())
        return 1;
    if (unit == "K")
        return 1000;
    if (unit == "M")
        return 1000000;
    ok = false;
    return 0;
}

} // namespace

std::int64_t MemorySummaryParser::parseSize(std::string_view text)
{
    text = trim(text);
    const auto space = text.find(' ');
    if (space == std::string_view::npos)
        return -1;
    const std::string number(text.substr(0, space));
    const std::string_view unit = trim(text.substr(space + 1));
    char *end = nullptr;
    const double v = std::strtod(number.c_str(), &end);
    if (end == number.c_str() || *end != '\0' || !std::isfinite(v) || v < 0)
        return -1;
    bool isBytes = false, ok = false;
    const std::int64_t f = unitFactor(unit, isBytes, ok);
    if (!ok || !isBytes)
        return -1;
    return static_cast<std::int64_t>(std::llround(v * static_cast<double>(f)));
}

std::optional<std::int64_t> MemorySummaryParser::parseCell(std::string_view cell, bool &isBytes)
{
    cell = trim(cell);
    std::int64_t n = 0;
    const auto [p, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), n);
    if (ec != std::errc() || n < 0)
        return std::nullopt;
    const std::string_view unit = trim(std::string_view(p, static_cast<std::size_t>(cell.data() + cell.size() - p)));
    bool ok = false;
    const std::int64_t f = unitFactor(unit, isBytes, ok);
    if (!ok)
        return std::nullopt;
    return n * f;
}

std::optional<OomEvent> MemorySummaryParser::parseOom(std::string_view line)
{
    static const std::string_view kAllocator = "CUDA out of memory. Tried to allocate ";
    static const std::string_view kRuntime = "CUDA error: out of memory";
    auto pos = line.find(kAllocator);
    if (pos == std::string_view::npos) {
        pos = line.find(kRuntime);
        if (pos == std::string_view::npos)
            return std::nullopt;
        OomEvent e;
        e.text = std::string(trim(line.substr(pos)));
        return e;
    }
    OomEvent e;
    e.text = std::string(trim(line.substr(pos)));
    const std::string text(line.substr(pos));
    static const std::regex kNew(
        R"(Tried to allocate ([\d.]+ \w+)\. GPU (\d+) has a total capacity of ([\d.]+ \w+) of which ([\d.]+ \w+) is free\.)");
    static const std::regex kNewProc(R"(this process has ([\d.]+ \w+) memory in use)");
    static const std::regex kNewAlloc(
        R"(Of the allocated memory ([\d.]+ \w+) is allocated by PyTorch, (?:with ([\d.]+ \w+) allocated in private pools \(e\.g\., CUDA Graphs\), )?and ([\d.]+ \w+) is reserved by PyTorch but unallocated)");
    static const std::regex kOld(
        R"(Tried to allocate ([\d.]+ \w+) \(GPU (\d+); ([\d.]+ \w+) total capacity; (?:([\d.]+ \w+) allowed; )?([\d.]+ \w+) already allocated; ([\d.]+ \w+) free; (?:([\d.]+ \w+) allowed; )?([\d.]+ \w+) reserved in total by PyTorch\))");
    std::smatch m;
    if (std::regex_search(text, m, kNew)) {
        e.requested = parseSize(m[1].str());
        e.device = std::stoi(m[2].str());
        e.capacity = parseSize(m[3].str());
        e.free = parseSize(m[4].str());
        if (std::regex_search(text, m, kNewProc))
            e.processInUse = parseSize(m[1].str());
        if (std::regex_search(text, m, kNewAlloc)) {
            e.allocated = parseSize(m[1].str());
            const std::int64_t unallocated = parseSize(m[3].str());
            const std::int64_t privatePools = m[2].matched ? parseSize(m[2].str()) : 0;
            if (e.allocated >= 0 && unallocated >= 0)
                e.reserved = e.allocated + std::max<std::int64_t>(privatePools, 0) + unallocated;
        }
    } else if (std::regex_search(text, m, kOld)) {
        e.requested = parseSize(m[1].str());
        e.device = std::stoi(m[2].str());
        e.capacity = parseSize(m[3].str());
        e.allocated = parseSize(m[5].str());
        e.free = parseSize(m[6].str());
        e.reserved = parseSize(m[8].str());
    } else {
        // The sentence is there but cut or reworded: keep what the first clause says.
        static const std::regex kRequest(R"(Tried to allocate ([\d.]+ \w+))");
        if (std::regex_search(text, m, kRequest))
            e.requested = parseSize(m[1].str());
    }
    return e;
}

void MemorySummaryParser::feed(std::string_view line, std::int64_t lineNo, RankId rank, TimeNs time)
{
    TableState &st = m_states[rank];
    if (auto oom = parseOom(line)) {
        oom->rank = rank;
        oom->time = time;
        oom->line = lineNo;
        st.lastOom = m_out.addOom(std::move(*oom));
        ++m_out.source().counts.oomMessages;
        return;
    }
    using Phase = TableState::Phase;
    if (isDoubleRule(line)) {
        if (st.phase == Phase::Rows) {
            close(st);
            return;
        }
        if (st.phase == Phase::Header && !st.table.rows.empty()) {
            close(st);
            return;
        }
        // A rule right after the title block (before the column header) is part of the frame.
        if (st.phase == Phase::Header)
            return;
        st.phase = Phase::SawRule;
        st.ruleLine = lineNo;
        st.ruleTime = time;
        return;
    }
    if (st.phase == Phase::None)
        return;
    const auto first = line.find('|');
    const auto last = line.rfind('|');
    if (first == std::string_view::npos || last <= first) {
        if (st.phase == Phase::SawRule) {
            st.phase = Phase::None;
            return;
        }
        m_out.warning("memory_summary table starting at line " + std::to_string(st.table.line)
                          + " is interrupted by a line that is not part of it; the table is not counted",
                      lineNo);
        st.phase = Phase::None;
        return;
    }
    const std::string_view body = line.substr(first + 1, last - first - 1);
    if (st.phase == Phase::SawRule) {
        static const std::string_view kTitle = "PyTorch CUDA memory summary, device ID ";
        const auto t = body.find(kTitle);
        if (t == std::string_view::npos) {
            st.phase = Phase::None;
            return;
        }
        st.table = MemorySummary();
        st.table.rank = rank;
        st.table.line = st.ruleLine;
        st.table.time = st.ruleTime != kNoTime ? st.ruleTime : time;
        const std::string_view dev = trim(body.substr(t + kTitle.size()));
        int device = -1;
        std::from_chars(dev.data(), dev.data() + dev.size(), device);
        st.table.device = device;
        st.table.oom = st.lastOom;
        st.lastOom = -1;
        st.lastMetric.clear();
        st.phase = Phase::Header;
        return;
    }
    if (body.find_first_not_of("-") == std::string_view::npos)
        return; // a "|-----|" separator
    if (body.find("CUDA OOMs:") != std::string_view::npos) {
        auto number = [&](std::string_view key) -> std::int64_t {
            const auto k = body.find(key);
            if (k == std::string_view::npos)
                return -1;
            std::string_view rest = trim(body.substr(k + key.size()));
            std::int64_t v = -1;
            std::from_chars(rest.data(), rest.data() + rest.size(), v);
            return v;
        };
        st.table.ooms = number("CUDA OOMs:");
        st.table.allocRetries = number("cudaMalloc retries:");
        return;
    }
    if (body.find("Metric") != std::string_view::npos && body.find("Cur Usage") != std::string_view::npos) {
        st.phase = Phase::Rows;
        return;
    }
    if (st.phase == Phase::Rows)
        row(st, body, lineNo);
}

void MemorySummaryParser::row(TableState &st, std::string_view body, std::int64_t lineNo)
{
    std::string_view cells[5];
    int n = 0;
    std::size_t from = 0;
    while (n < 5) {
        const auto bar = body.find('|', from);
        cells[n++] = body.substr(from, bar == std::string_view::npos ? std::string_view::npos : bar - from);
        if (bar == std::string_view::npos)
            break;
        from = bar + 1;
    }
    if (n != 5 || body.find('|', from) != std::string_view::npos) {
        m_out.error("memory_summary row does not have a name and 4 value cells", lineNo);
        return;
    }
    MemorySummaryRow r;
    const std::string_view name = trim(cells[0]);
    if (name == "from large pool" || name == "from small pool") {
        if (st.lastMetric.empty()) {
            m_out.error("memory_summary pool sub-row without a parent row", lineNo);
            return;
        }
        r.metric = st.lastMetric;
        r.pool = name == "from large pool" ? "large" : "small";
    } else {
        r.metric = std::string(name);
        r.pool = "all";
        st.lastMetric = r.metric;
    }
    std::int64_t *targets[4] = {&r.current, &r.peak, &r.allocated, &r.freed};
    bool anyBytes = false;
    for (int i = 0; i < 4; ++i) {
        bool isBytes = false;
        const auto v = parseCell(cells[i + 1], isBytes);
        if (!v) {
            m_out.error("memory_summary cell '" + std::string(trim(cells[i + 1])) + "' of row '" + r.metric
                            + "' is not a number with a unit",
                        lineNo);
            continue;
        }
        *targets[i] = *v;
        anyBytes = anyBytes || isBytes;
    }
    r.isBytes = anyBytes;
    st.table.rows.push_back(std::move(r));
}

void MemorySummaryParser::close(TableState &st)
{
    MemorySummary &t = st.table;
    t.abbreviated = std::none_of(t.rows.begin(), t.rows.end(), [](const MemorySummaryRow &r) { return r.pool != "all"; });
    m_out.addMemorySummary(std::move(t));
    ++m_out.source().counts.memorySummaries;
    st.table = MemorySummary();
    st.phase = TableState::Phase::None;
}

void MemorySummaryParser::finish()
{
    for (auto &[rank, st] : m_states) {
        if (st.phase == TableState::Phase::Header || st.phase == TableState::Phase::Rows)
            m_out.warning("memory_summary table starting here ends with the input (cut off); it is not counted",
                          st.table.line);
        st.phase = TableState::Phase::None;
    }
}

} // namespace rs
