#pragma once
// How log records look everywhere they appear (timeline log lane, log panel, details, tooltips):
// one place decides that INFO is dimmed, WARN amber, errors red and that out-of-memory records get a
// glyph of their own, so a red circle on the lane is the same thing as a red row in the table.

#include "records.h"

#include <QColor>
#include <QCoreApplication>
#include <QIcon>
#include <QPointF>
#include <QString>

class QPainter;

namespace rs {

class LogStyle
{
    Q_DECLARE_TR_FUNCTIONS(LogStyle)

public:
    /// What a record's marker says, most severe last (the order markers are drawn in).
    enum class Mark : std::uint8_t { Info, Warning, Error, Oom };

    /// The mark of `record`: Oom for CUDA out-of-memory records, else its level.
    static Mark mark(const LogRecord &record);
    /// Marker and text colour of a mark on white.
    static QColor color(Mark mark);
    /// Text colour of a table row or tooltip line at `level` (INFO is dimmed).
    static QColor textColor(LogLevel level);
    /// "INFO", "WARN", "ERROR".
    static QString levelName(LogLevel level);
    /// "NCCL", "PyTorch", "torchrun", "Python", "other".
    static QString kindName(LogKind kind);
    /// The LogFlag bits as words ("out of memory, watchdog timeout"); empty when none.
    static QString flagNames(std::uint16_t flags);
    /// The message of `record`, or a note saying it is gone from the import cache (evicted or
    /// cleared while the session was open: opening the files again reads it back).
    static QString message(const LogEvidence &logs, const LogRecord &record);
    /// "rank 3", "job" (torchrun's agent) or "unknown".
    static QString rankName(RankId rank);
    /// Draws the marker of `mark` centred on `center`; `radius` is half its height. `outline`
    /// draws a selection (2 px, dark) or hover (1 px) ring around it: 0 none, 1 hover, 2 selected.
    static void paintMarker(QPainter &p, QPointF center, Mark mark, double radius, int outline = 0);
    /// The marker as a small icon for tables (the same glyph as on the log lane). Builds a pixmap:
    /// callers that ask per row should keep the result.
    static QIcon markerIcon(Mark mark);
};

} // namespace rs
