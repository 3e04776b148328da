#include "nccllogtext.h"

#include "prng.h"
#include "textformat.h"

#include <algorithm>

#include <cstdio>

namespace rs::tracegen {

namespace {
constexpr TimeNs kMs = 1000000;
constexpr int kChannels = 24;
constexpr std::string_view kInterface = "eth0:10.42.3.17<0>";

std::string hex(std::uint64_t v, int digits)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "%0*llx", digits, static_cast<unsigned long long>(v));
    return buf;
}

// NCCL's own threads: the one that runs the communicator's init, and ProcessGroupNCCL's
// watchdog, which aborts communicators after a timeout.
std::int64_t initThread(const RankRecord &r) { return r.setup.pid + 175 + 2 * r.setup.rank; }
std::int64_t watchdogThread(const RankRecord &r) { return r.setup.pid + 191 + 2 * r.setup.rank; }
} // namespace

NcclLogText::NcclLogText(const JobTimeline &timeline, const JobRecord &record)
    : m_timeline(timeline), m_record(record), m_config(timeline.config())
{
    Prng rng(m_config.seed ^ 0x2cc1ULL);
    m_commId = "0x" + hex(rng.next(), 16);
    for (std::size_t i = 0; i < record.ranks.size(); ++i)
        m_comms.push_back("0x55" + hex(rng.next() & 0xfffffffff0ULL, 10));
}

std::string NcclLogText::busId(std::int64_t pciBus)
{
    return hex(static_cast<std::uint64_t>(pciBus) << 12, 1);
}

std::string NcclLogText::trees(int rank) const
{
    // One node: NCCL's trees are chains, half the channels one way and half the other, in blocks
    // of six as NCCL lays them out. "down0/down1/down2->rank->up".
    const int n = m_config.worldSize;
    std::string out;
    for (int c = 0; c < kChannels; ++c) {
        const bool forward = (c / 6) % 2 == 0;
        const int down = forward ? (rank + 1 < n ? rank + 1 : -1) : (rank > 0 ? rank - 1 : -1);
        const int up = forward ? rank - 1 : (rank + 1 < n ? rank + 1 : -1);
        out += (c ? " [" : "[") + std::to_string(c) + "] " + std::to_string(down) + "/-1/-1->" + std::to_string(rank)
               + "->" + std::to_string(up);
    }
    return out;
}

void NcclLogText::initLines(JobLogBuilder &log, const JobTimeline::Rank &t, const RankRecord &r,
                            const std::string &comm) const
{
    const std::string &host = m_config.hostName;
    const RankId rank = r.setup.rank;
    const int dev = r.setup.device;
    const std::int64_t pid = r.setup.pid;
    const std::int64_t tid = initThread(r);
    const std::string identity = " comm " + comm + " rank " + std::to_string(rank) + " nranks "
                                 + std::to_string(m_config.worldSize) + " cudaDev " + std::to_string(dev) + " nvmlDev "
                                 + std::to_string(dev) + " busId " + busId(r.setup.pciBus) + " commId " + m_commId;
    auto main = [&](TimeNs at, std::string_view msg) { log.line(at, rank, JobLogBuilder::ncclInfo(host, pid, pid, dev, msg)); };
    auto init = [&](TimeNs at, std::string_view msg) { log.line(at, rank, JobLogBuilder::ncclInfo(host, pid, tid, dev, msg)); };

    // The process's first communicator: plugin and network probing on the calling thread.
    TimeNs at = t.ncclJoin;
    main(at, "cudaDriverVersion 12040");
    main(at, std::string("Bootstrap : Using ").append(kInterface));
    main(at, "NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: "
             "No such file or directory");
    main(at, "NET/Plugin : No plugin found, using internal implementation");
    if (rank == 0)
        main(at, "NCCL version " + m_config.ncclVersion + "+cuda" + m_config.cudaVersion);
    if (m_config.ncclBuffSize > 0)
        main(at, "NCCL_BUFFSIZE set by environment to " + std::to_string(m_config.ncclBuffSize) + ".");
    at += 3 * kMs;
    init(at, "Failed to open libibverbs.so[.1]");
    init(at, std::string("NET/Socket : Using [0]").append(kInterface));
    init(at, "Using non-device net plugin version 0");
    init(at, "Using network Socket");
    init(at, "ncclCommInitRank" + identity + " - Init START");

    // Once every rank has joined: topology, channels, connections.
    const TimeNs topo = m_timeline.ncclInitStart() + 480 * kMs;
    init(topo, std::string("Setting affinity for GPU ") + std::to_string(dev) + " to "
                   + (dev < 2 ? "00000000,ffffffff,00000000,ffffffff" : "ffffffff,00000000,ffffffff,00000000"));
    init(topo, "comm " + comm + " rank " + std::to_string(rank) + " nRanks " + std::to_string(m_config.worldSize)
                   + " nNodes 1 localRanks " + std::to_string(m_config.worldSize) + " localRank " + std::to_string(rank)
                   + " MNNVL 0");
    init(topo, "NVLS multicast support is not available on dev " + std::to_string(dev));
    if (rank == 0) {
        std::string ring;
        for (int k = 0; k < m_config.worldSize; ++k)
            ring += " " + std::to_string(k);
        for (int c = 0; c < kChannels; ++c) {
            char head[32];
            std::snprintf(head, sizeof head, "Channel %02d/%02d :", c, kChannels);
            init(topo, head + ring);
        }
    }
    init(topo, "Trees " + trees(rank));
    init(topo, "P2P Chunksize set to 524288");
    const TimeNs connect = m_timeline.ncclInitStart() + 900 * kMs;
    const int next = (rank + 1) % m_config.worldSize;
    for (int c = 0; c < kChannels; ++c) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read", c, rank, dev, next, next);
        init(connect, buf);
    }
    init(connect + 40 * kMs, "Connected all rings");
    init(connect + 90 * kMs, "Connected all trees");
    const TimeNs done = t.ncclReady;
    init(done, "threadThresholds 8/8/64 | 32/8/64 | 512 | 512");
    init(done, "24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer");
    init(done, "TUNER/Plugin: Plugin load returned 2 : libnccl-tuner.so: cannot open shared object file: No such file "
               "or directory : when loading libnccl-tuner.so");
    init(done, "TUNER/Plugin: Using internal tuner plugin.");
    init(done, "ncclCommInitRank" + identity + " - Init COMPLETE");
    const double total = static_cast<double>(done - t.ncclJoin) / 1e9;
    init(done, "Init timings: rank " + std::to_string(rank) + " nranks " + std::to_string(m_config.worldSize) + " total "
                   + TextFormat::fixed(total, 2) + " (kernels 0.19, bootstrap " + TextFormat::fixed(std::max(0.01, total - 1.04), 2)
                   + ", allgathers 0.02, topo 0.47, graphs 0.01, connections 0.31, rest 0.04)");
}

void NcclLogText::write(JobLogBuilder &log) const
{
    for (std::size_t i = 0; i < m_record.ranks.size(); ++i) {
        const RankRecord &r = m_record.ranks[i];
        const JobTimeline::Rank &t = m_timeline.rank(r.setup.rank);
        initLines(log, t, r, m_comms[i]);
        const std::string abort = "comm " + m_comms[i] + " rank " + std::to_string(r.setup.rank) + " nRanks "
                                  + std::to_string(m_config.worldSize) + " cudaDev " + std::to_string(r.setup.device)
                                  + " busId " + busId(r.setup.pciBus) + " - Abort COMPLETE";
        if (r.timeout) {
            // ProcessGroupNCCL's watchdog aborts the communicator after the timeout.
            log.line(r.timeout->aborted, r.setup.rank,
                     JobLogBuilder::ncclInfo(m_config.hostName, r.setup.pid, watchdogThread(r), r.setup.device, abort));
        } else if (t.failed) {
            // The failed process's ProcessGroupNCCL destructor aborts it on the way out.
            log.line(t.exited - 120 * kMs, r.setup.rank,
                     JobLogBuilder::ncclInfo(m_config.hostName, r.setup.pid, r.setup.pid, r.setup.device, abort));
        }
    }
}

} // namespace rs::tracegen
