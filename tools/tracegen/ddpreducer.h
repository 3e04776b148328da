#pragma once
// DistributedDataParallel's gradient reducer: parameters are grouped into buckets in reverse
// registration order (a small first bucket, then bucket_cap_mb), and when every gradient of a bucket
// is final during a synchronising backward, the bucket is allreduced, strictly in bucket order.
// Under no_sync() (gradient accumulation) nothing is launched.

#include "parameter.h"

#include <vector>

namespace rs::tracegen {

class DdpReducer
{
public:
    /// Buckets `params` (registration order) like torch.nn.parallel.DistributedDataParallel; the
    /// first collective launched gets sequence number `priorCollectives` + 1.
    DdpReducer(const std::vector<Parameter> &params, std::int64_t bucketCapBytes, std::int64_t priorCollectives = 0);

    /// Starts a backward pass; `synchronise` is false inside no_sync().
    void prepare(bool synchronise);
    /// AccumulateGrad's hook fired for parameter `index`; launches every bucket that became ready.
    void gradReady(RankSimulator &sim, std::size_t index);
    /// DDP's finalize_backward: the compute stream waits for the allreduces before anyone reads
    /// the gradients. Call once the collectives are settled.
    void finalize(RankSimulator &sim);

    std::size_t bucketCount() const { return m_buckets.size(); }
    std::int64_t bucketElements(std::size_t bucket) const { return m_buckets[bucket].numel; }
    /// Collectives launched so far (the process group's sequence number).
    std::int64_t sequence() const { return m_seq; }

private:
    struct Bucket {
        std::vector<std::size_t> params;
        std::int64_t numel = 0;
        int pending = 0;   // gradient contributions still missing in this pass
    };

    std::vector<Bucket> m_buckets;
    std::vector<std::size_t> m_bucketOf;   // parameter index -> bucket
    std::vector<int> m_gradsPerPass;       // parameter index -> contributions per backward
    std::vector<int> m_seen;               // contributions seen this pass
    std::size_t m_nextToLaunch = 0;
    bool m_synchronise = false;
    std::int64_t m_seq = 0;
};

} // namespace rs::tracegen
