// nccl-error: NCCL warnings, aborts and connection failures, grouped by what went wrong so the fix
// names the right knob (network, driver/CUDA, or generic NCCL debugging).

#include "rules.h"

#include <algorithm>
#include <iterator>
#include <map>

namespace rs::rules {

namespace {

enum class Cause { Network, Cuda, Abort, Other, Benign };

// Warnings NCCL prints on healthy jobs: optional libraries it probes for and falls back from
// (InfiniBand verbs on hosts without IB, the external net plugin), and tuning hints.
bool benign(std::string_view t)
{
    static constexpr const char *kBenign[] = {"Failed to open libibverbs", "libnccl-net", "NET/Plugin",
                                              "NUMA auto balancing", "Could not find real path of"};
    return std::any_of(std::begin(kBenign), std::end(kBenign), [&t](const char *s) { return t.find(s) != std::string::npos; });
}

Cause classify(const LogRecord &r, std::string_view t)
{
    auto has = [&t](const char *s) { return t.find(s) != std::string::npos; };
    if (r.flags & LogFlagNcclAbort)
        return Cause::Abort;
    if (has("Connection refused") || has("Connection reset") || has("Connection timed out") || has("NET/IB")
        || has("Socket") || has("remote process exited") || has("completion from peer") || has("Net :"))
        return Cause::Network;
    if (has("Cuda failure") || has("CUDA error") || has("cudaError"))
        return Cause::Cuda;
    return benign(t) ? Cause::Benign : Cause::Other;
}

// Evidence of a failure an abort would follow: an OOM, a watchdog timeout, a failed child, a
// Python exception.
bool otherFailure(const RuleContext &ctx)
{
    const LogEvidence &logs = ctx.session.logs();
    if (!ctx.session.ooms().empty() || !logs.timeouts.empty() || !logs.failures.empty())
        return true;
    return std::any_of(logs.records.begin(), logs.records.end(), [](const LogRecord &r) {
        return (r.flags & (LogFlagOom | LogFlagWatchdogTimeout | LogFlagChildFailed))
            || (r.kind == LogKind::Python && r.level == LogLevel::Error);
    });
}

class NcclErrorRule final : public FindingRule
{
public:
    std::string_view id() const override { return "nccl-error"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        std::map<Cause, Finding> byCause;
        for (const LogRecord &r : ctx.session.logs().records) {
            if (r.kind != LogKind::Nccl || (r.level == LogLevel::Info && !(r.flags & LogFlagNcclAbort)))
                continue;
            const Cause cause = classify(r, ctx.session.logs().text(r));
            Finding &f = byCause[cause];
            if (f.evidence.empty()) {
                switch (cause) {
                case Cause::Network:
                    f.severity = Severity::High;
                    f.title = "NCCL lost or could not open a network connection";
                    f.fix = "Check the links between hosts: pin the interface with NCCL_SOCKET_IFNAME=<iface>, check "
                            "NCCL_IB_HCA / try NCCL_IB_DISABLE=1 to isolate InfiniBand, and open the ports NCCL uses in "
                            "the firewall; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET shows which interface it picked.";
                    break;
                case Cause::Cuda:
                    f.severity = Severity::High;
                    f.title = "NCCL hit a CUDA failure";
                    f.fix = "Read the CUDA error NCCL names: 'out of memory' means NCCL could not allocate its buffers "
                            "(see nccl-buffer-memory); other errors point at the driver or a faulty GPU (check "
                            "nvidia-smi -q and dmesg for Xid errors).";
                    break;
                case Cause::Abort:
                    // A consequence, not a cause: ProcessGroupNCCL aborts its communicators after a
                    // timeout or an exception, and recent PyTorch aborts them on a normal
                    // destroy_process_group() too. Medium when the session shows a failure it
                    // follows, low when it stands alone.
                    f.severity = otherFailure(ctx) ? Severity::Medium : Severity::Low;
                    f.title = "An NCCL communicator was aborted";
                    f.fix = "An abort follows another failure (a timeout, an exception on some rank): look for the "
                            "first failing rank in the other findings; TORCH_NCCL_ASYNC_ERROR_HANDLING=1 makes the "
                            "others exit instead of hanging.";
                    break;
                case Cause::Other:
                    f.severity = Severity::Medium;
                    f.title = "NCCL printed warnings";
                    f.fix = "Read the warning text; rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=ALL to see the "
                            "context, and check that every rank uses the same NCCL version.";
                    break;
                case Cause::Benign:
                    f.severity = Severity::Info;
                    f.title = "NCCL fell back from optional libraries (harmless on their own)";
                    f.fix = "Nothing to do unless the job should use InfiniBand or a net plugin: then install "
                            "rdma-core / libibverbs or the plugin (NCCL_NET_PLUGIN), and check NCCL_IB_HCA.";
                    break;
                }
            }
            ctx.gather(f, r);
        }
        for (auto &[cause, f] : byCause) {
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> ncclError()
{
    return std::make_unique<NcclErrorRule>();
}

} // namespace rs::rules
