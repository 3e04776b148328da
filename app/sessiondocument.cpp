#include "sessiondocument.h"

#include "inputstream.h"

#include "report/incidentreport.h"
#include "timeline/lanelayout.h"

#include <QDir>
#include <QTimeZone>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <nlohmann/json.hpp>
#include <zstd.h>

#include <algorithm>
#include <filesystem>

namespace rs {

namespace {

using json = nlohmann::ordered_json; // keys stay in writing order: "schema" first, readable diffs

const char *kindName(Annotation::Kind k)
{
    switch (k) {
    case Annotation::Kind::Note: return "note";
    case Annotation::Kind::Arrow: return "arrow";
    case Annotation::Kind::Range: return "range";
    }
    return "note";
}

// Unknown kinds are an error rather than a silent "note": a newer RankScope may have added one,
// and drawing it as something else would misstate what the person marked.
std::optional<Annotation::Kind> kindFromName(const std::string &s)
{
    if (s == "note")
        return Annotation::Kind::Note;
    if (s == "arrow")
        return Annotation::Kind::Arrow;
    if (s == "range")
        return Annotation::Kind::Range;
    return std::nullopt;
}

json rankValue(RankId r)
{
    return r == kNoRank ? json(nullptr) : json(r);
}

RankId rankFrom(const json &j, const char *key)
{
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? kNoRank : it->get<RankId>();
}

json annotationJson(const Annotation &a)
{
    json j = {{"id", a.id},
              {"kind", kindName(a.kind)},
              {"origin", a.origin == Annotation::Origin::Finding ? "finding" : "user"},
              {"rank", rankValue(a.rank)},
              {"time_ns", a.time},
              {"end_rank", rankValue(a.endRank)},
              {"end_time_ns", a.endTime},
              {"text", a.text.toStdString()},
              {"color", a.color.isValid() ? json(a.color.name(QColor::HexRgb).toStdString()) : json(nullptr)}};
    if (!a.findingKey.empty())
        j["finding_key"] = a.findingKey;
    return j;
}

Annotation annotationFrom(const json &j, std::size_t index)
{
    Annotation a;
    a.id = j.value("id", std::uint64_t{0});
    const auto kind = kindFromName(j.at("kind").get<std::string>());
    if (!kind)
        throw std::runtime_error("annotation " + std::to_string(index) + ": unknown kind '" +
                                 j.at("kind").get<std::string>() + "'");
    a.kind = *kind;
    a.origin = j.value("origin", std::string("user")) == "finding" ? Annotation::Origin::Finding : Annotation::Origin::User;
    a.rank = rankFrom(j, "rank");
    a.time = j.at("time_ns").get<TimeNs>();
    a.endRank = rankFrom(j, "end_rank");
    a.endTime = j.value("end_time_ns", a.time);
    a.text = QString::fromStdString(j.value("text", std::string()));
    if (const auto c = j.find("color"); c != j.end() && c->is_string())
        a.color = QColor(QString::fromStdString(c->get<std::string>()));
    a.findingKey = j.value("finding_key", std::string());
    return a;
}

std::string canonical(const std::string &p)
{
    std::error_code ec;
    const auto c = std::filesystem::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

std::int64_t fileSize(const std::string &path)
{
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    return ec ? -1 : static_cast<std::int64_t>(n);
}

bool isFile(const std::string &path)
{
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec);
}

QString q(const std::string &s)
{
    return QString::fromStdString(s);
}

} // namespace

SessionDocument SessionDocument::describe(const Session &session, const SessionLoader::Options &options,
                                          const QString &documentPath)
{
    SessionDocument doc;
    // "Local" is this machine's zone: the session names it, so the zone-less stamps (nvidia-smi,
    // logs) it was read with mean the same on the machine that opens it next.
    doc.timeZone = options.timeZone.empty() ? QTimeZone::systemTimeZoneId().toStdString() : options.timeZone;
    const QDir base = QFileInfo(documentPath).absoluteDir();
    std::map<std::string, RankId> overrides;
    for (const auto &[path, rank] : options.rankOverrides)
        overrides[canonical(path)] = rank;
    std::map<std::string, std::map<RankId, RankId>> maps;
    for (const auto &[path, map] : options.rankMaps)
        maps[canonical(path)] = map;

    for (const Source &s : session.sources()) {
        SourceEntry e;
        const QString absolute = QFileInfo(q(s.path)).absoluteFilePath();
        e.absolutePath = absolute.toStdString();
        e.path = QDir::fromNativeSeparators(base.relativeFilePath(absolute)).toStdString();
        e.size = fileSize(s.path);
        e.sha256 = IncidentReport::sha256File(s.path).value_or(std::string());
        const std::string key = canonical(s.path);
        if (const auto it = overrides.find(key); it != overrides.end())
            e.rank = it->second;
        if (const auto it = maps.find(key); it != maps.end())
            e.rankMap = it->second;
        doc.sources.push_back(std::move(e));
    }
    return doc;
}

namespace {

json pinnedJson(const std::vector<SessionDocument::View::PinnedLane> &lanes)
{
    json out = json::array();
    for (const auto &l : lanes)
        out.push_back({{"rank", l.rank}, {"kind", l.kind}, {"track", l.track == kNoTrack ? json(nullptr) : json(l.track)}});
    return out;
}

} // namespace

std::string SessionDocument::toJson(const SessionDocument &doc)
{
    json sources = json::array();
    for (const SourceEntry &s : doc.sources) {
        json e = {{"path", s.path}, {"absolute_path", s.absolutePath}, {"size", s.size}, {"sha256", s.sha256}};
        if (s.rank)
            e["rank"] = *s.rank;
        if (!s.rankMap.empty()) {
            json m = json::object();
            for (const auto &[from, to] : s.rankMap)
                m[std::to_string(from)] = to;
            e["rank_map"] = m;
        }
        sources.push_back(std::move(e));
    }
    json offsets = json::object();
    for (const auto &[rank, ns] : doc.clockOffsets)
        offsets[std::to_string(rank)] = ns;
    json annotations = json::array();
    for (const Annotation &a : doc.annotations)
        annotations.push_back(annotationJson(a));
    json view = {{"hidden_ranks", doc.view.hidden},
                 {"collapsed_ranks", doc.view.collapsed},
                 {"compact_lanes", doc.view.compactLanes},
                 {"memory_lane_height", doc.view.memoryLaneHeight},
                 {"pinned_lanes", pinnedJson(doc.view.pinned)},
                 {"selected_rank", rankValue(doc.view.selectedRank)},
                 {"reference_rank", rankValue(doc.view.referenceRank)}};
    view["visible_ns"] = doc.view.visible ? json::array({doc.view.visible->begin, doc.view.visible->end}) : json(nullptr);
    const json j = {{"schema", kSchema},
                    {"sources", sources},
                    {"time_zone", doc.timeZone},
                    {"clock_offsets_ns", offsets},
                    {"annotations", annotations},
                    {"deleted_finding_keys", doc.deletedFindingKeys},
                    {"edited_finding_keys", doc.editedFindingKeys},
                    {"finding_annotations_visible", doc.findingAnnotationsVisible},
                    {"view", view}};
    return j.dump(1);
}

std::optional<SessionDocument> SessionDocument::fromJson(const std::string &text, QString *error)
{
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error &e) {
        if (error)
            *error = QStringLiteral("byte %1: malformed JSON (%2)").arg(e.byte).arg(QString::fromUtf8(e.what()));
        return std::nullopt;
    }
    try {
        if (!j.is_object() || j.value("schema", std::string()) != kSchema) {
            if (error)
                *error = QStringLiteral("not a RankScope session (schema \"%1\" expected)").arg(QLatin1String(kSchema));
            return std::nullopt;
        }
        SessionDocument doc;
        for (const json &e : j.at("sources")) {
            SourceEntry s;
            s.path = e.at("path").get<std::string>();
            s.absolutePath = e.value("absolute_path", std::string());
            s.size = e.value("size", std::int64_t{-1});
            s.sha256 = e.value("sha256", std::string());
            if (const auto r = e.find("rank"); r != e.end() && !r->is_null())
                s.rank = r->get<RankId>();
            if (const auto m = e.find("rank_map"); m != e.end())
                for (const auto &[from, to] : m->items())
                    s.rankMap[static_cast<RankId>(std::stol(from))] = to.get<RankId>();
            doc.sources.push_back(std::move(s));
        }
        doc.timeZone = j.value("time_zone", std::string());
        if (const auto o = j.find("clock_offsets_ns"); o != j.end())
            for (const auto &[rank, ns] : o->items())
                doc.clockOffsets[static_cast<RankId>(std::stol(rank))] = ns.get<TimeNs>();
        if (const auto a = j.find("annotations"); a != j.end())
            for (std::size_t i = 0; i < a->size(); ++i)
                doc.annotations.push_back(annotationFrom((*a)[i], i));
        doc.deletedFindingKeys = j.value("deleted_finding_keys", std::vector<std::string>());
        doc.editedFindingKeys = j.value("edited_finding_keys", std::vector<std::string>());
        doc.findingAnnotationsVisible = j.value("finding_annotations_visible", true);
        if (const auto v = j.find("view"); v != j.end() && v->is_object()) {
            doc.view.hidden = v->value("hidden_ranks", std::vector<RankId>());
            doc.view.collapsed = v->value("collapsed_ranks", std::vector<RankId>());
            doc.view.compactLanes = v->value("compact_lanes", false);
            // A height from a hand-edited file is kept within what a drag allows.
            const int height = v->value("memory_lane_height", 0);
            doc.view.memoryLaneHeight = height <= 0 ? 0 : std::clamp(height, LaneLayout::kMinMemoryHeight, LaneLayout::kMaxMemoryHeight);
            if (const auto p = v->find("pinned_lanes"); p != v->end() && p->is_array())
                for (const json &lane : *p)
                    doc.view.pinned.push_back({lane.at("rank").get<RankId>(), lane.at("kind").get<std::string>(),
                                               lane.value("track", json(nullptr)).is_null() ? kNoTrack : lane.at("track").get<TrackId>()});
            doc.view.selectedRank = rankFrom(*v, "selected_rank");
            doc.view.referenceRank = rankFrom(*v, "reference_rank");
            if (const auto r = v->find("visible_ns"); r != v->end() && r->is_array() && r->size() == 2)
                doc.view.visible = TimeRange{(*r)[0].get<TimeNs>(), (*r)[1].get<TimeNs>()};
        }
        return doc;
    } catch (const std::exception &e) {
        // Wrong types or missing required keys: name what was wrong rather than guessing a value.
        if (error)
            *error = QStringLiteral("invalid session: %1").arg(QString::fromUtf8(e.what()));
        return std::nullopt;
    }
}

bool SessionDocument::save(const SessionDocument &doc, const QString &path, QString *error)
{
    const std::string text = toJson(doc);
    std::string packed(ZSTD_compressBound(text.size()), '\0');
    const std::size_t n = ZSTD_compress(packed.data(), packed.size(), text.data(), text.size(), 9);
    if (ZSTD_isError(n)) {
        if (error)
            *error = QStringLiteral("%1: compression failed (%2)").arg(path, QString::fromUtf8(ZSTD_getErrorName(n)));
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(packed.data(), static_cast<qint64>(n)) != static_cast<qint64>(n)
        || !file.commit()) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

std::optional<SessionDocument> SessionDocument::load(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, file.errorString());
        return std::nullopt;
    }
    if (file.size() > kMaxDocumentBytes) {
        if (error)
            *error = QStringLiteral("%1: too large for a session file (%2 bytes)").arg(path).arg(file.size());
        return std::nullopt;
    }
    const QByteArray raw = file.readAll();
    std::string text;
    if (raw.size() >= 4 && static_cast<unsigned char>(raw[0]) == 0x28 && static_cast<unsigned char>(raw[1]) == 0xB5
        && static_cast<unsigned char>(raw[2]) == 0x2F && static_cast<unsigned char>(raw[3]) == 0xFD) {
        // Stream-decompress with a cap: the frame header's content size can lie or be absent.
        ZSTD_DCtx *dctx = ZSTD_createDCtx();
        ZSTD_inBuffer in{raw.constData(), static_cast<std::size_t>(raw.size()), 0};
        std::string chunk(1 << 16, '\0');
        std::size_t ret = 1;
        while (in.pos < in.size) {
            ZSTD_outBuffer out{chunk.data(), chunk.size(), 0};
            ret = ZSTD_decompressStream(dctx, &out, &in);
            if (ZSTD_isError(ret)) {
                ZSTD_freeDCtx(dctx);
                if (error)
                    *error = QStringLiteral("%1: byte %2: corrupt zstd data (%3)")
                                 .arg(path).arg(in.pos).arg(QString::fromUtf8(ZSTD_getErrorName(ret)));
                return std::nullopt;
            }
            text.append(chunk.data(), out.pos);
            if (static_cast<std::int64_t>(text.size()) > kMaxDocumentBytes) {
                ZSTD_freeDCtx(dctx);
                if (error)
                    *error = QStringLiteral("%1: decompresses to more than %2 MiB; not a session file")
                                 .arg(path).arg(kMaxDocumentBytes >> 20);
                return std::nullopt;
            }
            if (ret == 0 && in.pos == in.size)
                break;
        }
        ZSTD_freeDCtx(dctx);
        if (ret != 0) {
            if (error)
                *error = QStringLiteral("%1: byte %2: truncated zstd data").arg(path).arg(raw.size());
            return std::nullopt;
        }
    } else {
        text.assign(raw.constData(), static_cast<std::size_t>(raw.size()));
    }
    QString why;
    auto doc = fromJson(text, &why);
    if (!doc && error)
        *error = QStringLiteral("%1: %2").arg(path, why);
    return doc;
}

bool SessionDocument::looksLikeSessionFile(const QString &path)
{
    if (path.endsWith(QLatin1String(".rankscope"), Qt::CaseInsensitive))
        return true;
    // Sniffing opens the file: a FIFO or a device would block it (or never end), so only a regular
    // file is looked into.
    if (!InputStream::notRegular(path.toStdString()).empty())
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QByteArray head = file.read(256);
    // A zstd frame alone is not enough (traces can be .zst): only JSON naming our schema counts,
    // or the extension above.
    return head.trimmed().startsWith('{') && head.contains(kSchema);
}

SessionDocument::Resolution SessionDocument::resolve(const SessionDocument &doc, const QString &documentPath, bool verify,
                                                     bool allowOutside)
{
    Resolution r;
    r.options.timeZone = doc.timeZone;
    const QDir base = QFileInfo(documentPath).absoluteDir();
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path home = fs::weakly_canonical(base.absolutePath().toStdString(), ec);
    // Inside = below the session file's folder once links are resolved.
    auto inside = [&home](const std::string &file) {
        std::error_code e;
        const fs::path real = fs::weakly_canonical(file, e);
        if (e)
            return false;
        const auto rel = real.lexically_relative(home);
        return !rel.empty() && *rel.begin() != "..";
    };
    for (const SourceEntry &s : doc.sources) {
        const std::string relative = QDir::cleanPath(base.absoluteFilePath(q(s.path))).toStdString();
        const std::string byName = base.absoluteFilePath(QFileInfo(q(s.path)).fileName()).toStdString();
        std::string found;
        if (isFile(relative))
            found = relative;
        else if (!s.absolutePath.empty() && isFile(s.absolutePath))
            found = s.absolutePath;
        else if (isFile(byName))
            found = byName;

        if (found.empty()) {
            r.problems.push_back({Problem::Kind::Missing, s.path, {},
                                  s.path + ": missing (looked beside the session file and at " +
                                      (s.absolutePath.empty() ? relative : s.absolutePath) + "); not loaded"});
            continue;
        }
        if (!allowOutside && !inside(found)) {
            // Named by where it really is: a link inside the folder can point anywhere.
            std::error_code e;
            const fs::path real = fs::weakly_canonical(found, e);
            const std::string where = e ? found : real.string();
            r.problems.push_back({Problem::Kind::Outside, s.path, where,
                                  s.path + ": outside the session file's folder (" + where
                                      + "); not opened without consent (--allow-outside-sources)"});
            continue;
        }
        if (found != relative)
            r.problems.push_back({Problem::Kind::Moved, s.path, found, s.path + ": moved; loaded from " + found});
        if (verify) {
            const std::int64_t size = fileSize(found);
            if (s.size >= 0 && size != s.size) {
                r.problems.push_back({Problem::Kind::Changed, s.path, found,
                                      s.path + ": changed since the session was saved (" + std::to_string(s.size) +
                                          " bytes then, " + std::to_string(size) + " now); loaded as it is now"});
            } else if (!s.sha256.empty()) {
                const auto sum = IncidentReport::sha256File(found);
                if (sum && *sum != s.sha256)
                    r.problems.push_back({Problem::Kind::Changed, s.path, found,
                                          s.path + ": changed since the session was saved (SHA-256 differs); loaded as it is now"});
            }
        }
        if (s.rank)
            r.options.rankOverrides[found] = *s.rank;
        if (!s.rankMap.empty())
            r.options.rankMaps[found] = s.rankMap;
        r.paths.push_back(found);
    }
    return r;
}

} // namespace rs
