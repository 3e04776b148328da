// driver-mismatch: the CUDA driver is older than the CUDA the software was built for, or ranks
// run different drivers. Versions come from Kineto metadata (cuda_driver_version,
// cuda_runtime_version: 12040 = 12.4) and NCCL logs ("cudaDriverVersion 12020",
// "NCCL version 2.21.5+cuda12.4").
//
// Severity follows CUDA's compatibility rules: since CUDA 11, software built for 12.x runs on any
// 12.y driver (minor version compatibility; only PTX JIT of newer code fails), so a newer minor
// version is low; a newer major version ("driver version is insufficient for CUDA runtime
// version") is high. Different drivers on different hosts usually work: low.

#include "rules.h"

#include <algorithm>
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

// Metadata values are raw JSON text: 12040 or "12040".
int number(std::string v)
{
    v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
    return std::atoi(v.c_str());
}

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
                if (number(drv) > 0) {
                    v.driver = number(drv);
                    v.driverWhere = s.evidencePath() + ": cuda_driver_version " + drv;
                }
                if (number(rt) > 0) {
                    v.runtime = number(rt);
                    v.runtimeWhere = s.evidencePath() + ": cuda_runtime_version " + rt;
                }
                static const std::regex kCuda(R"(\+cuda(\d+)\.(\d+))");
                std::smatch m;
                if (v.runtime == 0 && std::regex_search(nccl, m, kCuda)) {
                    v.runtime = std::stoi(m[1].str()) * 1000 + std::stoi(m[2].str()) * 10;
                    v.runtimeWhere = s.evidencePath() + ": NCCL built for CUDA " + m[1].str() + "." + m[2].str();
                }
            }
        }
        static const std::regex kDriver(R"(cudaDriverVersion (\d+))");
        // NCCL prints the driver once per process, when it first initialises, before any
        // communicator's Init line. A process's NCCL lines after its first Init (or after its
        // driver line) are never read: in a long job log they are spread through every block of
        // messages the cache would have to load.
        std::set<std::pair<SourceId, RankId>> done;
        for (const LogRecord &r : ctx.session.logs().records) {
            if (r.kind != LogKind::Nccl || r.rank < 0 || done.count({r.source, r.rank}))
                continue;
            if (r.flags & LogFlagNcclInit) {
                done.insert({r.source, r.rank});
                continue;
            }
            const std::string_view text = ctx.session.logs().text(r);
            if (text.find("cudaDriverVersion") == std::string::npos)
                continue;
            std::match_results<std::string_view::const_iterator> m;
            if (std::regex_search(text.begin(), text.end(), m, kDriver)) {
                Versions &v = byRank[r.rank];
                v.driver = std::stoi(m[1].str());
                v.driverWhere = ctx.evidence(r).text;
                done.insert({r.source, r.rank});
            }
        }
        Finding major, minor;
        std::set<int> drivers;
        for (const auto &[rank, v] : byRank) {
            if (v.driver > 0)
                drivers.insert(v.driver);
            if (v.driver <= 0 || v.runtime <= 0 || v.runtime / 10 <= v.driver / 10)
                continue;
            Finding &f = v.runtime / 1000 > v.driver / 1000 ? major : minor;
            f.ranks.push_back(rank);
            if (f.evidence.size() < 8) {
                f.evidence.push_back(ctx.derived(rank, v.driverWhere));
                f.evidence.push_back(ctx.derived(rank, v.runtimeWhere));
            }
            f.title = "CUDA " + dotted(v.runtime) + " software on a driver that supports CUDA " + dotted(v.driver);
        }
        if (!major.ranks.empty()) {
            major.severity = Severity::High;
            major.fix = "Align driver and toolkit: install an NVIDIA driver that supports the CUDA version PyTorch/NCCL "
                        "were built for, or install the PyTorch build for the CUDA version the driver supports "
                        "(pip install torch --index-url https://download.pytorch.org/whl/cuXY).";
            out.push_back(std::move(major));
        }
        if (!minor.ranks.empty()) {
            minor.severity = Severity::Low;
            minor.title += " (minor version compatibility)";
            minor.fix = "Runs under CUDA minor version compatibility; kernels that need PTX JIT for the newer version "
                        "fail. Align driver and toolkit when you can: update the NVIDIA driver, or install the PyTorch "
                        "build for the driver's CUDA version (pip install torch --index-url "
                        "https://download.pytorch.org/whl/cuXY).";
            out.push_back(std::move(minor));
        }
        if (drivers.size() > 1) {
            Finding f;
            f.severity = Severity::Low;
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
