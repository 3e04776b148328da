#pragma once
// The profiler traces a job leaves behind: one Kineto JSON file per rank, named the way
// tensorboard_trace_handler users usually rename them for sharing (rank-N.pt.trace.json[.gz]).

#include "joblistener.h"
#include "kinetowriter.h"

#include <filesystem>
#include <map>
#include <memory>
#include <vector>

namespace rs::tracegen {

class KinetoTraceEvidence : public JobListener
{
public:
    struct Options {
        bool gzip = true;
        int gzipLevel = 9;
    };

    KinetoTraceEvidence(std::filesystem::path directory, Options options);
    KinetoTraceEvidence(std::filesystem::path directory) : KinetoTraceEvidence(std::move(directory), Options{}) {}

    /// The file name of `rank`'s trace.
    static std::string fileName(RankId rank, bool gzip);

    void rankStarted(const RankSetup &rank) override;
    void event(const RankSetup &rank, const TraceEvent &event) override;
    void chunkEnded(const RankSetup &rank) override;
    void rankFinished(const RankSetup &rank, TimeNs windowEnd) override;

    /// Files written so far, in rank order of completion.
    const std::vector<std::filesystem::path> &files() const { return m_files; }
    /// Uncompressed JSON bytes of `rank`'s trace so far (0 for an unknown rank).
    std::uint64_t textBytes(RankId rank) const;

private:
    std::filesystem::path m_directory;
    Options m_options;
    std::map<RankId, std::unique_ptr<KinetoWriter>> m_writers;
    std::map<RankId, std::uint64_t> m_finishedBytes;
    std::vector<std::filesystem::path> m_files;
};

} // namespace rs::tracegen
