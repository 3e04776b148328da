#include "stepmemory.h"

#include "logline.h"
#include "plausible.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <regex>
#include <string>

namespace rs {

namespace {

bool containsNoCase(std::string_view s, std::string_view what)
{
    return std::search(s.begin(), s.end(), what.begin(), what.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           })
        != s.end();
}

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Bytes per unit; 0 when `unit` is not a memory unit. A lone lower-case "b" is bits, not bytes.
double unitBytes(std::string_view unit)
{
    if (unit == "B")
        return 1;
    std::string u;
    for (char c : unit)
        u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    static const std::pair<const char *, double> kUnits[] = {
        {"kb", 1024.0}, {"kib", 1024.0}, {"mb", 1048576.0}, {"mib", 1048576.0}, {"gb", 1073741824.0},
        {"gib", 1073741824.0}, {"tb", 1099511627776.0}, {"tib", 1099511627776.0}, {"bytes", 1}};
    for (const auto &[name, f] : kUnits)
        if (u == name)
            return f;
    return 0;
}

// The unit a line states once for all its numbers: "memory (MB) | allocated: 1234.5".
double sharedUnit(const std::string &s)
{
    static const std::regex kShared(R"((?:\(|\[|\bin )(B|KB|KiB|MB|MiB|GB|GiB)(?:\)|\]|\b))");
    std::smatch m;
    return std::regex_search(s, m, kShared) ? unitBytes(m[1].str()) : 0;
}

enum class Slot { None, Allocated, PeakAllocated, Reserved, PeakReserved };

Slot classify(std::string_view label)
{
    std::string l;
    for (char c : label)
        l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    // Only the words right before the number name it.
    std::vector<std::string> words;
    std::string w;
    for (char c : l) {
        if (isWordChar(c)) {
            w += c;
        } else if (!w.empty()) {
            words.push_back(w);
            w.clear();
        }
    }
    if (!w.empty())
        words.push_back(w);
    if (words.size() > 3)
        words.erase(words.begin(), words.end() - 3);
    if (words.empty())
        return Slot::None;
    auto has = [&](std::string_view part) {
        return std::any_of(words.begin(), words.end(), [&](const std::string &x) { return x.find(part) != std::string::npos; });
    };
    for (std::string_view no : {"free", "total", "capacity", "avail", "limit", "budget", "size", "param"})
        if (has(no))
            return Slot::None;
    const bool peak = has("max") || has("peak");
    // DeepSpeed's see_memory_usage: MA / Max_MA (allocated), CA / Max_CA (cached = reserved).
    const std::string &last = words.back();
    if (has("reserv") || has("cache") || last == "ca" || last == "max_ca")
        return peak ? Slot::PeakReserved : Slot::Reserved;
    if (has("alloc") || has("mem") || last == "ma" || last == "max_ma")
        return peak ? Slot::PeakAllocated : Slot::Allocated;
    if (last == "peak" || last == "max")
        return Slot::PeakAllocated;
    return Slot::None;
}

} // namespace

std::optional<StepMemory::Reading> StepMemory::parse(std::string_view line)
{
    if (line.size() < 8 || line.size() > 4096)
        return std::nullopt;
    if (!(containsNoCase(line, "alloc") || containsNoCase(line, "mem") || containsNoCase(line, "reserv")
          || containsNoCase(line, "peak") || containsNoCase(line, "cache") || containsNoCase(line, "MA ")))
        return std::nullopt;
    if (!(containsNoCase(line, "step") || containsNoCase(line, "iter")))
        return std::nullopt;
    // The allocator's own sentences and tables are read elsewhere.
    if (containsNoCase(line, "out of memory") || containsNoCase(line, "Tried to allocate"))
        return std::nullopt;
    const std::string s(line);
    Reading r;
    r.step = logline::stepNumber(s).first;
    if (r.step < 0)
        return std::nullopt;
    const double shared = sharedUnit(s);
    bool any = false;
    std::size_t labelFrom = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        const bool starts = std::isdigit(static_cast<unsigned char>(s[i])) && (i == 0 || (!isWordChar(s[i - 1]) && s[i - 1] != '.'));
        if (!starts) {
            if (std::string_view("|,;()[]{}").find(s[i]) != std::string_view::npos)
                labelFrom = i + 1;
            ++i;
            continue;
        }
        const std::size_t numBegin = i;
        while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.'))
            ++i;
        const std::string number = s.substr(numBegin, i - numBegin);
        std::size_t u = i;
        while (u < s.size() && s[u] == ' ')
            ++u;
        std::size_t ue = u;
        while (ue < s.size() && std::isalpha(static_cast<unsigned char>(s[ue])))
            ++ue;
        double factor = ue > u ? unitBytes(std::string_view(s).substr(u, ue - u)) : 0;
        const bool rate = ue < s.size() && s[ue] == '/';
        std::size_t end = i;
        if (factor > 0 && !(ue < s.size() && isWordChar(s[ue])))
            end = ue;
        else if (shared > 0 && (ue == u || unitBytes(std::string_view(s).substr(u, ue - u)) == 0))
            factor = shared;
        else
            factor = 0;
        const std::string_view label = std::string_view(s).substr(labelFrom, numBegin - labelFrom);
        labelFrom = end;
        i = end;
        if (factor <= 0 || rate)
            continue;
        char *stop = nullptr;
        const double v = std::strtod(number.c_str(), &stop);
        if (stop == number.c_str() || !std::isfinite(v) || v < 0)
            continue;
        // No GPU holds 2^50 bytes: such a number is counted and not used (found fuzzing).
        if (v * factor >= double(plausible::kMaxBytes)) {
            ++r.implausible;
            continue;
        }
        const auto bytes = static_cast<std::int64_t>(std::llround(v * factor));
        std::int64_t *slot = nullptr;
        switch (classify(label)) {
        case Slot::Allocated: slot = &r.allocated; break;
        case Slot::PeakAllocated: slot = &r.peakAllocated; break;
        case Slot::Reserved: slot = &r.reserved; break;
        case Slot::PeakReserved: slot = &r.peakReserved; break;
        case Slot::None: break;
        }
        if (slot && *slot < 0) {
            *slot = bytes;
            any = true;
        }
    }
    if (!any && r.implausible == 0)
        return std::nullopt;
    return r;
}

void StepMemory::add(std::size_t recordIndex, RankId rank, const Reading &reading)
{
    // A step printed over two lines (allocated on one, reserved on the next) is one reading.
    if (!m_samples.empty()) {
        Sample &last = m_samples.back();
        if (last.rank == rank && last.reading.step == reading.step) {
            for (auto [to, from] : {std::pair{&last.reading.allocated, reading.allocated},
                                    std::pair{&last.reading.peakAllocated, reading.peakAllocated},
                                    std::pair{&last.reading.reserved, reading.reserved},
                                    std::pair{&last.reading.peakReserved, reading.peakReserved}})
                if (*to < 0)
                    *to = from;
            return;
        }
    }
    m_samples.push_back({recordIndex, rank, reading});
}

void StepMemory::finish(SourceBuilder &out, const std::function<std::int32_t(RankId)> &device, const std::set<RankId> &stepsTaken)
{
    const auto &records = out.logs().records;
    const bool clocked = std::any_of(records.begin(), records.end(), [](const LogRecord &r) { return r.time != kNoTime; });
    std::map<RankId, std::vector<const Sample *>> byRank;
    for (const Sample &s : m_samples) {
        const RankId r = records[s.record].rank;
        byRank[r >= 0 ? r : kNoRank].push_back(&s);
    }
    bool warnedByStep = false;
    for (const auto &[rank, samples] : byRank) {
        struct Point {
            TimeNs t;
            const Sample *s;
        };
        std::vector<Point> points;
        const bool allTimed = std::all_of(samples.begin(), samples.end(),
                                          [&](const Sample *s) { return records[s->record].time != kNoTime; });
        for (const Sample *s : samples) {
            const LogRecord &rec = records[s->record];
            if (allTimed) {
                points.push_back({rec.time, s});
            } else if (!clocked) {
                points.push_back({TimeNs(s->reading.step), s});
            } else if (rec.time != kNoTime) {
                points.push_back({rec.time, s});
            } else {
                out.warning("step-memory-untimed",
                            "a per-step memory line has no time stamp in a log whose other lines are timed; it is left out "
                            "of the memory counters",
                            rec.line);
            }
        }
        if (!allTimed && !clocked && !warnedByStep) {
            warnedByStep = true;
            out.warning("step-memory-by-step",
                        "per-step memory lines carry no time stamp; the counters are ordered by step number (1 ns per step), "
                        "not by time",
                        records[samples.front()->record].line);
        }
        if (points.empty())
            continue;
        std::stable_sort(points.begin(), points.end(), [](const Point &a, const Point &b) { return a.t < b.t; });
        std::int32_t dev = device(rank);
        if (dev < 0)
            dev = 0;
        const auto bindingRank = rank; // a structured binding: clang 14 cannot capture it
        auto trackOf = [&](TrackKind kind) {
            const TrackId id = out.track(kind, 0, 0, dev, bindingRank);
            out.trackAt(id).name = out.intern("GPU " + std::to_string(dev)
                                              + (kind == TrackKind::MemoryAllocated ? " memory allocated" : " memory reserved"));
            return id;
        };
        std::optional<TrackId> alloc, reserved;
        for (const Point &p : points) {
            const Reading &r = p.s->reading;
            const std::int64_t a = r.allocated >= 0 ? r.allocated : r.peakAllocated;
            const std::int64_t v = r.reserved >= 0 ? r.reserved : r.peakReserved;
            if (a >= 0) {
                if (!alloc)
                    alloc = trackOf(TrackKind::MemoryAllocated);
                out.addCounterSample(*alloc, p.t, double(a));
                ++out.source().counts.counterSamples;
            }
            if (v >= 0) {
                if (!reserved)
                    reserved = trackOf(TrackKind::MemoryReserved);
                out.addCounterSample(*reserved, p.t, double(v));
                ++out.source().counts.counterSamples;
            }
        }
        if (stepsTaken.count(rank))
            continue;
        // One step per printed step, from its line to the next, so per-step rules find the samples.
        const TrackId owner = alloc ? *alloc : *reserved;
        for (std::size_t i = 0; i < points.size(); ++i) {
            Step st;
            st.number = points[i].s->reading.step;
            st.track = owner;
            st.fromLog = true;
            st.range.begin = points[i].t;
            if (i + 1 < points.size())
                st.range.end = points[i + 1].t;
            else
                st.range.end = points[i].t + (i > 0 ? points[i].t - points[i - 1].t : 1);
            if (st.range.end <= st.range.begin)
                st.range.end = st.range.begin + 1;
            out.addStep(st);
            ++out.source().counts.steps;
        }
    }
}

} // namespace rs
