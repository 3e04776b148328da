#include "memorysummaryparser.h"

#include "plausible.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>

namespace rs {

namespace {

constexpr auto npos = std::string_view::npos;
constexpr std::string_view kTitle = "PyTorch CUDA memory summary, device ID ";

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

// The table's frame: "|" + 75 "=" + "|". Pastes and logs put things in front of it ("[rank0]: ",
// "# ", "| " from fairseq), so it may start anywhere; returns where, or npos.
std::size_t doubleRule(std::string_view line)
{
    const auto pos = line.find("|=====");
    if (pos == npos)
        return npos;
    const std::string_view rest = trim(line.substr(pos + 1));
    if (rest.size() < 20 || rest.back() != '|')
        return npos;
    for (char c : rest.substr(0, rest.size() - 1))
        if (c != '=')
            return npos;
    return pos;
}

// A table line without the prefix its opening rule had: every line of a pasted table carries the
// same one ("# ", "> "), and it may itself hold a '|' ("svc_1  | ").
std::string_view content(std::string_view line, std::string_view prefix)
{
    if (prefix.empty())
        return line;
    if (startsWith(line, prefix))
        return line.substr(prefix.size());
    const std::string_view p = trim(prefix);
    std::string_view l = line;
    while (!l.empty() && (l.front() == ' ' || l.front() == '\t'))
        l.remove_prefix(1);
    if (!p.empty() && startsWith(l, p))
        return l.substr(p.size());
    return line;
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

// Finds the start of "<backend> out of memory. Tried to allocate" (CUDA, HIP on ROCm builds, XPU)
// or of the backend-less "Out of memory. Tried to allocate" of the newest allocator.
std::size_t oomStart(std::string_view line)
{
    static constexpr std::string_view kTried = "out of memory. Tried to allocate ";
    auto pos = line.find(kTried);
    if (pos == npos) {
        pos = line.find("Out of memory. Tried to allocate ");
        return pos;
    }
    std::size_t start = pos;
    if (start >= 2 && line[start - 1] == ' ') {
        std::size_t b = start - 1;
        while (b > 0 && line[b - 1] >= 'A' && line[b - 1] <= 'Z')
            --b;
        if (start - 1 - b >= 2 && start - 1 - b <= 5)
            start = b;
    }
    return start;
}

} // namespace

std::int64_t MemorySummaryParser::parseSize(std::string_view text)
{
    text = trim(text);
    const auto space = text.find(' ');
    if (space == npos)
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
    const double bytes = v * static_cast<double>(f);
    if (!plausible::bytes(bytes)) // past 1 PiB: a corrupt number, not memory
        return -1;
    return static_cast<std::int64_t>(std::llround(bytes));
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
    // No 1 PiB cap here: the Tot Alloc/Tot Freed columns add up every allocation of a long run.
    if (!ok || n > std::numeric_limits<std::int64_t>::max() / f)
        return std::nullopt;
    return n * f;
}

std::optional<OomEvent> MemorySummaryParser::parseOom(std::string_view line)
{
    const std::size_t pos = oomStart(line);
    if (pos == npos) {
        // Messages without the allocator's figures: the cudaError form, and an exception line
        // that stops after the first sentence ("RuntimeError: CUDA out of memory.").
        static constexpr std::string_view kRuntime = "CUDA error: out of memory";
        static constexpr std::string_view kBare = "Error: CUDA out of memory.";
        std::size_t at = line.find(kRuntime);
        if (at == npos) {
            at = line.find(kBare);
            if (at == npos)
                return std::nullopt;
            at += 7;
        }
        OomEvent e;
        e.text = std::string(trim(line.substr(at)));
        return e;
    }
    OomEvent e;
    e.text = std::string(trim(line.substr(pos)));
    const std::string text(line.substr(pos));
    // Each clause is read on its own: the wordings of 1.0 to 2.x share most clauses, and a message
    // cut by a terminal or a log limit still gives what it has.
#define RS_SIZE R"(([\d.]+ (?:bytes|B|[KMGTP]i?B)))"
    static const std::regex kRequest("Tried to allocate " RS_SIZE);
    static const std::regex kDeviceOld(R"(\(GPU (\d+);)");
    static const std::regex kDeviceNew(R"(GPU (\d+) has a total capac)");
    static const std::regex kCapacityOld(RS_SIZE " total capacity");
    static const std::regex kCapacityNew("total capaci?ty of " RS_SIZE); // 2.1 printed "capacty"
    static const std::regex kFreeOld("; " RS_SIZE R"( free[;)])");
    static const std::regex kFreeNew("of which " RS_SIZE " is free");
    static const std::regex kAllowed(RS_SIZE " allowed;");
    static const std::regex kAllocatedOld(RS_SIZE " already allocated");
    static const std::regex kAllocatedNew("Of the allocated memory " RS_SIZE " is allocated by PyTorch");
    static const std::regex kReservedOld(RS_SIZE " reserved in total by PyTorch");
    static const std::regex kCached(RS_SIZE R"( cached\))"); // 1.0–1.3: reserved but unallocated
    static const std::regex kUnallocated("and " RS_SIZE " is reserved by PyTorch but unallocated");
    static const std::regex kProcess(R"((?:Process (\d+)|this process) has )" RS_SIZE " memory in use");
#undef RS_SIZE
    std::smatch m;
    auto size = [&](const std::regex &re) -> std::int64_t {
        return std::regex_search(text, m, re) ? parseSize(m[1].str()) : -1;
    };
    e.requested = size(kRequest);
    if (std::regex_search(text, m, kDeviceNew) || std::regex_search(text, m, kDeviceOld)) {
        int device = -1;
        const std::string d = m[1].str();
        std::from_chars(d.data(), d.data() + d.size(), device);
        e.device = device;
    }
    e.capacity = size(kCapacityNew);
    if (e.capacity < 0)
        e.capacity = size(kCapacityOld);
    e.free = size(kFreeNew);
    if (e.free < 0)
        e.free = size(kFreeOld);
    e.allowed = size(kAllowed);
    e.allocated = size(kAllocatedNew);
    const bool newForm = e.allocated >= 0;
    if (!newForm)
        e.allocated = size(kAllocatedOld);
    e.reserved = size(kReservedOld);
    if (e.reserved < 0 && e.allocated >= 0) {
        // The printed "allocated" already holds the private pools' share (allocated_bytes +
        // allocated_in_private_pools), and "unallocated" is reserved minus that sum.
        const std::int64_t rest = newForm ? size(kUnallocated) : size(kCached);
        if (rest >= 0)
            e.reserved = e.allocated + rest;
    }
    for (auto it = std::sregex_iterator(text.begin(), text.end(), kProcess); it != std::sregex_iterator(); ++it) {
        const std::int64_t bytes = parseSize((*it)[2].str());
        if (bytes < 0)
            continue;
        std::int64_t &target = (*it)[1].matched ? e.otherProcessesInUse : e.processInUse;
        target = std::max<std::int64_t>(target, 0) + bytes;
    }
    return e;
}

void MemorySummaryParser::feed(std::string_view line, std::int64_t lineNo, RankId rank, TimeNs time)
{
    TableState &st = m_states[rank];
    // A table printed through repr() or into JSON arrives as one line with a literal backslash-n
    // where PyTorch joined its rows ("|\n|").
    if (line.find("|\\n|") != npos) {
        std::size_t from = 0;
        for (;;) {
            const auto nl = line.find("\\n", from);
            std::string_view part = line.substr(from, nl == npos ? npos : nl - from);
            if (part.size() >= 2 && part.substr(part.size() - 2) == "\\r")
                part.remove_suffix(2);
            piece(st, part, lineNo, rank, time);
            if (nl == npos)
                break;
            from = nl + 2;
        }
        return;
    }
    piece(st, line, lineNo, rank, time);
}

void MemorySummaryParser::piece(TableState &st, std::string_view text, std::int64_t lineNo, RankId rank, TimeNs time)
{
    using Phase = TableState::Phase;
    // No cell of a table is empty, so "||" inside a table or on a rule line is the seam of two
    // lines glued together (the title onto the rule, one row onto the next).
    if (const auto glued = text.find("||");
        glued != npos && (st.phase != Phase::None || text.find("|=====") != npos || text.find("|-----") != npos)) {
        piece(st, text.substr(0, glued + 1), lineNo, rank, time);
        piece(st, text.substr(glued + 1), lineNo, rank, time);
        return;
    }
    if (auto oom = parseOom(text)) {
        if (st.phase == Phase::Closing)
            close(st);
        else if (st.phase == Phase::Header || st.phase == Phase::Rows)
            cutOff(st, lineNo, "by an OOM message");
        st.phase = Phase::None;
        oom->rank = rank;
        oom->time = time;
        oom->line = lineNo;
        st.lastOom = m_out.addOom(std::move(*oom));
        ++m_out.source().counts.oomMessages;
        return;
    }
    tableLine(st, text, lineNo, rank, time);
}

void MemorySummaryParser::tableLine(TableState &st, std::string_view text, std::int64_t lineNo, RankId rank, TimeNs time)
{
    using Phase = TableState::Phase;
    if (st.phase == Phase::Closing) {
        const std::string_view c = content(text, st.rulePrefix);
        if (trim(c).empty())
            return; // what follows the rule decides, not a blank line
        if (c.find('|') != npos && c.find(kTitle) != npos) {
            // Two rules in a row before a title: the table before had no closing rule, and the
            // rule taken for its end opens this one.
            const std::int64_t ruleLine = st.ruleLine;
            const TimeNs ruleTime = st.ruleTime;
            const std::string prefix = st.rulePrefix;
            cutOff(st, ruleLine, "by the start of another table");
            st.ruleLine = ruleLine;
            st.ruleTime = ruleTime;
            st.prefix = prefix;
            begin(st, c, rank, time);
            st.lastLine = lineNo;
            return;
        }
        close(st);
    }
    if (const auto rule = doubleRule(text); rule != npos) {
        st.ruleLine = lineNo;
        st.ruleTime = time;
        st.rulePrefix = std::string(text.substr(0, rule));
        flushShortRow(st);
        if (st.phase == Phase::Header)
            st.lastLine = lineNo; // the rule between the title block and the column header
        else
            st.phase = st.phase == Phase::Rows ? Phase::Closing : Phase::SawRule;
        return;
    }
    if (st.phase == Phase::None)
        return;
    const std::string_view c = content(text, st.phase == Phase::SawRule ? std::string_view(st.rulePrefix) : std::string_view(st.prefix));
    if (trim(c).empty())
        return; // blank lines inside a pasted table carry nothing
    const auto first = c.find('|');
    if (first == npos) {
        if (st.phase == Phase::SawRule)
            st.phase = Phase::None;
        else
            cutOff(st, lineNo, "by a line that is not part of it");
        return;
    }
    if (st.phase == Phase::SawRule) {
        if (c.find(kTitle) == npos) {
            st.phase = Phase::None; // a rule of some other table
            return;
        }
        st.prefix = st.rulePrefix;
        begin(st, c, rank, time);
        st.lastLine = lineNo;
        return;
    }
    if (c.find(kTitle) != npos) {
        // A new title inside a table's header block: the table before stopped early.
        const std::int64_t ruleLine = st.ruleLine == lineNo - 1 ? st.ruleLine : lineNo;
        const TimeNs ruleTime = st.ruleTime;
        cutOff(st, lineNo, "by the start of another table");
        st.ruleLine = ruleLine;
        st.ruleTime = ruleTime;
        begin(st, c, rank, time);
        st.lastLine = lineNo;
        return;
    }
    st.lastLine = lineNo;
    flushShortRow(st);
    const std::string_view t = trim(c.substr(first));
    const bool closed = t.size() >= 2 && t.back() == '|';
    const std::string_view body = closed ? t.substr(1, t.size() - 2) : t.substr(1);
    if (body.find_first_not_of('-') == npos)
        return; // a "|-----|" separator
    if (st.phase == Phase::Rows && (!closed || std::count(body.begin(), body.end(), '|') < 4)) {
        st.shortRow = lineNo; // the cut of a table that ends here, or a broken row if more follow
        return;
    }
    if (body.find("CUDA OOMs:") != npos) {
        auto number = [&](std::string_view key) -> std::int64_t {
            const auto k = body.find(key);
            if (k == npos)
                return -1;
            const std::string_view rest = trim(body.substr(k + key.size()));
            std::int64_t v = -1;
            std::from_chars(rest.data(), rest.data() + rest.size(), v);
            return v;
        };
        st.table.ooms = number("CUDA OOMs:");
        st.table.allocRetries = number("cudaMalloc retries:");
        return;
    }
    if (body.find("Metric") != npos && body.find("Cur Usage") != npos) {
        st.phase = Phase::Rows;
        return;
    }
    if (st.phase == Phase::Rows)
        row(st, body, lineNo);
}

void MemorySummaryParser::begin(TableState &st, std::string_view body, RankId rank, TimeNs time)
{
    st.table = MemorySummary();
    st.table.rank = rank;
    st.table.line = st.ruleLine;
    st.table.time = st.ruleTime != kNoTime ? st.ruleTime : time;
    std::string_view dev = body.substr(body.find(kTitle) + kTitle.size());
    while (!dev.empty() && dev.front() == ' ')
        dev.remove_prefix(1);
    int device = -1;
    std::from_chars(dev.data(), dev.data() + dev.size(), device);
    st.table.device = device;
    st.table.oom = st.lastOom;
    st.lastOom = -1;
    st.lastMetric.clear();
    st.shortRow = 0;
    st.phase = TableState::Phase::Header;
}

void MemorySummaryParser::row(TableState &st, std::string_view body, std::int64_t lineNo)
{
    std::string_view cells[5];
    int n = 0;
    std::size_t from = 0;
    while (n < 5) {
        const auto bar = body.find('|', from);
        cells[n++] = body.substr(from, bar == npos ? npos : bar - from);
        if (bar == npos)
            break;
        from = bar + 1;
    }
    if (n != 5 || body.find('|', from) != npos) {
        m_out.error("summary-bad-row", "memory_summary row has more than a name and 4 value cells", lineNo);
        return;
    }
    MemorySummaryRow r;
    const std::string_view name = trim(cells[0]);
    if (name == "from large pool" || name == "from small pool") {
        if (st.lastMetric.empty()) {
            m_out.error("summary-orphan-subrow", "memory_summary pool sub-row without a parent row", lineNo);
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
            m_out.error("summary-bad-cell",
                        "memory_summary cell '" + std::string(trim(cells[i + 1])) + "' of row '" + r.metric
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
    if (!t.partial)
        ++m_out.source().counts.memorySummaries; // DESIGN: the count is of complete tables
    m_out.addMemorySummary(std::move(t));
    st.table = MemorySummary();
    st.phase = TableState::Phase::None;
}

void MemorySummaryParser::flushShortRow(TableState &st)
{
    if (st.shortRow > 0)
        m_out.error("summary-bad-row", "memory_summary row does not have a name and 4 value cells", st.shortRow);
    st.shortRow = 0;
}

void MemorySummaryParser::cutOff(TableState &st, std::int64_t lineNo, const char *how)
{
    MemorySummary &t = st.table;
    const bool any = !t.rows.empty() || t.ooms >= 0;
    const std::string where = st.shortRow > 0 ? " in the middle of the row at line " + std::to_string(st.shortRow) : "";
    m_out.warning("summary-cut-off",
                  "memory_summary table starting at line " + std::to_string(t.line) + " is cut off" + where + " " + how
                      + "; "
                      + (any ? "its " + std::to_string(t.rows.size())
                                   + " complete rows are kept and it is marked partial (not counted)"
                             : std::string("no row was read, so nothing is kept")),
                  st.shortRow > 0 ? st.shortRow : lineNo);
    st.shortRow = 0;
    if (any) {
        t.partial = true;
        close(st);
    }
    st.table = MemorySummary();
    st.phase = TableState::Phase::None;
}

void MemorySummaryParser::finish()
{
    for (auto &[rank, st] : m_states) {
        switch (st.phase) {
        case TableState::Phase::Closing: close(st); break;
        case TableState::Phase::Header:
        case TableState::Phase::Rows: cutOff(st, st.lastLine, "by the end of the input"); break;
        default: break;
        }
        st.phase = TableState::Phase::None;
    }
}

} // namespace rs
