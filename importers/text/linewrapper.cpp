#include "linewrapper.h"

#include "plausible.h"
#include "wallclock.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace rs {

namespace {

constexpr std::size_t kMaxWrappers = 8; // more than any real stack of launcher + collector tags

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

std::size_t digitRun(std::string_view s, std::size_t at)
{
    std::size_t i = at;
    while (i < s.size() && isDigit(s[i]))
        ++i;
    return i - at;
}

int number(std::string_view s, std::size_t at, std::size_t n)
{
    int v = 0;
    std::from_chars(s.data() + at, s.data() + at + n, v);
    return v;
}

// Statistics must treat `[rank3]` and `[rank12]`, or two Ray pids, as one shape.
std::string foldDigits(std::string_view s)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (isDigit(s[i])) {
            out += '#';
            while (i + 1 < s.size() && isDigit(s[i + 1]))
                ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

bool tokenChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

struct IsoStamp {
    TimeNs time = kNoTime;
    std::size_t length = 0; // including the spaces after it
};

// `2024-05-01T12:00:00[.fraction][Z|+hh:mm|+hhmm]` followed by a space. The `T` is what sets a
// collector's stamp apart from a logging module's `2024-05-01 12:00:00,123`, which is the record's own.
std::optional<IsoStamp> isoStamp(std::string_view s, const std::string &zone)
{
    if (s.size() < 20 || digitRun(s, 0) != 4 || s[4] != '-' || digitRun(s, 5) != 2 || s[7] != '-' || digitRun(s, 8) != 2
        || s[10] != 'T' || digitRun(s, 11) != 2 || s[13] != ':' || digitRun(s, 14) != 2 || s[16] != ':'
        || digitRun(s, 17) != 2)
        return std::nullopt;
    const int y = number(s, 0, 4), mo = number(s, 5, 2), d = number(s, 8, 2);
    const int h = number(s, 11, 2), mi = number(s, 14, 2), sec = number(s, 17, 2);
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return std::nullopt;
    // Year 9999 in ns overflows: a stamp outside 1990-2100 is no stamp of a job (found fuzzing).
    if (!plausible::year(y))
        return std::nullopt;
    std::size_t i = 19;
    TimeNs frac = 0;
    if (i < s.size() && (s[i] == '.' || s[i] == ',')) {
        const std::size_t n = digitRun(s, i + 1);
        if (n == 0)
            return std::nullopt;
        for (std::size_t k = 0; k < 9; ++k)
            frac = frac * 10 + (k < n ? s[i + 1 + k] - '0' : 0);
        i += 1 + n;
    }
    bool utc = false;
    std::int64_t offsetS = 0;
    if (i < s.size() && (s[i] == 'Z' || s[i] == 'z')) {
        utc = true;
        ++i;
    } else if (i < s.size() && (s[i] == '+' || s[i] == '-') && digitRun(s, i + 1) >= 2) {
        const int sign = s[i] == '-' ? -1 : 1;
        const int oh = number(s, i + 1, 2);
        std::size_t j = i + 3;
        if (j < s.size() && s[j] == ':')
            ++j;
        if (digitRun(s, j) < 2)
            return std::nullopt;
        offsetS = sign * (oh * 3600 + number(s, j, 2) * 60);
        utc = true;
        i = j + 2;
    }
    if (i >= s.size() || s[i] != ' ')
        return std::nullopt;
    const TimeNs tod = (TimeNs(h) * 3600 + mi * 60 + sec) * 1000000000LL + frac;
    IsoStamp out;
    if (utc) {
        out.time = (wallclock::daysFromCivil(y, mo, d) * 86400 - offsetS) * 1000000000LL + tod;
    } else {
        const auto t = wallclock::localTime(y, mo, d, tod, zone);
        if (!t)
            return std::nullopt;
        out.time = *t;
    }
    while (i < s.size() && s[i] == ' ')
        ++i;
    out.length = i;
    return out;
}

} // namespace

struct LineWrapper::Shape {
    WrapperShape kind = WrapAnsi;
    std::size_t length = 0; // bytes, including the separator after it
    bool weak = false;
    std::string key;        // the shape's identity in the statistics (weak shapes only)
    RankId rank = kNoRank;
    bool implausibleRank = false;
    TimeNs time = kNoTime;
    std::string_view origin;
};

LineWrapper::LineWrapper(Recogniser isRecord, std::string zone) : m_isRecord(std::move(isRecord)), m_zone(std::move(zone)) {}

std::optional<LineWrapper::RankTag> LineWrapper::rankTag(std::string_view line)
{
    if (line.empty())
        return std::nullopt;
    if (line[0] == '[') {
        // Open MPI's --tag-output: "[jobid,rank]<stdout>:".
        if (const std::size_t a = digitRun(line, 1); a > 0 && line.size() > a + 2 && line[1 + a] == ',') {
            const std::size_t b = digitRun(line, a + 2);
            const std::size_t close = a + 2 + b;
            if (b > 0 && b <= 6 && close < line.size() && line[close] == ']' && line.substr(close + 1, 1) == "<") {
                const auto gt = line.find(">:", close);
                if (gt != std::string_view::npos && gt - close < 12)
                    return RankTag{number(line, a + 2, b), gt + 2, false};
            }
        }
        std::size_t i = 1;
        bool named = false;
        for (std::string_view word : {std::string_view("rank"), std::string_view("default")}) {
            if (line.substr(1, word.size()) == word) {
                i = 1 + word.size();
                named = true;
                break;
            }
        }
        const std::size_t n = digitRun(line, i);
        // A launcher tag whose number is no rank (a garbled or hostile line): still a tag, so the
        // record behind it is read, but nobody's rank (plausible::kMaxRank is 2^20, 7 digits).
        if (named && n > 6 && n < 20 && line.substr(i + n, 2) == "]:") {
            RankTag t{kNoRank, i + n + 2, false, true};
            if (t.length < line.size() && line[t.length] == ' ')
                ++t.length;
            return t;
        }
        if (n == 0 || n > 6)
            return std::nullopt;
        const std::size_t close = i + n;
        if (line.substr(close, 2) == "]:") {
            // A bare "[1]:" line is torchrun's failure-summary entry, not a prefix.
            if (!named && close + 2 >= line.size())
                return std::nullopt;
            RankTag t{number(line, i, n), close + 2, false};
            if (t.length < line.size() && line[t.length] == ' ')
                ++t.length;
            return t;
        }
        if (line.substr(close, 2) == "] ")
            return RankTag{number(line, i, n), close + 2, true};
        return std::nullopt;
    }
    // srun --label pads the task number to a common width; `rank3: ` is the same label in words.
    std::size_t i = 0;
    while (i < line.size() && i < 4 && line[i] == ' ')
        ++i;
    if (line.substr(i, 4) == "rank")
        i += 4;
    const std::size_t n = digitRun(line, i);
    const std::size_t colon = i + n;
    if (n == 0 || n > 5 || colon + 1 >= line.size() || line[colon] != ':' || (line[colon + 1] != ' ' && line[colon + 1] != '['))
        return std::nullopt;
    return RankTag{number(line, colon - n, n), colon + 1 + (line[colon + 1] == ' ' ? 1u : 0u), true};
}

std::size_t LineWrapper::ansiLength(std::string_view s, bool front)
{
    if (s.empty())
        return 0;
    if (s[0] == '\x1b') {
        if (s.size() >= 2 && s[1] == '[') {
            // CSI: parameter bytes, intermediate bytes, one final byte.
            std::size_t i = 2;
            while (i < s.size() && s[i] >= 0x30 && s[i] <= 0x3f)
                ++i;
            while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x2f)
                ++i;
            return i < s.size() && s[i] >= 0x40 && s[i] <= 0x7e ? i + 1 : i;
        }
        if (s.size() >= 2 && s[1] == ']') {
            // OSC (window titles, hyperlinks): up to BEL or ESC '\'.
            for (std::size_t i = 2; i < s.size(); ++i) {
                if (s[i] == '\a')
                    return i + 1;
                if (s[i] == '\x1b' && i + 1 < s.size() && s[i + 1] == '\\')
                    return i + 2;
            }
            return s.size();
        }
        std::size_t i = 1;
        while (i < s.size() && s[i] >= 0x20 && s[i] <= 0x2f)
            ++i;
        return i < s.size() && s[i] >= 0x30 && s[i] <= 0x7e ? i + 1 : i;
    }
    if (s[0] != '[')
        return 0;
    // The ESC byte was lost in a copy: "[36m", "[1;31m", "[0m"; at the front also "[2K", "[H".
    std::size_t i = 1;
    bool digit = false;
    while (i < s.size() && i < 16 && (isDigit(s[i]) || s[i] == ';')) {
        digit |= isDigit(s[i]);
        ++i;
    }
    if (i >= s.size())
        return 0;
    const char f = s[i];
    const bool followedByClose = i + 1 < s.size() && s[i + 1] == ']'; // "[10m]" is text
    if (f == 'm' && (digit || front) && !followedByClose)
        return i + 1;
    if (front && (f == 'K' || f == 'J' || f == 'H') && !followedByClose)
        return i + 1;
    return 0;
}

std::string_view LineWrapper::stripAnsi(std::string_view line, bool &changed)
{
    changed = false;
    if (line.find('\x1b') == std::string_view::npos && line.find('[') == std::string_view::npos)
        return line;
    m_clean.clear();
    bool front = true;
    std::size_t i = 0;
    while (i < line.size()) {
        const char c = line[i];
        if (c == '\x1b' || c == '[') {
            if (const std::size_t n = ansiLength(line.substr(i), front)) {
                if (!changed) {
                    m_clean.assign(line.substr(0, i));
                    changed = true;
                }
                i += n;
                continue;
            }
        }
        front = false;
        if (changed)
            m_clean += c;
        ++i;
    }
    return changed ? std::string_view(m_clean) : line;
}

std::size_t LineWrapper::originalOffset(std::string_view original, std::size_t cleanOffset) const
{
    // Walks the original as stripAnsi() did, counting the bytes it kept.
    bool front = true;
    std::size_t i = 0, kept = 0;
    while (i < original.size()) {
        if (original[i] == '\x1b' || original[i] == '[') {
            if (const std::size_t n = ansiLength(original.substr(i), front)) {
                i += n;
                continue;
            }
        }
        if (kept == cleanOffset)
            return i;
        front = false;
        ++kept;
        ++i;
    }
    return i;
}

std::optional<LineWrapper::Shape> LineWrapper::shapeAt(std::string_view s) const
{
    if (s.empty())
        return std::nullopt;
    Shape sh;
    if (auto t = rankTag(s)) {
        sh.kind = t->weak ? WrapRankLabel : WrapRankTag;
        sh.length = t->length;
        sh.weak = t->weak;
        sh.rank = t->rank;
        sh.implausibleRank = t->implausible;
        sh.key = s[0] == '[' ? "[#] " : (s.find("rank") < t->length ? "rank#: " : "#: ");
        return sh;
    }
    if (isDigit(s[0])) {
        if (auto st = isoStamp(s, m_zone)) {
            sh.kind = WrapStamp;
            sh.length = st->length;
            sh.time = st->time;
            return sh;
        }
    }
    if ((s[0] == '#' || s[0] == '>') && s.size() > 1 && s[1] == ' ') {
        sh.kind = WrapComment;
        sh.length = 2;
        sh.weak = true;
        sh.key = std::string(1, s[0]);
        return sh;
    }
    if (s[0] == '(') {
        const auto close = s.find(')');
        if (close != std::string_view::npos && close > 1 && close <= 160 && close + 1 < s.size() && s[close + 1] == ' '
            && s.substr(1, close - 1).find('(') == std::string_view::npos) {
            sh.kind = WrapParenTag;
            sh.length = close + 2;
            sh.weak = true;
            sh.origin = s.substr(1, close - 1);
            sh.key = "(" + foldDigits(sh.origin) + ")";
            return sh;
        }
        return std::nullopt;
    }
    if (s[0] == '[') {
        // A one-word tag. A single upper-case word ("[INFO]", "[E]") is the record's own level.
        const auto close = s.find(']');
        if (close == std::string_view::npos || close < 2 || close > 64)
            return std::nullopt;
        const std::string_view word = s.substr(1, close - 1);
        bool level = true;
        for (char c : word) {
            if (c == ' ' || c == '[' || c == '\t')
                return std::nullopt;
            level &= c >= 'A' && c <= 'Z';
        }
        if (level)
            return std::nullopt;
        std::size_t end = close + 1;
        if (end < s.size() && s[end] == ':')
            ++end;
        if (end >= s.size() || s[end] != ' ')
            return std::nullopt;
        sh.kind = WrapBracketTag;
        sh.length = end + 1;
        sh.weak = true;
        sh.origin = word;
        sh.key = "[" + foldDigits(word) + "]";
        return sh;
    }
    // A token, then either " [stream] " (a job runner) or padding and "| " (docker-compose).
    std::size_t t = 0;
    while (t < s.size() && t <= 128 && s[t] != ' ' && s[t] != '\t')
        ++t;
    if (t == 0 || t >= s.size() || t > 128)
        return std::nullopt;
    const std::string_view token = s.substr(0, t);
    if (s.substr(t, 2) == " [") {
        std::size_t w = t + 2;
        while (w < s.size() && s[w] >= 'a' && s[w] <= 'z')
            ++w;
        if (w > t + 2 && s.substr(w, 2) == "] ") {
            sh.kind = WrapStreamTag;
            sh.length = w + 2;
            sh.weak = true;
            sh.origin = token;
            sh.key = foldDigits(token) + " " + std::string(s.substr(t + 1, w + 1 - (t + 1)));
            return sh;
        }
    }
    if (t <= 64 && std::all_of(token.begin(), token.end(), tokenChar)) {
        std::size_t p = t;
        while (p < s.size() && s[p] == ' ')
            ++p;
        if (p < s.size() && s[p] == '|' && (p + 1 == s.size() || s[p + 1] == ' ')) {
            sh.kind = WrapPipeTag;
            sh.length = std::min(s.size(), p + 2);
            sh.weak = true;
            sh.origin = token;
            // docker-compose pads every service name to one width: the bar's column is the shape.
            sh.key = "| at " + std::to_string(p);
            return sh;
        }
    }
    return std::nullopt;
}

bool LineWrapper::established(const std::string &key) const
{
    const auto it = m_stats.find(key);
    if (it == m_stats.end())
        return false;
    const Stats &s = it->second;
    // Seen in front of a record and recurring; or, without any record, on most lines of the file.
    return (s.confirmed >= 1 && s.seen >= 2) || (s.seen >= 5 && s.seen * 2 >= m_lines);
}

std::size_t LineWrapper::chain(std::string_view clean, Shape *out, std::size_t &restAt) const
{
    // Greedy: every shape in front, weak or not; peel() then decides how many of them are wrappers.
    std::size_t n = 0, at = 0;
    while (n < kMaxWrappers) {
        auto sh = shapeAt(clean.substr(at));
        if (!sh || sh->length == 0)
            break;
        at += sh->length;
        out[n++] = std::move(*sh);
    }
    restAt = at;
    return n;
}

void LineWrapper::observe(const Shape *shapes, std::size_t n, bool record)
{
    ++m_lines;
    for (std::size_t i = 0; i < n; ++i) {
        if (!shapes[i].weak)
            continue;
        Stats &s = m_stats[shapes[i].key];
        ++s.seen;
        s.confirmed += record;
    }
}

void LineWrapper::learn(std::string_view head)
{
    std::array<Shape, kMaxWrappers> shapes;
    std::size_t from = 0;
    while (from < head.size()) {
        const auto nl = head.find('\n', from);
        if (nl == std::string_view::npos)
            break; // the head may end inside a line
        std::string_view line = head.substr(from, nl - from);
        from = nl + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        bool changed = false;
        const std::string_view clean = stripAnsi(line, changed);
        std::size_t restAt = 0;
        const std::size_t n = chain(clean, shapes.data(), restAt);
        observe(shapes.data(), n, n > 0 && m_isRecord && m_isRecord(clean.substr(restAt)));
        ++m_learnedLines;
    }
}

PeeledLine LineWrapper::peel(std::string_view line)
{
    PeeledLine out;
    bool changed = false;
    const std::string_view clean = stripAnsi(line, changed);
    std::array<Shape, kMaxWrappers> shapes;
    std::size_t restAt = 0;
    std::size_t n = chain(clean, shapes.data(), restAt);
    const bool record = n > 0 && m_isRecord && m_isRecord(clean.substr(restAt));
    if (m_peeled++ >= m_learnedLines)
        observe(shapes.data(), n, record);
    if (!record) {
        // Without a record behind them, only shapes that cannot be prose, or that this file is
        // known to use, are wrappers; the first other one and all after it stay text.
        std::size_t keep = 0;
        while (keep < n && (!shapes[keep].weak || established(shapes[keep].key)))
            ++keep;
        n = keep;
    }
    std::size_t at = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Shape &sh = shapes[i];
        at += sh.length;
        out.shapes |= sh.kind;
        if (sh.rank != kNoRank)
            out.rank = sh.rank;
        out.implausibleRank |= sh.implausibleRank;
        if (sh.time != kNoTime)
            out.time = sh.time;
        if (!sh.origin.empty())
            out.origin = sh.origin;
    }
    out.text = clean.substr(at);
    out.peeledBytes = changed ? originalOffset(line, at) : at;
    if (changed)
        out.shapes |= WrapAnsi;
    return out;
}

} // namespace rs
