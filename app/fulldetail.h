#pragma once
// Summaries of a rank swapped for the files they were written from: a session opened from
// `rankscope summarize` output shows every rank from its summary, and a rank the user selects is
// read again from its original trace when that file is on this machine (same size and mtime).

#include "session.h"

#include <QStringList>

#include <string>
#include <utility>
#include <vector>

namespace rs {

class FullDetail
{
public:
    /// (summary path, original path) for each summary feeding `rank` whose original is reachable.
    static std::vector<std::pair<std::string, std::string>> reachable(const Session &session, RankId rank);
    /// The session's inputs, one per source, with each summary in `swaps` replaced by its original.
    static QStringList inputsWith(const Session &session, const std::vector<std::pair<std::string, std::string>> &swaps);
};

} // namespace rs
