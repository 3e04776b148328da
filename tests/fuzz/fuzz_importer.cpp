// One libFuzzer target per importer, built from this file with RANKSCOPE_FUZZ_FORMAT set to the
// importer's format id (tests/fuzz/CMakeLists.txt registers one executable per id). The bytes go
// straight into that importer, bypassing sniffing so mutations that break a file's first line still
// reach its parser, then the source is frozen into a session and analysed: a crash, leak or
// sanitizer report anywhere on that path is a bug. A new importer gets a fuzz target by adding its
// id to the list in CMakeLists.txt.
//
// Invariants checked on every input, whatever it holds: spans have non-negative durations, counter
// columns have equal lengths, the time range is ordered, and no number past the plausibility bounds
// (analysis/model/plausible.h) reached the model's memory counters.

#include "analyzer.h"
#include "importerregistry.h"
#include "plausible.h"
#include "sessionbuilder.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#ifndef RANKSCOPE_FUZZ_FORMAT
#error "RANKSCOPE_FUZZ_FORMAT names the importer under test"
#endif

namespace {

const rs::Importer &importerUnderTest()
{
    static const rs::Importer *found = [] {
        for (const auto &imp : rs::ImporterRegistry::instance().importers())
            if (imp->formatId() == std::string_view(RANKSCOPE_FUZZ_FORMAT))
                return imp.get();
        std::fprintf(stderr, "no importer with format id %s\n", RANKSCOPE_FUZZ_FORMAT);
        std::abort();
    }();
    return *found;
}

void checkInvariants(const rs::SourceBuilder &b)
{
    for (const rs::Track &t : b.tracks()) {
        for (const rs::Span &s : t.spans)
            if (s.duration < 0)
                __builtin_trap();
        if (t.counter.times.size() != t.counter.values.size())
            __builtin_trap();
        const bool memory = t.kind == rs::TrackKind::MemoryAllocated || t.kind == rs::TrackKind::MemoryReserved
            || t.kind == rs::TrackKind::GpuMemoryUsed;
        for (const double v : t.counter.values)
            if (!std::isfinite(v) || (memory && std::fabs(v) >= double(rs::plausible::kMaxBytes)))
                __builtin_trap();
    }
    if (b.source().timeRange.end < b.source().timeRange.begin)
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    rs::ImportContext ctx;
    ctx.timeZone = "UTC";
    const rs::Importer &imp = importerUnderTest();
    rs::SourceBuilder out(std::string("fuzz.") + std::string(imp.formatId()));
    if (auto in = rs::InputStream::fromMemory(std::string(reinterpret_cast<const char *>(data), size), nullptr)) {
        out.source().format = std::string(imp.formatId());
        imp.import(*in, out, ctx);
    }
    out.finish();
    checkInvariants(out);
    rs::SessionBuilder session;
    session.addSource(std::move(out));
    const auto frozen = session.freeze();
    (void)rs::Analyzer::run(*frozen);
    return 0;
}
