#include "logline.h"

#include "plausible.h"
#include "text/linewrapper.h"
#include "text/wallclock.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <regex>
#include <string>

namespace rs::logline {

namespace {

bool digits(std::string_view s, std::size_t at, std::size_t n)
{
    if (at + n > s.size())
        return false;
    for (std::size_t i = at; i < at + n; ++i)
        if (!std::isdigit(static_cast<unsigned char>(s[i])))
            return false;
    return true;
}

int num(std::string_view s, std::size_t at, std::size_t n)
{
    int v = 0;
    std::from_chars(s.data() + at, s.data() + at + n, v);
    return v;
}

// "HH:MM:SS" then optional [.,]fraction at `at`; returns ns since midnight and advances `end`.
std::optional<TimeNs> timeOfDay(std::string_view s, std::size_t at, std::size_t &end)
{
    if (!digits(s, at, 2) || s.size() < at + 8 || s[at + 2] != ':' || s[at + 5] != ':' || !digits(s, at + 3, 2)
        || !digits(s, at + 6, 2))
        return std::nullopt;
    TimeNs ns = (TimeNs(num(s, at, 2)) * 3600 + num(s, at + 3, 2) * 60 + num(s, at + 6, 2)) * 1000000000LL;
    end = at + 8;
    if (end < s.size() && (s[end] == '.' || s[end] == ',')) {
        std::size_t i = end + 1;
        TimeNs frac = 0;
        int n = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            if (n < 9) {
                frac = frac * 10 + (s[i] - '0');
                ++n;
            }
            ++i;
        }
        if (n > 0) {
            for (int k = n; k < 9; ++k)
                frac *= 10;
            ns += frac;
            end = i;
        }
    }
    return ns;
}

std::optional<TimeNs> toEpoch(int y, int mo, int d, TimeNs tod, const std::string &zone)
{
    return wallclock::localTime(y, mo, d, tod, zone);
}

} // namespace

std::optional<RankPrefix> rankPrefix(std::string_view line)
{
    // The launcher tags are one of the wrapper shapes; LineWrapper owns their grammar.
    if (auto t = LineWrapper::rankTag(line))
        return RankPrefix{t->rank, t->length};
    return std::nullopt;
}

std::optional<Stamp> leadingStamp(std::string_view line, const std::string &zone)
{
    std::size_t at = 0;
    const bool bracket = !line.empty() && line[0] == '[';
    if (bracket)
        at = 1;
    if (!digits(line, at, 4) || line.size() < at + 19 || line[at + 4] != '-' || line[at + 7] != '-'
        || (line[at + 10] != ' ' && line[at + 10] != 'T') || !digits(line, at + 5, 2) || !digits(line, at + 8, 2))
        return std::nullopt;
    std::size_t end = 0;
    const auto tod = timeOfDay(line, at + 11, end);
    if (!tod)
        return std::nullopt;
    const auto t = toEpoch(num(line, at, 4), num(line, at + 5, 2), num(line, at + 8, 2), *tod, zone);
    if (!t)
        return std::nullopt;
    if (bracket) {
        if (end >= line.size() || line[end] != ']')
            return std::nullopt;
        ++end;
    }
    while (end < line.size() && line[end] == ' ')
        ++end;
    return Stamp{*t, end};
}

std::optional<TimeNs> labelledStamp(std::string_view line, const std::string &zone)
{
    if (line.size() < 19)
        return std::nullopt;
    for (std::size_t at = line.find_first_of("0123456789"); at != std::string_view::npos && at + 19 <= line.size();
         at = line.find_first_of("0123456789", at + 1)) {
        if (!digits(line, at, 4) || line[at + 4] != '-' || line[at + 7] != '-' || !digits(line, at + 5, 2)
            || !digits(line, at + 8, 2) || (line[at + 10] != ' ' && line[at + 10] != 'T'))
            continue;
        if (at > 0 && std::isalnum(static_cast<unsigned char>(line[at - 1])))
            continue;
        // The label right before the date: "datetime: ", "timestamp=", "time : ".
        std::size_t k = at;
        while (k > 0 && line[k - 1] == ' ')
            --k;
        if (k == 0 || (line[k - 1] != ':' && line[k - 1] != '='))
            continue;
        --k;
        while (k > 0 && line[k - 1] == ' ')
            --k;
        std::size_t w = k;
        while (w > 0 && (std::isalpha(static_cast<unsigned char>(line[w - 1])) || line[w - 1] == '_'))
            --w;
        std::string label(line.substr(w, k - w));
        for (char &c : label)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (label != "datetime" && label != "timestamp" && label != "time" && label != "date")
            continue;
        std::size_t end = 0;
        const auto tod = timeOfDay(line, at + 11, end);
        if (!tod)
            continue;
        return toEpoch(num(line, at, 4), num(line, at + 5, 2), num(line, at + 8, 2), *tod, zone);
    }
    return std::nullopt;
}

std::pair<std::int64_t, std::int64_t> stepNumber(std::string_view line)
{
    static const std::regex kStep(
        R"((?:^|[^A-Za-z0-9])(?:global[ _]?)?(?:step|iter|iteration)s?\s*[:=#]?\s*\[?\s*(\d{1,12})(?![\d.])(?:\s*/\s*(\d{1,12}))?)",
        std::regex::icase | std::regex::ECMAScript);
    static const std::regex kAfter(R"(\(after (\d{1,12}) iterations?\))", std::regex::icase | std::regex::ECMAScript);
    const std::string s(line.substr(0, std::min<std::size_t>(line.size(), 4096)));
    std::smatch m;
    if (std::regex_search(s, m, kStep))
        return {std::strtoll(m[1].str().c_str(), nullptr, 10), m[2].matched ? std::strtoll(m[2].str().c_str(), nullptr, 10) : -1};
    if (std::regex_search(s, m, kAfter))
        return {std::strtoll(m[1].str().c_str(), nullptr, 10), -1};
    return {-1, -1};
}

std::optional<PartialStamp> c10Prefix(std::string_view line)
{
    // [E0321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] msg; c10 leaves the month unpadded
    // ("[E321 ..."), so the month-day field has 3 or 4 digits.
    if (line.size() < 20 || line[0] != '[' || (line[1] != 'E' && line[1] != 'W' && line[1] != 'I'))
        return std::nullopt;
    const std::size_t md = digits(line, 2, 4) && line[6] == ' ' ? 4 : (digits(line, 2, 3) && line[5] == ' ' ? 3 : 0);
    if (md == 0)
        return std::nullopt;
    std::size_t end = 0;
    const auto tod = timeOfDay(line, 3 + md, end);
    if (!tod)
        return std::nullopt;
    const auto close = line.find("] ", end);
    if (close == std::string_view::npos)
        return std::nullopt;
    return PartialStamp{num(line, 2, md - 2), num(line, md, 2), *tod, line[1], close + 2};
}

std::optional<PartialStamp> glogPrefix(std::string_view line)
{
    // E0801 13:23:20.000000 32974 torch/distributed/elastic/multiprocessing/api.py:874] msg
    if (line.size() < 20 || (line[0] != 'E' && line[0] != 'W' && line[0] != 'I') || !digits(line, 1, 4) || line[5] != ' ')
        return std::nullopt;
    std::size_t end = 0;
    const auto tod = timeOfDay(line, 6, end);
    if (!tod)
        return std::nullopt;
    const auto close = line.find("] ", end);
    if (close == std::string_view::npos || close - end > 400)
        return std::nullopt;
    return PartialStamp{num(line, 1, 2), num(line, 3, 2), *tod, line[0], close + 2};
}

std::optional<std::pair<char, std::size_t>> oldC10Prefix(std::string_view line)
{
    // [E ProcessGroupNCCL.cpp:475] msg
    if (line.size() < 8 || line[0] != '[' || (line[1] != 'E' && line[1] != 'W' && line[1] != 'I') || line[2] != ' ')
        return std::nullopt;
    const auto close = line.find("] ");
    if (close == std::string_view::npos || line.substr(3, close - 3).find(".cpp:") == std::string_view::npos)
        return std::nullopt;
    return std::make_pair(line[1], close + 2);
}

std::optional<TimeNs> resolve(const PartialStamp &p, int year, const std::string &zone)
{
    return toEpoch(year, p.month, p.day, p.timeOfDay, zone);
}

std::optional<NcclHeader> ncclHeader(std::string_view line)
{
    NcclHeader h;
    if (line.substr(0, 13) == "NCCL version ") {
        h.level = 'V';
        h.message = line;
        return h;
    }
    // host:pid:tid [dev] ...
    const auto c1 = line.find(':');
    if (c1 == 0 || c1 == std::string_view::npos || c1 > 256)
        return std::nullopt;
    for (std::size_t i = 0; i < c1; ++i)
        if (line[i] == ' ' || line[i] == '[')
            return std::nullopt;
    h.host = line.substr(0, c1);
    // "12:30:01 [3] ..." is a time of day, not host:pid:tid.
    if (c1 <= 2 && line.size() > c1 + 6 && line[c1 + 3] == ':' && line[c1 + 6] == ' '
        && std::all_of(line.begin(), line.begin() + c1, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        return std::nullopt;
    std::size_t i = c1 + 1;
    auto readInt = [&](std::int64_t &v) {
        const std::size_t b = i;
        while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])))
            ++i;
        if (i == b)
            return false;
        std::from_chars(line.data() + b, line.data() + i, v);
        return true;
    };
    if (!readInt(h.pid) || i >= line.size() || line[i] != ':')
        return std::nullopt;
    ++i;
    if (!readInt(h.tid) || line.substr(i, 2) != " [")
        return std::nullopt;
    i += 2;
    std::int64_t dev = -1;
    if (!readInt(dev) || line.substr(i, 2) != "] ")
        return std::nullopt;
    h.dev = static_cast<std::int32_t>(dev);
    i += 2;
    // The level marker may follow "file:line (func) " (WARN) or "elapsed func:line " (TRACE).
    const auto nccl = line.find("NCCL ", i);
    if (nccl == std::string_view::npos || nccl - i > 200)
        return std::nullopt;
    const std::string_view rest = line.substr(nccl + 5);
    for (auto [word, level] : {std::pair{"INFO", 'I'}, std::pair{"WARN", 'W'}, std::pair{"TRACE", 'T'}, std::pair{"CALL", 'C'}}) {
        const std::string_view w(word);
        if (rest.substr(0, w.size()) == w) {
            h.level = level;
            h.message = rest.substr(std::min(rest.size(), w.size() + 1));
            return h;
        }
    }
    return std::nullopt;
}

std::vector<std::size_t> splicePoints(std::string_view line)
{
    std::vector<std::size_t> out;
    // A header looks like "host:123:456 [0] "; look for " [d] NCCL " and walk back to the host.
    std::size_t from = 1;
    for (;;) {
        const auto mark = line.find("] NCCL ", from);
        if (mark == std::string_view::npos)
            break;
        from = mark + 7;
        const auto open = line.rfind(" [", mark);
        if (open == std::string_view::npos)
            continue;
        // Walk back over "host:pid:tid".
        std::size_t b = open;
        int colons = 0;
        while (b > 0) {
            const char c = line[b - 1];
            if (c == ':')
                ++colons;
            else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
                break;
            --b;
        }
        if (colons < 2 || b == 0)
            continue;
        // b is the start of the host; the host may have eaten the tail of the previous record
        // (no separator between them), so trust ncclHeader on the shortest suffix that parses.
        for (std::size_t s = b; s < open; ++s) {
            if (ncclHeader(line.substr(s))) {
                if (s > 0)
                    out.push_back(s);
                break;
            }
        }
    }
    return out;
}

} // namespace rs::logline
