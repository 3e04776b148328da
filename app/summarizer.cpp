#include "summarizer.h"

#include "cache/sourcearchive.h"
#include "importerregistry.h"
#include "sessionbuilder.h"
#include "sourcesummarizer.h"
#include "summary/summaryfile.h"

#include <QCryptographicHash>
#include <QFile>

#include <chrono>
#include <filesystem>

namespace rs {

namespace fs = std::filesystem;

std::string Summarizer::outputName(const std::string &input)
{
    // The whole name, compression ending included: summaries sort as their files do, so a folder
    // of them is read in the same order (ranks assigned to files without one stay the same).
    return fs::path(input).filename().string() + SummaryFile::kExtension;
}

std::string Summarizer::originOnThisMachine(const SummaryFacts &facts)
{
    // Size and mtime, not the hash: hashing a trace of gigabytes to decide on a click costs too
    // much, and a copy that kept both is the same file for every practical purpose.
    for (const std::string &candidate : {facts.originAbsolute, facts.originPath}) {
        std::error_code ec;
        if (candidate.empty() || !fs::is_regular_file(candidate, ec))
            continue;
        const auto size = fs::file_size(candidate, ec);
        const auto mtime = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               fs::last_write_time(candidate, ec).time_since_epoch()).count();
        if (!ec && static_cast<std::int64_t>(size) == facts.originBytes && mtime == facts.originMtimeNs)
            return candidate;
    }
    return {};
}

bool Summarizer::originReachable(const SummaryFacts &facts)
{
    return !originOnThisMachine(facts).empty();
}

std::string Summarizer::sha256Of(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&f))
        return {};
    return hash.result().toHex().toStdString();
}

Summarizer::Result Summarizer::run(const std::string &input, const std::string &output, const Options &options)
{
    const auto started = std::chrono::steady_clock::now();
    Result r;
    r.input = input;
    static const std::atomic<bool> neverCancel{false};
    ImportContext ctx(&neverCancel, {});
    ctx.timeZone = options.timeZone;
    if (options.maxDecompressedBytes > 0)
        ctx.maxDecompressedBytes = options.maxDecompressedBytes;
    SourceBuilder full = ImporterRegistry::instance().importFile(input, ctx);
    r.format = full.source().format;
    r.inputBytes = full.source().fileBytes;
    for (const Diagnostic &d : full.source().diagnostics)
        if (d.severity == Diagnostic::Severity::Error)
            r.errors.push_back(input + (d.line > 0 ? ":" + std::to_string(d.line) : std::string()) + ": " + d.message);
    if (r.format.empty()) {
        r.failure = r.errors.empty() ? "not a format RankScope reads" : r.errors.front();
        return r;
    }
    if (r.format == "summary") {
        r.failure = "already a summary";
        return r;
    }

    // The analysis reads a frozen session, which takes the builder; the summary is written from a
    // copy of it (through the archive's columns, which keep the model exactly).
    std::string error;
    std::optional<SourceBuilder> thin = SourceArchive::read(SourceArchive::write(full), &error);
    if (!thin) {
        r.failure = "could not copy the model: " + error;
        return r;
    }
    SessionBuilder builder;
    if (options.rank)
        builder.assignRank(input, *options.rank);
    builder.addSource(std::move(full));
    const std::shared_ptr<const Session> session = builder.freeze();
    const Source &frozen = session->sources().front();
    r.ranks = frozen.ranks;

    SummaryFacts facts = SourceSummarizer::facts(*session);
    facts.originPath = input;
    std::error_code ec;
    facts.originAbsolute = fs::absolute(input, ec).lexically_normal().string();
    facts.originFormat = r.format;
    facts.originBytes = r.inputBytes;
    facts.originMtimeNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              fs::last_write_time(input, ec).time_since_epoch()).count();
    facts.originSha256 = sha256Of(input);
    facts.writer = "rankscope " RANKSCOPE_VERSION;
    facts.originRange = thin->source().timeRange;
    // A rank the file name or the user gave travels with the summary, whose own name may differ.
    if (frozen.rankOrigin == RankOrigin::FileName || frozen.rankOrigin == RankOrigin::User) {
        thin->source().ranks = frozen.ranks;
        thin->source().rankOrigin = frozen.rankOrigin;
    }
    SourceSummarizer::Limits limits;
    limits.counterSamples = options.counterSamples;
    SourceSummarizer::thin(*thin, facts, limits);
    thin->source().summary = std::make_shared<const SummaryFacts>(std::move(facts));
    if (!SummaryFile::write(output, *thin, &error)) {
        r.failure = "cannot write " + output + ": " + error;
        return r;
    }
    r.output = output;
    r.outputBytes = static_cast<std::int64_t>(fs::file_size(output, ec));
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return r;
}

} // namespace rs
