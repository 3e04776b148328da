#pragma once
// Counts with their noun ("1 error", "3 errors", "1,234 spans"). Qt's "%n" plurals need a loaded
// translation to read well, which an English-only tool does not ship.

#include <QLocale>
#include <QString>

namespace rs {

/// `n` in the default locale's digits, followed by `singular` when n == 1, else `plural`.
inline QString countOf(qint64 n, const QString &singular, const QString &plural)
{
    return QLocale().toString(n) + QLatin1Char(' ') + (n == 1 ? singular : plural);
}

} // namespace rs
