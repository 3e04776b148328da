// driver-mismatch: the CUDA driver is older than the CUDA the software was built for, or ranks
// run different drivers. Versions come from Kineto metadata (cuda_driver_version,
// cuda_runtime_version: 12040 = 12.4) and NCCL logs ("cudaDriverVersion 12020",
// "NCCL version 2.21.5+cuda12.4").

#include "rules.h"

#include <cstdlib>
#include <map>
#include <regex>
#include <set>

namespace rs::rules {

namespace {

struct Versions {
    int driver = 0;   // CUDA version the driver supports, 1000*major + 10*minor
    int runtime = 0;  // CUDA version the software was built for
    std::string driverWhere, runtimeWhere;
};

std::string dotted(int v)
{
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

class DriverMismatchRule final : public FindingRule
{
public:
    std::string_view id() const override { return "driver-mismatch"; }
    void evaluate(const RuleContext &ctx, std::vector<Finding> &out) const override
    {
        std::map<RankId, Versions> byRank;
        const auto &sources = ctx.session.sources();
        for (const Source &s : sources) {
            const std::string drv = s.metadataValue("cuda_driver_version");
            const std::string rt = s.metadataValue("cuda_runtime_version");
            std::string nccl = s.metadataValue("nccl_version");
            for (RankId r : s.ranks) {
                Versions &v = byRank[r];
                if (!drv.empty() && std::atoi(drv.c_str()) > 0) {
                    v.driver = std::atoi(drv.c_str());
                    v.driverWhere = s.path + ": cuda_driver_version " + drv;
                }
                if (!rt.empty() && std::atoi(rt.c_str()) > 0) {
                    v.runtime = std::atoi(rt.c_str());
                    v.runtimeWhere = s.path + ": cuda_runtime_version " + rt;
                }
                static const std::regex kCuda(R"(\+cuda(\d+)\.(\d+))");
                std::smatch m;
                if (v.runtime == 0 && std::regex_search(nccl, m, kCuda)) {
                    v.runtime = std::stoi(m[1].str()) * 1000 + std::stoi(m[2].str()) * 10;
                    v.runtimeWhere = s.path + ": NCCL built for CUDA " + m[1].str() + "." + m[2].str();
                }
            }
        }
        static const std::regex kDriver(R"(cudaDriverVersion (\d+))");
        for (const LogRecord &r : ctx.session.logs().records) {
            if (r.kind != LogKind::Nccl || r.rank < 0 || r.text.find("cudaDriverVersion") == std::string::npos)
                continue;
            std::smatch m;
            if (std::regex_search(r.text, m, kDriver)) {
                Versions &v = byRank[r.rank];
                v.driver = std::stoi(m[1].str());
                v.driverWhere = ctx.evidence(r).text;
            }
        }
        Finding tooOld;
        std::set<int> drivers;
        for (const auto &[rank, v] : byRank) {
            if (v.driver > 0)
                drivers.insert(v.driver);
            if (v.driver > 0 && v.runtime > 0 && v.runtime / 10 > v.driver / 10) {
                tooOld.ranks.push_back(rank);
                if (tooOld.evidence.size() < 8) {
                    tooOld.evidence.push_back(ctx.derived(rank, v.driverWhere));
                    tooOld.evidence.push_back(ctx.derived(rank, v.runtimeWhere));
                }
                tooOld.title = "CUDA " + dotted(v.runtime) + " software on a driver that supports CUDA " + dotted(v.driver);
            }
        }
        if (!tooOld.ranks.empty()) {
            tooOld.severity = Severity::High;
            tooOld.fix = "Align driver and toolkit: install an NVIDIA driver that supports the CUDA version PyTorch/NCCL "
                         "were built for, or install the PyTorch build for the CUDA version the driver supports "
                         "(pip install torch --index-url https://download.pytorch.org/whl/cuXY).";
            out.push_back(std::move(tooOld));
        }
        if (drivers.size() > 1) {
            Finding f;
            f.severity = Severity::Medium;
            f.title = "Ranks run different CUDA drivers";
            for (const auto &[rank, v] : byRank)
                if (v.driver > 0) {
                    f.ranks.push_back(rank);
                    if (f.evidence.size() < 8)
                        f.evidence.push_back(ctx.derived(rank, v.driverWhere));
                }
            f.fix = "Install the same NVIDIA driver on every host of the job.";
            out.push_back(std::move(f));
        }
    }
};

} // namespace

std::unique_ptr<FindingRule> driverMismatch()
{
    return std::make_unique<DriverMismatchRule>();
}

} // namespace rs::rules
