#pragma once
// The `.rankscope` session file: everything a person decided about an incident, so that reopening
// it shows exactly what they saw — which files (relative paths and SHA-256, so a moved folder or a
// changed file is noticed), rank assignments, GPU→rank maps, the time zone, clock-offset overrides,
// annotations and the view. JSON (schema "rankscope.session/1") compressed with zstd; plain JSON
// is read too, so a hand-edited file still opens. Written atomically with QSaveFile: a crash while
// saving never leaves half a session behind.
//
// Paths are stored relative to the session file's folder (with the absolute path as a second
// chance), so an incident folder can be zipped and handed on. Resolving a document looks for each
// source relative to the session file, then at its absolute path, then by name beside the session
// file; a source found nowhere, or found with another size or checksum, is reported as a Problem —
// never silently dropped.

#include "annotations/annotation.h"
#include "session.h"
#include "sessionloader.h"

#include <QString>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rs {

struct SessionDocument {
    /// Schema id written into every file; files with another id are refused.
    static constexpr const char *kSchema = "rankscope.session/1";
    /// Largest decompressed document accepted (a session file is small; this stops a zstd bomb).
    static constexpr std::int64_t kMaxDocumentBytes = 256LL << 20;

    struct SourceEntry {
        std::string path;            ///< relative to the session file's folder when saved ('/' separators)
        std::string absolutePath;    ///< where it was when saved (second chance when `path` fails)
        std::int64_t size = -1;      ///< bytes when saved, -1 unknown
        std::string sha256;          ///< lower-case hex SHA-256 when saved, "" unknown
        std::optional<RankId> rank;  ///< the user's rank override for this file, if any
        std::map<RankId, RankId> rankMap; ///< the user's GPU index / file rank → rank map, if any
        friend bool operator==(const SourceEntry &, const SourceEntry &) = default;
    };

    /// What the views showed.
    struct View {
        std::optional<TimeRange> visible;   ///< aligned-axis window, if one was saved
        std::vector<RankId> hidden;         ///< ranks hidden from every view
        std::vector<RankId> collapsed;      ///< ranks folded to their summary strip
        bool compactLanes = false;          ///< compact lanes (ViewState::compactLanes)
        int memoryLaneHeight = 0;           ///< the user's memory lane height in px, 0 = automatic
        /// A lane pinned to the top of the timeline (ViewState::pinnedLanes).
        struct PinnedLane {
            RankId rank = kNoRank;
            std::string kind;                ///< the lane kind's id ("memory", "spans")
            TrackId track = kNoTrack;        ///< kNoTrack for a rank-level lane
            friend bool operator==(const PinnedLane &, const PinnedLane &) = default;
        };
        std::vector<PinnedLane> pinned;     ///< in the order they were pinned
        RankId selectedRank = kNoRank;      ///< the rank picked as "the one to look at"
        RankId referenceRank = kNoRank;     ///< the compare view's reference, kNoRank = its default
        friend bool operator==(const View &, const View &) = default;
    };

    std::vector<SourceEntry> sources;            ///< the files, in load order
    std::string timeZone;                        ///< zone of zone-less time stamps, "" = local
    std::map<RankId, TimeNs> clockOffsets;       ///< the user's clock-offset overrides (rank → ns)
    std::vector<Annotation> annotations;         ///< every annotation, finding-made ones included
    std::vector<std::string> deletedFindingKeys; ///< finding annotations the user deleted (stay deleted)
    std::vector<std::string> editedFindingKeys;  ///< finding annotations the user edited (kept as edited)
    bool findingAnnotationsVisible = true;       ///< whether finding annotations are drawn
    View view;                                   ///< what was shown
    friend bool operator==(const SessionDocument &, const SessionDocument &) = default;

    /// A source of the document that could not be opened as it was saved.
    struct Problem {
        enum class Kind : std::uint8_t {
            Missing, ///< found nowhere; not loaded
            Moved,   ///< not at its relative path; found elsewhere (`foundAt`) and loaded
            Changed, ///< found, but its size or checksum differs from the saved one; loaded anyway
            Outside, ///< found outside the session file's folder (absolute, or escaping with ..): not
                     ///< opened without consent (--allow-outside-sources, or the GUI's question)
        };
        Kind kind = Kind::Missing;
        std::string path;    ///< the path as saved (relative)
        std::string foundAt; ///< where it was found ("" when Missing)
        std::string message; ///< one sentence for people, naming the file
    };
    /// The files to load and what was wrong with them.
    struct Resolution {
        std::vector<std::string> paths;  ///< existing files, in document order
        std::vector<Problem> problems;   ///< missing, moved and changed sources
        SessionLoader::Options options;  ///< rank overrides, maps and time zone keyed by `paths`
    };

    /// Builds a document of `session` for a file to be written at `documentPath`: relative paths,
    /// sizes and checksums (hashing reads every source: call it off the UI thread for big traces),
    /// the rank choices of `options` that apply to the session's files.
    static SessionDocument describe(const Session &session, const SessionLoader::Options &options,
                                    const QString &documentPath);

    /// Writes `doc` to `path` atomically (zstd-compressed JSON). False with `error` set on failure.
    static bool save(const SessionDocument &doc, const QString &path, QString *error);
    /// Reads a session file (zstd or plain JSON). nullopt with `error` naming the file and, for bad
    /// JSON, the byte offset.
    static std::optional<SessionDocument> load(const QString &path, QString *error);
    /// True when the first bytes of `path` are a session file (zstd frame or JSON with our schema).
    static bool looksLikeSessionFile(const QString &path);

    /// Finds the sources of `doc` (saved at `documentPath`) on disk; with `verify`, compares sizes
    /// and checksums (reads every file). A source outside the session file's folder (after links
    /// are followed) is neither opened nor hashed unless `allowOutside`: a session file from
    /// someone else must not make RankScope read /etc/passwd or /proc/self/environ.
    static Resolution resolve(const SessionDocument &doc, const QString &documentPath, bool verify = true,
                              bool allowOutside = false);

    /// The document as JSON text (for tests and the plain form).
    static std::string toJson(const SessionDocument &doc);
    /// Parses JSON text; nullopt with `error` set (byte offset included) when malformed.
    static std::optional<SessionDocument> fromJson(const std::string &text, QString *error);
};

} // namespace rs
