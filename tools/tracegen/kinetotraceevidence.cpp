#include "kinetotraceevidence.h"

namespace rs::tracegen {

KinetoTraceEvidence::KinetoTraceEvidence(std::filesystem::path directory, Options options)
    : m_directory(std::move(directory)), m_options(options)
{
    std::filesystem::create_directories(m_directory);
}

std::string KinetoTraceEvidence::fileName(RankId rank, bool gzip)
{
    return "rank-" + std::to_string(rank) + ".pt.trace.json" + (gzip ? ".gz" : "");
}

void KinetoTraceEvidence::rankStarted(const RankSetup &rank)
{
    const auto path = m_directory / fileName(rank.rank, m_options.gzip);
    auto sink = std::make_unique<TraceSink>(path, m_options.gzip ? TraceSink::Kind::Gzip : TraceSink::Kind::Plain,
                                            m_options.gzipLevel);
    m_writers[rank.rank] = std::make_unique<KinetoWriter>(std::move(sink), rank);
}

void KinetoTraceEvidence::event(const RankSetup &rank, const TraceEvent &event)
{
    m_writers.at(rank.rank)->add(event);
}

void KinetoTraceEvidence::chunkEnded(const RankSetup &rank)
{
    m_writers.at(rank.rank)->flushChunk();
}

void KinetoTraceEvidence::rankFinished(const RankSetup &rank, TimeNs windowEnd)
{
    auto it = m_writers.find(rank.rank);
    it->second->finish(windowEnd);
    m_finishedBytes[rank.rank] = it->second->textBytes();
    m_files.push_back(it->second->path());
    m_writers.erase(it);
}

std::uint64_t KinetoTraceEvidence::textBytes(RankId rank) const
{
    if (const auto it = m_writers.find(rank); it != m_writers.end())
        return it->second->textBytes();
    if (const auto it = m_finishedBytes.find(rank); it != m_finishedBytes.end())
        return it->second;
    return 0;
}

} // namespace rs::tracegen
