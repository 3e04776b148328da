#include "ddpreducer.h"

#include "kernelcatalog.h"

namespace rs::tracegen {

namespace {
// torch.distributed's _DEFAULT_FIRST_BUCKET_BYTES: a small first bucket starts communication early.
constexpr std::int64_t kFirstBucketBytes = 1 << 20;
} // namespace

DdpReducer::DdpReducer(const std::vector<Parameter> &params, std::int64_t bucketCapBytes, std::int64_t priorCollectives)
    : m_bucketOf(params.size()), m_gradsPerPass(params.size()), m_seen(params.size()), m_seq(priorCollectives)
{
    Bucket current;
    std::int64_t currentBytes = 0;
    // Gradients become ready roughly in reverse registration order, so buckets are filled that way.
    for (std::size_t i = params.size(); i-- > 0;) {
        current.params.push_back(i);
        current.numel += params[i].numel;
        currentBytes += params[i].bytes();
        m_bucketOf[i] = m_buckets.size();
        m_gradsPerPass[i] = params[i].gradsPerPass;
        const std::int64_t cap = m_buckets.empty() ? kFirstBucketBytes : bucketCapBytes;
        if (currentBytes >= cap) {
            m_buckets.push_back(std::move(current));
            current = {};
            currentBytes = 0;
        }
    }
    if (!current.params.empty())
        m_buckets.push_back(std::move(current));
}

void DdpReducer::prepare(bool synchronise)
{
    m_synchronise = synchronise;
    m_nextToLaunch = 0;
    std::fill(m_seen.begin(), m_seen.end(), 0);
    for (Bucket &b : m_buckets) {
        b.pending = 0;
        for (const std::size_t p : b.params)
            b.pending += m_gradsPerPass[p];
    }
}

void DdpReducer::gradReady(RankSimulator &sim, std::size_t index)
{
    if (!m_synchronise)
        return;
    ++m_seen[index];
    --m_buckets[m_bucketOf[index]].pending;
    // The reducer launches buckets in index order even if a later one finishes first.
    while (m_nextToLaunch < m_buckets.size() && m_buckets[m_nextToLaunch].pending == 0) {
        CollectiveSpec spec;
        spec.kernelName = KernelCatalog::allReduceKernelName();
        spec.nelems = m_buckets[m_nextToLaunch].numel;
        spec.seq = ++m_seq;
        sim.issueCollective(spec);
        ++m_nextToLaunch;
    }
}

void DdpReducer::finalize(RankSimulator &sim)
{
    if (!m_synchronise)
        return;
    // Reducer::finalize_backward is plain C++ (no record_function), so only its CUDA calls show.
    sim.streamWaitStream(StreamRole::Compute, StreamRole::Comm);
    m_synchronise = false;
}

} // namespace rs::tracegen
