// Feeds arbitrary bytes to the trace import: once through the registry (decompression, sniffing,
// whichever importer claims the bytes), once straight into the Kineto importer, so mutations that
// break the sniffed prefix still reach the tokenizer, and once through the tokenizer with a 64-byte
// buffer, so buffer boundaries fall inside values (the refill-and-reparse path that real files
// only take once per MiB). Seeds: tests/fixtures/kineto.

#include "importerregistry.h"
#include "kineto/jsontokenizer.h"
#include "kineto/kinetoimporter.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

void walkWithSmallBuffer(const std::string &bytes)
{
    auto in = rs::InputStream::fromMemory(bytes, nullptr);
    rs::JsonTokenizer tok(*in, [](rs::Diagnostic) {}, {}, 64);
    rs::JsonEvent ev;
    std::string key, value;
    std::size_t seen = 0;
    const auto events = [&] {
        while (tok.nextEvent(ev))
            seen += ev.args.size() + ev.argList.size() + ev.name.text.size();
    };
    switch (tok.open()) {
    case rs::JsonTokenizer::Root::Array:
        events();
        break;
    case rs::JsonTokenizer::Root::Object:
        while (tok.nextKey(key)) {
            if (key == "traceEvents" && tok.enterArray())
                events();
            else if (key != "traceEvents")
                tok.readValue(value, 100);
        }
        break;
    default:
        break;
    }
    if (seen > bytes.size() * 3 + 64) // views can only show what the input held (plus escapes)
        __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string bytes(reinterpret_cast<const char *>(data), size);
    rs::ImportContext ctx;
    rs::SourceBuilder viaRegistry = rs::ImporterRegistry::instance().importBytes(bytes, "fuzz.pt.trace.json", ctx);

    rs::SourceBuilder direct("fuzz.json");
    if (auto in = rs::InputStream::fromMemory(bytes, nullptr)) {
        rs::KinetoImporter().import(*in, direct, ctx);
        direct.finish();
    }
    walkWithSmallBuffer(bytes);

    // Invariants every import must keep, whatever the input.
    for (const rs::SourceBuilder *b : {&viaRegistry, &direct}) {
        for (const rs::Track &t : b->tracks()) {
            for (const rs::Span &s : t.spans)
                if (s.duration < 0)
                    __builtin_trap();
            if (t.counter.times.size() != t.counter.values.size())
                __builtin_trap();
        }
        if (b->source().counts.spans < 0 || b->source().timeRange.end < b->source().timeRange.begin)
            __builtin_trap();
    }
    return 0;
}
