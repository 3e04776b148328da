// Feeds arbitrary bytes straight into every non-trace importer (memory_summary/OOM text,
// nvidia-smi, NCCL and job logs, allocator snapshots through the restricted unpickler, the memory
// timeline), bypassing sniffing so mutations that break a file's first line still reach the
// parsers, then freezes and analyses the result: a crash anywhere on the way is a bug.
// Seeds: ../shared/samples/{memory_summary,nvidia_smi,nccl,snapshot} and resources/demo/*.log/*.csv.

#include "analyzer.h"
#include "importerregistry.h"
#include "memorysummary/memorysummaryimporter.h"
#include "nccllog/logimporter.h"
#include "nvidiasmi/nvidiasmiimporter.h"
#include "sessionbuilder.h"
#include "snapshot/memorytimelineimporter.h"
#include "snapshot/snapshotimporter.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    static const rs::MemorySummaryImporter memorySummary;
    static const rs::NvidiaSmiImporter nvidiaSmi;
    static const rs::LogImporter ncclLog(rs::LogImporter::Kind::NcclLog);
    static const rs::LogImporter jobLog(rs::LogImporter::Kind::JobLog);
    static const rs::SnapshotImporter snapshot;
    static const rs::MemoryTimelineImporter timeline;
    const rs::Importer *importers[] = {&memorySummary, &nvidiaSmi, &ncclLog, &jobLog, &snapshot, &timeline};
    rs::SessionBuilder session;
    rs::ImportContext ctx;
    ctx.timeZone = "UTC";
    for (const rs::Importer *imp : importers) {
        rs::SourceBuilder out(std::string("fuzz.") + std::string(imp->formatId()));
        if (auto in = rs::InputStream::fromMemory(bytes, nullptr)) {
            out.source().format = std::string(imp->formatId());
            imp->import(*in, out, ctx);
        }
        out.finish();
        session.addSource(std::move(out));
    }
    session.addSource(rs::ImporterRegistry::instance().importBytes(bytes, "fuzz.log", ctx));
    const auto frozen = session.freeze();
    (void)rs::Analyzer::run(*frozen);
    return 0;
}
