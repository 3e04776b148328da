#include "recordboundaries.h"

#include "logline.h"
#include "text/linewrapper.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace rs {

namespace {

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

bool startsWith(std::string_view s, std::string_view what)
{
    return s.substr(0, what.size()) == what;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// NCCL >= 2.26 puts "[2025-03-12 10:11:12] " in front of its own header; judging the shape is
// enough here (piece() reads the time), and avoids resolving a zone on every line.
std::string_view skipNcclStamp(std::string_view s)
{
    if (s.size() > 12 && s[0] == '[' && isDigit(s[1]) && isDigit(s[4]) && s[5] == '-' && s[8] == '-') {
        const auto close = s.find("] ");
        if (close != std::string_view::npos && close < 40)
            return s.substr(close + 2);
    }
    return s;
}

// "ERROR:torch.distributed.elastic...:" and the other levels of Python's logging module.
std::size_t pyLogLength(std::string_view s)
{
    for (std::string_view level : {"CRITICAL:", "ERROR:", "WARNING:", "INFO:", "DEBUG:"})
        if (startsWith(s, level) && s.substr(level.size(), 5) == "torch")
            return level.size();
    return 0;
}

// A glog header with its pid and file:line, strict enough to trust in the middle of other text.
bool glogAt(std::string_view s)
{
    if (s.size() < 24 || !isDigit(s[1]) || !isDigit(s[4]) || s[5] != ' ' || !isDigit(s[6]))
        return false;
    const auto g = logline::glogPrefix(s);
    if (!g)
        return false;
    const std::string_view head = s.substr(0, g->length - 2); // "E1217 08:22:51.326000 1234 path:869"
    const auto colon = head.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == head.size()
        || !std::all_of(head.begin() + colon + 1, head.end(), isDigit))
        return false;
    const auto sp1 = head.find(' ', 6);  // after the time
    const auto sp2 = sp1 == std::string_view::npos ? sp1 : head.find(' ', sp1 + 1);
    return sp2 != std::string_view::npos && sp2 > sp1 + 1 && sp2 < colon
        && std::all_of(head.begin() + sp1 + 1, head.begin() + sp2, isDigit);
}

// A record grammar that a hard wrap can cut, with cheap tests that keep the regex off most lines.
struct Grammar {
    bool (*started)(std::string_view);  // holds the start of this record
    bool (*ended)(std::string_view);    // holds what only a complete record has
    const std::regex &(*pattern)();
    int maxLines = 2;                   // physical lines one record of it can be wrapped over
};

bool oomStarted(std::string_view s)
{
    return contains(s, "out of memory. Tried to allocate ") || contains(s, "Out of memory. Tried to allocate ");
}

// What the allocator's message closes with in each wording: 1.0-1.3 "... C cached)", 1.4-2.0
// "... R reserved in total by PyTorch)", 2.1+ "... is reserved by PyTorch but unallocated."
bool oomEnded(std::string_view s)
{
    return contains(s, "reserved in total by PyTorch") || contains(s, " cached)") || contains(s, "reserved by PyTorch but unallocated");
}

const std::regex &oomPattern()
{
    static const std::regex re(
        R"([Oo]ut of memory\. Tried to allocate [\d.]+ ?[KMGTPE]?i?B.*(?:reserved in total by PyTorch|cached\)|reserved by PyTorch but unallocated))");
    return re;
}

const std::regex &watchdogPattern()
{
    static const std::regex re(
        R"(WorkNCCL\(SeqNum=\d+, OpType=\w+(?:, NumelIn=-?\d+, NumelOut=-?\d+)?, Timeout\(ms\)=\d+\) ran for \d+ milliseconds)");
    return re;
}

const std::regex &initPattern()
{
    static const std::regex re(
        R"(comm 0x[0-9a-fA-F]+ rank \d+ n[Rr]anks \d+ cudaDev \d+(?: nvmlDev \d+)? busId [0-9a-fA-Fx]+(?: commId 0x[0-9a-fA-F]+)? - (?:Init|Abort) (?:START|COMPLETE))");
    return re;
}

const std::regex &collPattern()
{
    static const std::regex re(
        R"(\w+: opCount [0-9a-fA-F]+ sendbuff \S+ recvbuff \S+ count \d+ datatype \d+ op \d+ root -?\d+ comm (?:0x[0-9a-fA-F]+|\(nil\)))");
    return re;
}

const std::regex &c10Pattern()
{
    static const std::regex re(R"(^\[[EWI]\d{3,4} \d\d:\d\d:\d\d\.\d+ [^\] ]+:\d+\] )");
    return re;
}

const Grammar kGrammars[] = {
    {[](std::string_view s) { return contains(s, "Watchdog caught") || contains(s, "WorkNCCL("); },
     [](std::string_view s) { return contains(s, " milliseconds"); }, watchdogPattern},
    {[](std::string_view s) { return contains(s, "comm 0x") && contains(s, " rank ") && !contains(s, ": opCount "); },
     [](std::string_view s) { return contains(s, " - Init ") || contains(s, " - Abort ") || contains(s, " - Destroy "); },
     initPattern},
    {[](std::string_view s) { return contains(s, ": opCount "); },
     [](std::string_view s) { return contains(s, " comm 0x") || contains(s, " comm (nil)"); }, collPattern},
    {[](std::string_view s) {
         return s.size() > 3 && s[0] == '[' && (s[1] == 'E' || s[1] == 'W' || s[1] == 'I') && isDigit(s[2]);
     },
     [](std::string_view s) { return logline::c10Prefix(s).has_value(); }, c10Pattern},
    // A 2.x OOM message is 400+ characters: an 80- or 120-column terminal cuts it several times.
    {oomStarted, oomEnded, oomPattern, 8},
};

bool matches(const Grammar &g, std::string_view s)
{
    return std::regex_search(s.begin(), s.end(), g.pattern());
}

} // namespace

bool RecordBoundaries::pytorchRecord(std::string_view text)
{
    return logline::c10Prefix(text) || logline::oldC10Prefix(text) || logline::glogPrefix(text) || pyLogLength(text) > 0;
}

bool RecordBoundaries::launcherLine(std::string_view text)
{
    if (startsWith(text, "slurmstepd: ") || startsWith(text, "srun: ") || startsWith(text, "mpirun") || startsWith(text, "mpiexec"))
        return true;
    // mpiexec / PBS: "x3006c0s1b1n0.hsn.cm.polaris.alcf.anl.gov: rank 2 died from signal 6 and dumped core"
    const auto at = text.find(": rank ");
    return at != std::string_view::npos && at > 0 && at < 256 && text.find(" died from signal ", at) != std::string_view::npos;
}

bool RecordBoundaries::startsRecord(std::string_view text)
{
    if (text.empty())
        return false;
    if (logline::ncclHeader(skipNcclStamp(text)) || pytorchRecord(text) || launcherLine(text))
        return true;
    return startsWith(text, "Traceback (most recent call last):") || contains(text, "ChildFailedError:")
        || startsWith(text, "|=====") || contains(text, "CUDA out of memory. Tried to allocate");
}

std::vector<std::size_t> RecordBoundaries::splicePoints(std::string_view line)
{
    std::vector<std::size_t> out = logline::splicePoints(line);
    // A tag right at a record's start (the line's, or a cut's) is that record's wrapper, not a cut.
    std::size_t tagEnd = 0;
    if (auto t = LineWrapper::rankTag(line); t && !t->weak)
        tagEnd = t->length;
    for (std::size_t i = 1; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '[') {
            const std::string_view rest = line.substr(i);
            if (startsWith(rest, "[rank") || startsWith(rest, "[default")) {
                if (auto t = LineWrapper::rankTag(rest); t && !t->weak) {
                    out.push_back(i);
                    tagEnd = i + t->length;
                    i += t->length - 1;
                    continue;
                }
            }
            if (i != tagEnd && (c == '[') && i + 2 < line.size()
                && (line[i + 1] == 'E' || line[i + 1] == 'W' || line[i + 1] == 'I')
                && (logline::c10Prefix(rest) || logline::oldC10Prefix(rest)))
                out.push_back(i);
            continue;
        }
        if (i == tagEnd)
            continue;
        // glog agent lines ("E1217 08:22:51.326000 1234 .../api.py:869] ") and logging-module lines;
        // a writer cut mid-word can leave a letter right before them, so the next char decides.
        if ((c == 'E' || c == 'W' || c == 'I') && glogAt(line.substr(i)))
            out.push_back(i);
        else if ((c == 'C' || c == 'E' || c == 'W' || c == 'I' || c == 'D') && line[i - 1] != '.' && line[i - 1] != ':'
                 && line[i - 1] != '_' && pyLogLength(line.substr(i)) > 0)
            out.push_back(i);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool RecordBoundaries::looksCut(std::string_view text)
{
    for (const Grammar &g : kGrammars)
        if (g.started(text) && !g.ended(text))
            return true;
    return false;
}

bool RecordBoundaries::mayContinue(std::string_view first, std::string_view second, int linesSoFar)
{
    if (second.find_first_not_of(" \t") == std::string_view::npos || startsRecord(second))
        return false;
    const auto cuts = splicePoints(first);
    std::string_view tail = cuts.empty() ? first : first.substr(cuts.back());
    if (auto t = LineWrapper::rankTag(tail); t && !t->weak)
        tail.remove_prefix(t->length);
    for (const Grammar &g : kGrammars)
        if (g.maxLines > linesSoFar + 1 && g.started(tail) && !g.ended(tail))
            return true;
    return false;
}

bool RecordBoundaries::completes(std::string_view first, std::string_view second)
{
    if (second.empty() || startsRecord(second))
        return false;
    const auto cuts = splicePoints(first);
    const std::string_view last = cuts.empty() ? first : first.substr(cuts.back());
    std::string_view tail = last;
    if (auto t = LineWrapper::rankTag(tail); t && !t->weak)
        tail.remove_prefix(t->length);
    std::string joined;
    for (const Grammar &g : kGrammars) {
        if (!g.started(tail) || g.ended(tail))
            continue;
        joined.assign(tail);
        joined.append(second);
        if (matches(g, joined) && !matches(g, tail) && !matches(g, second))
            return true;
    }
    return false;
}

} // namespace rs
