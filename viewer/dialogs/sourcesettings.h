#pragma once
// What the user can decide about one input file, as plain values: the rank of a single-rank file,
// the GPU index → rank map of a file that feeds several ranks, and the session's time zone for
// time stamps that carry none. Built from a session and the choices in force, and written back
// into them, so the dialog never sees the loader and the translation is testable on its own.

#include "session.h"

#include <QString>
#include <QStringList>

#include <map>
#include <optional>
#include <string>

namespace rs {

/// The user's decisions about the inputs, in the loader's terms (SessionLoader::Options without
/// the loader): keyed by the path the session names each file by.
struct InputChoices {
    std::map<std::string, RankId> rankOverrides;                 ///< path → rank
    std::map<std::string, std::map<RankId, RankId>> rankMaps;    ///< path → (GPU index or rank in the file → rank)
    std::string timeZone;                                        ///< IANA id; empty: this machine's zone
};

struct SourceSettings {
    QString path;                       ///< the file, as the session names it
    QString format;                     ///< its format id ("nvidia-smi"), shown in the heading
    bool multiRank = false;             ///< feeds several ranks: edit `rankMap` rather than one rank

    // Single-rank files.
    RankId currentRank = kNoRank;       ///< the rank it has in the current session
    QString rankOrigin;                 ///< where that rank came from, in words ("the file name")
    std::optional<RankId> rankOverride; ///< the user's rank; nullopt: decided automatically

    // Multi-rank files.
    QString mapKeyName;                 ///< what the map's keys are ("GPU index", "Rank in the file")
    QString mapOrigin;                  ///< where the current mapping came from, in words
    std::map<int, RankId> currentMap;   ///< key → rank as the current session has it (pre-fills the table)
    std::optional<std::map<int, RankId>> rankMap; ///< the user's map; nullopt: decided automatically

    // The whole session.
    QString timeZone;                   ///< IANA id for zone-less time stamps; empty: this machine's zone
    QStringList zoneSources;            ///< names of the loaded files the zone applies to

    /// What to show for `source` of `session` under `choices`. A file is multi-rank when its ranks
    /// came from GPU indexes (nvidia-smi), when it feeds several ranks, or when the user mapped it.
    static SourceSettings forSource(const Session &session, SourceId source, const InputChoices &choices);
    /// Writes these settings into `choices`: the file's override or map (dropped when automatic,
    /// also under another spelling of the same path) and the time zone.
    void applyTo(InputChoices &choices) const;
    /// "the file name", "NCCL's "rank R … cudaDev D" lines", ...
    static QString originWords(RankOrigin origin);
};

} // namespace rs
