#include "logstyle.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QStringList>

#include <cmath>
#include <numbers>

namespace rs {

LogStyle::Mark LogStyle::mark(const LogRecord &record)
{
    if (record.flags & LogFlagOom)
        return Mark::Oom;
    switch (record.level) {
    case LogLevel::Info: return Mark::Info;
    case LogLevel::Warning: return Mark::Warning;
    case LogLevel::Error: return Mark::Error;
    }
    return Mark::Info;
}

QColor LogStyle::color(Mark mark)
{
    switch (mark) {
    case Mark::Info: return {0x9a, 0xa1, 0xad};
    case Mark::Warning: return {0xd9, 0x8b, 0x1c};
    case Mark::Error: return {0xc9, 0x2a, 0x2a};
    case Mark::Oom: return {0xb0, 0x10, 0x3a};
    }
    return Qt::gray;
}

QColor LogStyle::textColor(LogLevel level)
{
    switch (level) {
    case LogLevel::Info: return {0x6b, 0x72, 0x80};
    case LogLevel::Warning: return {0xa1, 0x5c, 0x07};
    case LogLevel::Error: return {0xb4, 0x23, 0x18};
    }
    return Qt::black;
}

QString LogStyle::levelName(LogLevel level)
{
    switch (level) {
    case LogLevel::Info: return QStringLiteral("INFO");
    case LogLevel::Warning: return QStringLiteral("WARN");
    case LogLevel::Error: return QStringLiteral("ERROR");
    }
    return {};
}

QString LogStyle::kindName(LogKind kind)
{
    switch (kind) {
    case LogKind::Nccl: return QStringLiteral("NCCL");
    case LogKind::PyTorch: return QStringLiteral("PyTorch");
    case LogKind::Torchrun: return QStringLiteral("torchrun");
    case LogKind::Python: return QStringLiteral("Python");
    case LogKind::Other: return tr("other");
    }
    return {};
}

QString LogStyle::flagNames(std::uint16_t flags)
{
    static const std::pair<LogFlag, const char *> names[] = {
        {LogFlagOom, QT_TR_NOOP("out of memory")},
        {LogFlagWatchdogTimeout, QT_TR_NOOP("watchdog timeout")},
        {LogFlagDesync, QT_TR_NOOP("desync")},
        {LogFlagUnusedParameters, QT_TR_NOOP("DDP unused parameters")},
        {LogFlagChildFailed, QT_TR_NOOP("child failed")},
        {LogFlagNcclInit, QT_TR_NOOP("NCCL init")},
        {LogFlagNcclSetting, QT_TR_NOOP("NCCL setting")},
        {LogFlagNcclCollective, QT_TR_NOOP("NCCL collective")},
        {LogFlagInterleaved, QT_TR_NOOP("interleaved with other output")},
        {LogFlagNcclAbort, QT_TR_NOOP("communicator abort")},
    };
    QStringList out;
    for (const auto &[bit, name] : names)
        if (flags & bit)
            out << tr(name);
    return out.join(QStringLiteral(", "));
}

QString LogStyle::message(const LogEvidence &logs, const LogRecord &record)
{
    if (logs.lost(record))
        return tr("(message no longer in the import cache: open the file again to read it)");
    const std::string_view text = logs.text(record);
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString LogStyle::rankName(RankId rank)
{
    if (rank == kJobLevel)
        return tr("job");
    if (rank < 0)
        return tr("unknown");
    return tr("rank %1").arg(rank);
}

void LogStyle::paintMarker(QPainter &p, QPointF c, Mark mark, double r, int outline)
{
    const QColor fill = color(mark);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, true);
    QPainterPath path;
    switch (mark) {
    case Mark::Info:
        // A thin tick: many INFO lines should read as texture, not as alarms.
        path.addRect(QRectF(c.x() - 0.75, c.y() - r * 0.75, 1.5, r * 1.5));
        break;
    case Mark::Warning: {
        // A warning sign: a triangle standing on its base.
        const double h = r * 1.9;
        path.moveTo(c.x(), c.y() - h / 2 - 0.5);
        path.lineTo(c.x() + h * 0.58, c.y() + h / 2);
        path.lineTo(c.x() - h * 0.58, c.y() + h / 2);
        path.closeSubpath();
        break;
    }
    case Mark::Error: {
        const double d = r * 1.05;
        path.moveTo(c.x(), c.y() - d);
        path.lineTo(c.x() + d, c.y());
        path.lineTo(c.x(), c.y() + d);
        path.lineTo(c.x() - d, c.y());
        path.closeSubpath();
        break;
    }
    case Mark::Oom:
        // An octagon (a stop sign) with a white bar: the record most incidents are opened for.
        for (int i = 0; i < 8; ++i) {
            const double a = (22.5 + 45.0 * i) * std::numbers::pi / 180.0;
            const QPointF v(c.x() + r * 1.15 * std::cos(a), c.y() + r * 1.15 * std::sin(a));
            if (i == 0)
                path.moveTo(v);
            else
                path.lineTo(v);
        }
        path.closeSubpath();
        break;
    }
    if (outline > 0) {
        p.setPen(QPen(outline > 1 ? QColor(0x10, 0x12, 0x18) : QColor(0x10, 0x12, 0x18, 150), outline > 1 ? 2.0 : 1.0));
        p.setBrush(Qt::NoBrush);
        const double ring = (mark == Mark::Info ? r * 0.8 : r * 1.25) + (outline > 1 ? 2.5 : 2.0);
        p.drawEllipse(c, ring, ring);
    }
    p.setPen(mark == Mark::Info ? Qt::NoPen : QPen(fill.darker(135), 1));
    p.setBrush(fill);
    p.drawPath(path);
    if (mark == Mark::Oom && r >= 4) {
        p.setPen(Qt::NoPen);
        p.setBrush(Qt::white);
        p.drawRect(QRectF(c.x() - r * 0.55, c.y() - 0.9, r * 1.1, 1.8));
    }
    p.restore();
}

QIcon LogStyle::markerIcon(Mark mark)
{
    QPixmap pm(14, 14);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    paintMarker(p, QPointF(7, 7), mark, 5.0);
    p.end();
    return QIcon(pm);
}

} // namespace rs
