#include "importerregistry.h"

#include "flightrecorder/flightrecorderimporter.h"
#include "kineto/kinetoimporter.h"
#include "memorysummary/memorysummaryimporter.h"
#include "nccllog/logimporter.h"
#include "nvidiasmi/nvidiasmiimporter.h"
#include "snapshot/memorytimelineimporter.h"
#include "snapshot/snapshotimporter.h"
#include "summary/summaryimporter.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

namespace rs {

namespace {
// Real job logs can open with thousands of lines of shell trace or banners before their first record
// (FORMATS.md §7.1), so sniffers see the first 4 MiB; every sniffer is linear in the head.
constexpr std::size_t kSniffBytes = 4 * 1024 * 1024;
constexpr int kMinConfidence = 20;
}

const ImporterRegistry &ImporterRegistry::instance()
{
    static const ImporterRegistry registry = [] {
        ImporterRegistry r;
        r.add(std::make_unique<KinetoImporter>());
        r.add(std::make_unique<MemorySummaryImporter>());
        r.add(std::make_unique<NvidiaSmiImporter>());
        r.add(std::make_unique<LogImporter>(LogImporter::Kind::NcclLog));
        r.add(std::make_unique<LogImporter>(LogImporter::Kind::JobLog));
        r.add(std::make_unique<SnapshotImporter>());
        r.add(std::make_unique<MemoryTimelineImporter>());
        r.add(std::make_unique<FlightRecorderImporter>());
        r.add(std::make_unique<SummaryImporter>());
        return r;
    }();
    return registry;
}

const Importer *ImporterRegistry::pick(std::string_view head, std::string_view path) const
{
    const Importer *best = nullptr;
    int bestScore = kMinConfidence - 1;
    for (const auto &imp : m_importers) {
        const int score = imp->sniff(head, path);
        if (score > bestScore) {
            best = imp.get();
            bestScore = score;
        }
    }
    return best;
}

SourceBuilder ImporterRegistry::importFile(const std::string &path, ImportContext &ctx) const
{
    SourceBuilder out(path);
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        out.error("empty-folder", "the folder holds no files (hidden files are skipped)");
        out.finish();
        return out;
    }
    std::string err;
    auto in = InputStream::open(path, &err);
    if (!in) {
        out.error(err.rfind("not a regular file", 0) == 0 ? "not-regular-file" : "open-failed", err);
        return out;
    }
    out.source().fileBytes = in->compressedSize();
    return run(std::move(in), std::move(out), ctx);
}

SourceBuilder ImporterRegistry::importBytes(std::string bytes, const std::string &name, ImportContext &ctx) const
{
    SourceBuilder out(name);
    out.source().fileBytes = static_cast<std::int64_t>(bytes.size());
    std::string err;
    auto in = InputStream::fromMemory(std::move(bytes), &err);
    return run(std::move(in), std::move(out), ctx);
}

SourceBuilder ImporterRegistry::run(std::unique_ptr<InputStream> in, SourceBuilder out, ImportContext &ctx) const
{
    in->setLimit(ctx.maxDecompressedBytes);
    out.source().compression = in->compression();
    const std::string_view head = in->peek(kSniffBytes);
    if (!in->error().empty() && head.empty()) {
        out.error("read-failed", in->error(), -1, 0);
        out.finish();
        return out;
    }
    if (head.empty()) {
        out.error("empty-file", "the file is empty");
        out.finish();
        return out;
    }
    const Importer *imp = pick(head, out.source().path);
    if (!imp) {
        out.error("unrecognised", "unrecognised content: not a format RankScope reads (see README, supported inputs)", 1, 0);
        out.finish();
        return out;
    }
    out.source().format = std::string(imp->formatId());
    try {
        imp->import(*in, out, ctx);
    } catch (const std::bad_alloc &) {
        out.error("out-of-memory", "out of memory while reading; the data read so far is kept", -1, in->position());
    } catch (const std::exception &e) {
        out.error("import-failed", std::string("import failed: ") + e.what(), -1, in->position());
    }
    if (in->limitReached())
        out.error("decompressed-limit", in->error(), -1, in->position());
    else if (!in->error().empty())
        out.error("read-failed", in->error(), -1, in->position());
    if (!in->changed().empty())
        out.warning("file-changed-while-read", in->changed());
    if (ctx.isCancelled())
        out.warning("cancelled", "import cancelled; the data read so far is kept", -1, in->position());
    else
        ctx.reportProgress(in->compressedSize(), in->compressedSize());
    out.finish();
    return out;
}

bool ImporterRegistry::isUnrecognised(const SourceBuilder &b)
{
    return b.source().format.empty() && b.source().diagnostics.size() == 1
        && b.source().diagnostics[0].code == "unrecognised";
}

std::vector<std::string> ImporterRegistry::expandPaths(const std::vector<std::string> &paths,
                                                       std::vector<bool> *fromFolder)
{
    namespace fs = std::filesystem;
    std::vector<std::string> out;
    for (const std::string &p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<std::string> found;
            for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
                const auto name = it->path().filename().string();
                if (it->is_regular_file(ec) && !name.empty() && name[0] != '.')
                    found.push_back(it->path().string());
            }
            std::sort(found.begin(), found.end());
            out.insert(out.end(), found.begin(), found.end());
            if (fromFolder)
                fromFolder->insert(fromFolder->end(), found.size(), true);
            // A folder with nothing in it must not vanish without a word: importFile() says so.
            if (found.empty()) {
                out.push_back(p);
                if (fromFolder)
                    fromFolder->push_back(false);
            }
        } else {
            out.push_back(p);
            if (fromFolder)
                fromFolder->push_back(false);
        }
    }
    return out;
}

} // namespace rs
