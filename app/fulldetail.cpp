#include "fulldetail.h"

#include "summarizer.h"

#include <algorithm>

namespace rs {

std::vector<std::pair<std::string, std::string>> FullDetail::reachable(const Session &session, RankId rank)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const Source &s : session.sources()) {
        if (!s.summary || std::find(s.ranks.begin(), s.ranks.end(), rank) == s.ranks.end())
            continue;
        // A summary of a file that fed many ranks (a job log) stays: the rank needs its trace.
        if (s.ranks.size() != 1)
            continue;
        if (const std::string original = Summarizer::originOnThisMachine(*s.summary); !original.empty())
            out.emplace_back(s.path, original);
    }
    return out;
}

QStringList FullDetail::inputsWith(const Session &session, const std::vector<std::pair<std::string, std::string>> &swaps)
{
    QStringList out;
    for (const Source &s : session.sources()) {
        std::string path = s.path;
        for (const auto &[summary, original] : swaps)
            if (summary == s.path)
                path = original;
        out << QString::fromStdString(path);
    }
    return out;
}

} // namespace rs
