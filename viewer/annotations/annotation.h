#pragma once
// A user's mark on the aligned time axis: a note pinned to a moment, an arrow from one moment of
// one rank to another (often "rank 2 came late here → its peers waited there"), or a shaded time
// range. Findings of the analysis become annotations too (Origin::Finding), so the picture that
// goes into the incident ticket says what the analysis found without anyone retyping it.
//
// Times are on the aligned axis (wall-clock ns after each rank's clock offset, like every time the
// analysis reports), not a rank's own clock: an annotation stays where it was put when a clock
// offset is edited afterwards. Plain data: the undoable store, the painters, the figure exporter
// and the session file all share this one struct.

#include "analysisresult.h"

#include <QColor>
#include <QString>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace rs {

struct Annotation {
    enum class Kind : std::uint8_t {
        Note,  ///< text at (rank, time)
        Arrow, ///< from (rank, time) to (endRank, endTime), with optional text at its tail
        Range, ///< shaded [time, endTime] on `rank`'s group, or across every rank when rank is kNoRank
    };
    enum class Origin : std::uint8_t {
        User,    ///< placed by a person
        Finding, ///< made from an analysis finding; can be hidden as a group
    };

    std::uint64_t id = 0;          ///< unique within one store; 0 until the store assigns one
    Kind kind = Kind::Note;        ///< what is drawn
    Origin origin = Origin::User;  ///< who made it
    RankId rank = kNoRank;         ///< rank group it sits on; kNoRank: the whole job (every rank)
    TimeNs time = 0;               ///< aligned ns: the note's moment, the arrow's tail, the range's start
    RankId endRank = kNoRank;      ///< Arrow: rank of the head (may equal `rank`); unused otherwise
    TimeNs endTime = 0;            ///< Arrow: the head's moment; Range: the end (>= time); Note: == time
    QString text;                  ///< the note, or the label of an arrow or range (may be empty)
    QColor color;                  ///< drawing colour; invalid means the default of its kind
    std::string findingKey;        ///< Origin::Finding: findingKey() of the finding it came from, else ""

    /// The colour to draw with: `color` when valid, else the default of the kind.
    QColor effectiveColor() const;
    /// True when the annotation covers an interval (Range) rather than a moment.
    bool isRange() const { return kind == Kind::Range; }
    friend bool operator==(const Annotation &, const Annotation &) = default;
};

/// A stable key for a finding of an analysis: "id|ranks|time", the same across re-analyses of the
/// same inputs, so annotations made from findings are recognised after a session is reopened.
std::string findingKey(const Finding &finding);

/// findingKey → number of each finding of a result.
using FindingNumbers = std::unordered_map<std::string, int>;
/// The number of every finding of `result`: its 1-based place in findingOrder() (the index in
/// AnalysisResult::findings + 1 for the analysis' own results). The one numbering of the timeline's
/// finding markers, the findings panel's "#" column and an exported figure's badges and list, so
/// "③ on the timeline" is row 3 of the panel and ③ of the figure. Findings share a key only when
/// they are the same finding; the first keeps the key.
FindingNumbers findingNumbers(const AnalysisResult &result);
/// The number of the finding `annotation` was made from; 0 for a user annotation or one whose
/// finding `numbers` does not have (the analysis no longer reports it).
int findingNumber(const FindingNumbers &numbers, const Annotation &annotation);

/// One annotation per finding that has a time: a Range when the finding names an end, else a Note;
/// on the finding's rank when it names exactly one, else job-wide. Coloured by severity, text
/// "title" (the fix stays in the findings panel). Origin::Finding, id 0 (the store assigns ids).
std::vector<Annotation> annotationsFromFindings(const AnalysisResult &result);

} // namespace rs
