#include "nvidiasmiparser.h"

#include "plausible.h"
#include "text/wallclock.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iterator>

namespace rs::nvidiasmi {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

} // namespace

std::string columnName(std::string_view header)
{
    header = trim(header);
    if (const auto b = header.find(" ["); b != std::string_view::npos)
        header = trim(header.substr(0, b));
    std::string out(header);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

std::string columnUnit(std::string_view header)
{
    const auto b = header.find('[');
    const auto e = header.find(']', b == std::string_view::npos ? 0 : b);
    if (b == std::string_view::npos || e == std::string_view::npos)
        return {};
    return std::string(trim(header.substr(b + 1, e - b - 1)));
}

bool isMissing(std::string_view value)
{
    value = trim(value);
    return value.empty() || value == "-" || value == "N/A" || (value.front() == '[' && value.back() == ']');
}

std::optional<double> number(std::string_view value)
{
    value = trim(value);
    if (isMissing(value))
        return std::nullopt;
    const std::string s(value);
    char *end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || !std::isfinite(v))
        return std::nullopt;
    // What may follow the number: spaces and a unit word, nothing else.
    for (const char *p = end; *p; ++p)
        if (!std::isspace(static_cast<unsigned char>(*p)) && !std::isalpha(static_cast<unsigned char>(*p)) && *p != '%')
            return std::nullopt;
    return v;
}

std::optional<double> memoryBytes(std::string_view value, std::string_view headerUnit)
{
    const auto v = number(value);
    if (!v)
        return std::nullopt;
    std::string_view unit = headerUnit;
    const std::string_view t = trim(value);
    if (const auto sp = t.find(' '); sp != std::string_view::npos)
        unit = trim(t.substr(sp + 1));
    double f = 1024.0 * 1024.0; // nvidia-smi reports memory in MiB
    if (unit == "KiB" || unit == "KB")
        f = 1024.0;
    else if (unit == "GiB" || unit == "GB")
        f = 1024.0 * 1024.0 * 1024.0;
    else if (unit == "B")
        f = 1.0;
    // A memory size past 1 PiB is a corrupt row, not a GPU: it is not used.
    if (!plausible::bytes(*v * f))
        return std::nullopt;
    return *v * f;
}

std::optional<TimeNs> timestamp(std::string_view value, const std::string &zone)
{
    value = trim(value);
    if (value.empty())
        return std::nullopt;
    // Epoch seconds or milliseconds (scripts write these).
    if (std::all_of(value.begin(), value.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
        // Integer arithmetic: a double cannot hold epoch nanoseconds exactly.
        const auto dot = value.find('.');
        const std::string_view whole = value.substr(0, dot);
        std::string_view frac = dot == std::string_view::npos ? std::string_view() : value.substr(dot + 1);
        std::int64_t w = 0;
        if (whole.empty() || std::from_chars(whole.data(), whole.data() + whole.size(), w).ec != std::errc())
            return std::nullopt;
        const bool millis = whole.size() >= 12;
        if (!millis && whole.size() < 9)
            return std::nullopt;
        const int fracDigits = millis ? 6 : 9;
        std::int64_t f = 0;
        for (int i = 0; i < fracDigits; ++i)
            f = f * 10 + (i < int(frac.size()) && std::isdigit(static_cast<unsigned char>(frac[std::size_t(i)])) ? frac[std::size_t(i)] - '0' : 0);
        if (millis ? w >= plausible::kMaxEpochNs / 1000000 : w >= plausible::kMaxEpochNs / 1000000000)
            return std::nullopt;
        const TimeNs t = millis ? w * 1000000 + f : w * 1000000000 + f;
        return plausible::epochNs(t) ? std::optional<TimeNs>(t) : std::nullopt;
    }
    if (value.size() >= 19 && value[4] == '/' && value[7] == '/') {
        // nvidia-smi's own stamp, `yyyy/MM/dd HH:mm:ss[.zzz]`: local time without a zone. Parsed by
        // hand because QDateTime::fromString with a format costs ~100 us a row.
        auto field = [&](std::size_t at, std::size_t n) -> int {
            int v = -1;
            for (std::size_t i = at; i < at + n; ++i)
                if (!std::isdigit(static_cast<unsigned char>(value[i])))
                    return -1;
            std::from_chars(value.data() + at, value.data() + at + n, v);
            return v;
        };
        const int y = field(0, 4), mo = field(5, 2), d = field(8, 2);
        const int h = field(11, 2), mi = field(14, 2), sec = field(17, 2);
        if (value[10] != ' ' || value[13] != ':' || value[16] != ':' || y < 0 || mo < 0 || d < 0 || h < 0 || h > 23
            || mi < 0 || mi > 59 || sec < 0 || sec > 59)
            return std::nullopt;
        int ms = 0;
        if (value.size() >= 23 && value[19] == '.') {
            const int z = field(20, 3);
            ms = z < 0 ? 0 : z;
        }
        return wallclock::localTime(y, mo, d, ((TimeNs(h) * 60 + mi) * 60 + sec) * 1000000000LL + TimeNs(ms) * 1000000, zone);
    }
    const QString text = QString::fromUtf8(value.data(), qsizetype(value.size()));
    QDateTime dt = QDateTime::fromString(text, Qt::ISODateWithMs);
    if (!dt.isValid())
        return std::nullopt;
    if (dt.timeSpec() == Qt::LocalTime && !zone.empty()) {
        const QTimeZone tz(QByteArray::fromStdString(zone));
        if (tz.isValid())
            dt = QDateTime(dt.date(), dt.time(), tz);
    }
    // Year 9999 would overflow ns since the epoch: implausible times are no times.
    return plausible::epochMsToNs(dt.toMSecsSinceEpoch());
}

std::vector<std::string_view> splitCsv(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t from = 0;
    for (;;) {
        const auto comma = line.find(',', from);
        out.push_back(trim(line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from)));
        if (comma == std::string_view::npos)
            break;
        from = comma + 1;
    }
    return out;
}

std::optional<std::int64_t> busIdToNccl(std::string_view pci)
{
    pci = trim(pci);
    // domain:bus:device.function, each part hex; the domain may be 4 or 8 digits.
    const auto c1 = pci.find(':');
    const auto c2 = c1 == std::string_view::npos ? c1 : pci.find(':', c1 + 1);
    const auto dot = c2 == std::string_view::npos ? c2 : pci.find('.', c2 + 1);
    if (dot == std::string_view::npos)
        return std::nullopt;
    auto hex = [](std::string_view s, std::size_t maxDigits) -> std::optional<std::int64_t> {
        std::int64_t v = 0;
        if (s.empty() || s.size() > maxDigits
            || std::from_chars(s.data(), s.data() + s.size(), v, 16).ptr != s.data() + s.size())
            return std::nullopt;
        return v;
    };
    const auto domain = hex(pci.substr(0, c1), 8);
    const auto bus = hex(pci.substr(c1 + 1, c2 - c1 - 1), 2);
    const auto device = hex(pci.substr(c2 + 1, dot - c2 - 1), 2);
    const auto function = hex(pci.substr(dot + 1), 1);
    if (!domain || !bus || !device || !function || *domain > 0xffff)
        return std::nullopt;
    return (*domain << 20) | (*bus << 12) | (*device << 4) | *function;
}

std::size_t editDistance(std::string_view a, std::string_view b, std::size_t limit)
{
    const std::size_t gap = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    if (gap > limit)
        return limit + 1;
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        std::size_t best = cur[0];
        for (std::size_t j = 1; j <= b.size(); ++j) {
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            best = std::min(best, cur[j]);
        }
        if (best > limit)
            return limit + 1;
        std::swap(prev, cur);
    }
    return std::min(prev[b.size()], limit + 1);
}

std::vector<std::string_view> splitWhitespace(std::string_view line)
{
    std::vector<std::string_view> words;
    for (std::size_t i = 0; i < line.size();) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
        const std::size_t b = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i])))
            ++i;
        if (i > b)
            words.push_back(line.substr(b, i - b));
    }
    return words;
}

std::optional<TimeNs> tableDate(std::string_view line, const std::string &zone)
{
    static const char *const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    static const char *const kDays[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    const std::vector<std::string_view> t = splitWhitespace(line);
    if (t.size() != 5 || std::find(std::begin(kDays), std::end(kDays), t[0]) == std::end(kDays))
        return std::nullopt;
    const auto m = std::find(std::begin(kMonths), std::end(kMonths), t[1]);
    int day = 0, year = 0;
    if (m == std::end(kMonths) || std::from_chars(t[2].data(), t[2].data() + t[2].size(), day).ec != std::errc()
        || std::from_chars(t[4].data(), t[4].data() + t[4].size(), year).ec != std::errc())
        return std::nullopt;
    // `HH:mm:ss`
    const std::string_view hms = t[3];
    auto two = [&](std::size_t at) {
        return std::isdigit(static_cast<unsigned char>(hms[at])) && std::isdigit(static_cast<unsigned char>(hms[at + 1]))
            ? (hms[at] - '0') * 10 + (hms[at + 1] - '0')
            : -1;
    };
    if (hms.size() != 8 || hms[2] != ':' || hms[5] != ':')
        return std::nullopt;
    const int h = two(0), mi = two(3), sec = two(6);
    if (h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59)
        return std::nullopt;
    // A table header of year 2 or 9999 overflows in ns (found fuzzing): no date of a job.
    return wallclock::localTime(year, int(m - std::begin(kMonths)) + 1, day, ((TimeNs(h) * 60 + mi) * 60 + sec) * 1000000000LL, zone);
}

} // namespace rs::nvidiasmi
