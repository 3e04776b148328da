#pragma once
// What NCCL_DEBUG=INFO (NCCL 2.21, default subsystems) prints into a job log: per process the
// plugin and network probing, the communicator's Init START/COMPLETE with its busId and commId,
// the ring channels (rank 0), trees and P2P connections, and at the end the Abort of every
// communicator that is torn down. The lines carry no time of their own; they are placed at the
// moments JobTimeline and the watchdog record give.

#include "joblogbuilder.h"
#include "jobrecord.h"
#include "jobtimeline.h"

namespace rs::tracegen {

class NcclLogText
{
public:
    NcclLogText(const JobTimeline &timeline, const JobRecord &record);

    void write(JobLogBuilder &log) const;

    /// NCCL's "%lx" busId of a PCI bus: bus 0x07 → "7000" (domain 0, device 0, function 0).
    static std::string busId(std::int64_t pciBus);

private:
    void initLines(JobLogBuilder &log, const JobTimeline::Rank &t, const RankRecord &r, const std::string &comm) const;
    std::string trees(int rank) const;

    const JobTimeline &m_timeline;
    const JobRecord &m_record;
    const JobConfig &m_config;
    std::string m_commId;
    std::vector<std::string> m_comms;  // per record index
};

} // namespace rs::tracegen
