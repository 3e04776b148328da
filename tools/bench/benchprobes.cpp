#include "benchprobes.h"

#include "importcontext.h"
#include "importerregistry.h"
#ifdef RANKSCOPE_BENCH_EXPORT
#include "exportprobes.h"
#include "frameprobes.h"
#include "cacheprobes.h"
#include "allocatorprobes.h"
#include "summaryprobes.h"
#endif

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <chrono>
#include <cstring>
#include <istream>
#include <memory>
#include <stdexcept>
#include <streambuf>
#include <vector>

namespace rs::bench {

namespace {

constexpr std::size_t kChunk = 1 << 20;

using Clock = std::chrono::steady_clock;

double processCpuSeconds()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::runtime_error fileError(const std::string &path, const char *what)
{
    return std::runtime_error(path + ": " + what + ": " + std::strerror(errno));
}

/// A std::streambuf over a file read in 1 MiB chunks, inflating gzip when the file is gzip (zlib
/// reads plain files transparently), so nlohmann sees the same bytes the importer does.
class GzStreamBuf : public std::streambuf
{
public:
    explicit GzStreamBuf(const std::string &path) : m_buffer(kChunk)
    {
        m_file = gzopen(path.c_str(), "rb");
        if (!m_file)
            throw fileError(path, "cannot open");
        gzbuffer(m_file, kChunk);
    }
    ~GzStreamBuf() override { gzclose(m_file); }
    GzStreamBuf(const GzStreamBuf &) = delete;
    GzStreamBuf &operator=(const GzStreamBuf &) = delete;

protected:
    int_type underflow() override
    {
        const int n = gzread(m_file, m_buffer.data(), static_cast<unsigned>(m_buffer.size()));
        if (n <= 0)
            return traits_type::eof();
        setg(m_buffer.data(), m_buffer.data(), m_buffer.data() + n);
        return traits_type::to_int_type(m_buffer[0]);
    }

private:
    gzFile m_file = nullptr;
    std::vector<char> m_buffer;
};

/// Counts what it sees and keeps nothing: the cheapest possible consumer of nlohmann's parser.
struct CountingSax {
    std::int64_t objects = 0;
    std::int64_t strings = 0;
    std::int64_t numbers = 0;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(nlohmann::json::number_integer_t) { ++numbers; return true; }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { ++numbers; return true; }
    bool number_float(nlohmann::json::number_float_t, const std::string &) { ++numbers; return true; }
    bool string(std::string &) { ++strings; return true; }
    bool binary(nlohmann::json::binary_t &) { return true; }
    bool start_object(std::size_t) { ++objects; return true; }
    bool key(std::string &) { return true; }
    bool end_object() { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_array() { return true; }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &e)
    {
        error = "byte " + std::to_string(position) + ": " + e.what();
        return false;
    }
    std::string error;
};

} // namespace

ProbeOutcome BenchProbes::run(std::string_view name, const std::string &path)
{
    const double cpuStart = processCpuSeconds();
    ProbeOutcome outcome;
    if (name == kRawRead)
        outcome = rawRead(path);
    else if (name == kGunzip)
        outcome = gunzip(path);
    else if (name == kNlohmannSax)
        outcome = nlohmannSax(path);
    else if (name == kImport)
        outcome = import(path);
    else if (name == kIdle)
        outcome = idle();
#ifdef RANKSCOPE_BENCH_EXPORT
    // These time their own stage (CPU included) after loading the session, which is not measured.
    else if (name == ExportProbes::kFigure)
        return ExportProbes::figure(path);
    else if (name == ExportProbes::kMergedTrace)
        return ExportProbes::mergedTrace(path);
    else if (name == FrameProbes::kZoomPan)
        return FrameProbes::zoomPan(path);
    else if (name == FrameProbes::kScroll)
        return FrameProbes::scroll(path);
    else if (name == FrameProbes::kOverview)
        return FrameProbes::overview(path);
    else if (name == CacheProbes::kOff || name == CacheProbes::kOn)
        return CacheProbes::load(path, name == CacheProbes::kOn);
    else if (name == AllocatorProbes::kActiveMemory)
        return AllocatorProbes::activeMemory(path);
    else if (name == SummaryProbes::kSummarize)
        outcome = SummaryProbes::summarize(path);
    else if (name == SummaryProbes::kOpen)
        outcome = SummaryProbes::openAndAnalyse(path);
    else if (name == SummaryProbes::kAnalyzeJson)
        outcome = SummaryProbes::analyzeJson(path);
#endif
    else
        throw std::runtime_error("unknown probe '" + std::string(name) + "'");
    outcome.cpuSeconds = processCpuSeconds() - cpuStart;
    return outcome;
}

ProbeOutcome BenchProbes::rawRead(const std::string &path)
{
    const auto start = Clock::now();
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        throw fileError(path, "cannot open");
    std::vector<char> buffer(kChunk);
    std::int64_t total = 0;
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ::close(fd);
            throw fileError(path, "cannot read");
        }
        if (n == 0)
            break;
        total += n;
    }
    ::close(fd);
    return {secondsSince(start), 0.0, {total}};
}

ProbeOutcome BenchProbes::gunzip(const std::string &path)
{
    const auto start = Clock::now();
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f)
        throw fileError(path, "cannot open");
    gzbuffer(f, kChunk);
    std::vector<char> buffer(kChunk);
    std::int64_t total = 0;
    for (;;) {
        const int n = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()));
        if (n < 0) {
            int code = 0;
            const std::string message = gzerror(f, &code);
            gzclose(f);
            throw std::runtime_error(path + ": " + message);
        }
        if (n == 0)
            break;
        total += n;
    }
    gzclose(f);
    return {secondsSince(start), 0.0, {total}};
}

ProbeOutcome BenchProbes::nlohmannSax(const std::string &path)
{
    const auto start = Clock::now();
    GzStreamBuf buf(path);
    std::istream in(&buf);
    CountingSax sax;
    const bool ok = nlohmann::json::sax_parse(in, &sax);
    const double seconds = secondsSince(start);
    if (!ok)
        throw std::runtime_error(path + ": nlohmann::json rejected the file: " + sax.error);
    return {seconds, 0.0, {sax.objects, sax.strings, sax.numbers}};
}

ProbeOutcome BenchProbes::import(const std::string &path)
{
    const auto start = Clock::now();
    ImportContext ctx;
    SourceBuilder out = ImporterRegistry::instance().importFile(path, ctx);
    const double seconds = secondsSince(start);
    const Source &s = out.source();
    if (s.hasErrors())
        throw std::runtime_error(path + ": the import reported errors: " + s.diagnostics.front().message);
    return {seconds, 0.0,
            {s.counts.spans, s.counts.memoryEvents, s.counts.instants, static_cast<std::int64_t>(s.diagnostics.size())}};
}

ProbeOutcome BenchProbes::idle()
{
    return {};
}

} // namespace rs::bench
