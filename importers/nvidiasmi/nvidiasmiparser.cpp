#include "nvidiasmiparser.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

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
        return millis ? w * 1000000 + f : w * 1000000000 + f;
    }
    const QString text = QString::fromUtf8(value.data(), qsizetype(value.size()));
    QDateTime dt;
    if (value.size() >= 19 && value[4] == '/' && value[7] == '/') {
        // nvidia-smi's own stamp: local time without a zone.
        dt = QDateTime::fromString(text.left(23), QStringLiteral("yyyy/MM/dd HH:mm:ss.zzz"));
        if (!dt.isValid())
            dt = QDateTime::fromString(text.left(19), QStringLiteral("yyyy/MM/dd HH:mm:ss"));
        if (!dt.isValid())
            return std::nullopt;
        const QTimeZone tz = zone.empty() ? QTimeZone::systemTimeZone() : QTimeZone(QByteArray::fromStdString(zone));
        dt = QDateTime(dt.date(), dt.time(), tz.isValid() ? tz : QTimeZone::systemTimeZone());
    } else {
        dt = QDateTime::fromString(text, Qt::ISODateWithMs);
        if (!dt.isValid())
            return std::nullopt;
        if (dt.timeSpec() == Qt::LocalTime && !zone.empty()) {
            const QTimeZone tz(QByteArray::fromStdString(zone));
            if (tz.isValid())
                dt = QDateTime(dt.date(), dt.time(), tz);
        }
    }
    return static_cast<TimeNs>(dt.toMSecsSinceEpoch()) * 1000000;
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

} // namespace rs::nvidiasmi
