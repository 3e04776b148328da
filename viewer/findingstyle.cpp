#include "findingstyle.h"

#include <QCoreApplication>

namespace rs::FindingStyle {

QColor severityColor(Severity s)
{
    switch (s) {
    case Severity::High: return {0xc9, 0x1d, 0x2e};
    case Severity::Medium: return {0xd9, 0x77, 0x06};
    case Severity::Low: return {0x25, 0x63, 0xeb};
    case Severity::Info: return {0x6b, 0x72, 0x80};
    }
    return {};
}

QString severityLabel(Severity s)
{
    // The context stays "rs::FindingsModel", where these strings were first translated.
    switch (s) {
    case Severity::High: return QCoreApplication::translate("rs::FindingsModel", "High");
    case Severity::Medium: return QCoreApplication::translate("rs::FindingsModel", "Medium");
    case Severity::Low: return QCoreApplication::translate("rs::FindingsModel", "Low");
    case Severity::Info: return QCoreApplication::translate("rs::FindingsModel", "Info");
    }
    return {};
}

QString severityShortLabel(Severity s)
{
    return s == Severity::Medium ? QCoreApplication::translate("rs::FindingsModel", "Med") : severityLabel(s);
}

} // namespace rs::FindingStyle
