#include "sourcesettings.h"

#include <QCoreApplication>
#include <QFileInfo>

namespace rs {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("SourceSettings", text);
}

// The user's entry for `path` in a path-keyed map: the same path, or the same file named another
// way (the command line's relative path, a link).
template<typename Map>
auto findPath(Map &map, const std::string &path)
{
    if (auto it = map.find(path); it != map.end())
        return it;
    const QString canonical = QFileInfo(QString::fromStdString(path)).canonicalFilePath();
    for (auto it = map.begin(); it != map.end(); ++it)
        if (!canonical.isEmpty() && QFileInfo(QString::fromStdString(it->first)).canonicalFilePath() == canonical)
            return it;
    return map.end();
}

} // namespace

QString SourceSettings::originWords(RankOrigin o)
{
    switch (o) {
    case RankOrigin::Content: return tr("the file's content");
    case RankOrigin::FileName: return tr("the file name");
    case RankOrigin::User: return tr("your setting");
    case RankOrigin::Assigned: return tr("the lowest free rank (nothing in the file said)");
    case RankOrigin::DeviceIndex: return tr("the GPU index taken as the rank (no NCCL lines to map it)");
    case RankOrigin::NcclDevice: return tr("NCCL's \"rank R … cudaDev D\" lines");
    }
    return {};
}

SourceSettings SourceSettings::forSource(const Session &session, SourceId id, const InputChoices &choices)
{
    SourceSettings out;
    if (id >= session.sources().size())
        return out;
    const Source &src = session.sources()[id];
    out.path = QString::fromStdString(src.path);
    out.format = QString::fromStdString(src.format);
    out.timeZone = QString::fromStdString(choices.timeZone);
    for (const Source &s : session.sources())
        if (s.format == "nvidia-smi" || s.format == "nccl-log" || s.format == "job-log")
            out.zoneSources << QFileInfo(QString::fromStdString(s.path)).fileName();

    const auto userMap = findPath(choices.rankMaps, src.path);
    const bool byDevice = src.rankOrigin == RankOrigin::DeviceIndex || src.rankOrigin == RankOrigin::NcclDevice
        || src.format == "nvidia-smi";
    out.multiRank = byDevice || src.ranks.size() > 1 || userMap != choices.rankMaps.end();
    if (!out.multiRank) {
        out.currentRank = src.ranks.empty() ? kNoRank : src.ranks.front();
        out.rankOrigin = originWords(src.rankOrigin);
        if (const auto it = findPath(choices.rankOverrides, src.path); it != choices.rankOverrides.end())
            out.rankOverride = it->second;
        return out;
    }
    out.mapOrigin = originWords(src.rankOrigin);
    if (byDevice) {
        // The GPU index stays on every track of the file; the rank it was given is the track's.
        out.mapKeyName = tr("GPU index");
        for (const Track &t : session.tracks())
            if (t.source == id && t.device >= 0 && t.rank >= 0)
                out.currentMap[t.device] = t.rank;
    } else {
        out.mapKeyName = tr("Rank in the file");
        for (RankId r : src.ranks)
            out.currentMap[r] = r;
    }
    if (userMap != choices.rankMaps.end()) {
        out.rankMap = std::map<int, RankId>(userMap->second.begin(), userMap->second.end());
        // Keys the user mapped always get a row, even when the session no longer shows them.
        for (const auto &[key, rank] : *out.rankMap)
            out.currentMap.try_emplace(key, rank);
    }
    return out;
}

void SourceSettings::applyTo(InputChoices &choices) const
{
    const std::string p = path.toStdString();
    if (multiRank) {
        if (auto it = findPath(choices.rankMaps, p); it != choices.rankMaps.end())
            choices.rankMaps.erase(it);
        if (rankMap)
            choices.rankMaps[p] = std::map<RankId, RankId>(rankMap->begin(), rankMap->end());
    } else {
        if (auto it = findPath(choices.rankOverrides, p); it != choices.rankOverrides.end())
            choices.rankOverrides.erase(it);
        if (rankOverride)
            choices.rankOverrides[p] = *rankOverride;
    }
    choices.timeZone = timeZone.toStdString();
}

} // namespace rs
