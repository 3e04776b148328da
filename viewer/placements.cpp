#include "placements.h"

#include <QCoreApplication>

namespace rs {

const Placement *findPlacement(const AnalysisResult *analysis, Placement::Kind kind, std::size_t index)
{
    if (!analysis)
        return nullptr;
    for (const Placement &p : analysis->placements)
        if (p.kind == kind && p.index == index)
            return &p;
    return nullptr;
}

const Placement *findLogPlacement(const Session &session, const AnalysisResult *analysis, std::uint32_t record)
{
    if (!analysis || analysis->placements.empty() || record >= session.logs().records.size())
        return nullptr;
    const LogRecord &r = session.logs().records[record];
    if (r.time != kNoTime || r.line <= 0)
        return nullptr;
    for (const Placement &p : analysis->placements) {
        if (p.kind != Placement::Kind::Oom || p.index >= session.ooms().size())
            continue;
        const OomEvent &o = session.ooms()[p.index];
        if (o.time == kNoTime && o.source == r.source && o.line == r.line)
            return &p;
    }
    return nullptr;
}

TimeNs placedDataTime(const AnalysisResult &analysis, const Placement &placement)
{
    for (const RankAlignment &a : analysis.alignment)
        if (a.rank == placement.rank)
            return placement.timeNs - a.offsetNs;
    return placement.timeNs;
}

QString placedByText(const Placement &placement)
{
    return QCoreApplication::translate("rs::Placement", "placed by anchor: %1").arg(QString::fromStdString(placement.anchor));
}

} // namespace rs
