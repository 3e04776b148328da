#include "joblogevidence.h"

#include "joblogbuilder.h"
#include "jobtimeline.h"
#include "nccllogtext.h"
#include "torchrunlogtext.h"
#include "workerlogtext.h"

namespace rs::tracegen {

JobLogEvidence::JobLogEvidence(std::filesystem::path directory) : m_directory(std::move(directory))
{
    std::filesystem::create_directories(m_directory);
}

void JobLogEvidence::jobFinished(const JobRecord &record)
{
    const JobTimeline timeline(*record.ranks.front().setup.job, record);
    JobLogBuilder log;
    TorchrunLogText(timeline).write(log);
    NcclLogText(timeline, record).write(log);
    WorkerLogText(timeline, record).write(log);
    m_file = m_directory / kFileName;
    log.write(m_file);
}

} // namespace rs::tracegen
