#include "kinetoimporter.h"

#include "jsontokenizer.h"
#include "kinetometadata.h"
#include "kinetotracebuilder.h"

namespace rs {

namespace {

std::string_view skipBlanks(std::string_view s)
{
    if (s.starts_with("\xEF\xBB\xBF"))
        s.remove_prefix(3);
    while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

} // namespace

int KinetoImporter::sniff(std::string_view head, std::string_view) const
{
    const std::string_view s = skipBlanks(head);
    if (s.empty())
        return 0;
    const bool hasPhase = s.find("\"ph\"") != std::string_view::npos;
    if (s.front() == '{') {
        // Kineto writes schemaVersion first; FORMATS.md §0 expects it within the first ~4 KB.
        const bool hasSchema = s.substr(0, 4096).find("\"schemaVersion\"") != std::string_view::npos;
        const bool hasEvents = s.find("\"traceEvents\"") != std::string_view::npos;
        if (hasSchema)
            return hasEvents ? 95 : 85;
        if (skipBlanks(s.substr(1)).starts_with("\"traceEvents\""))
            return 70;
        return hasEvents && hasPhase ? 60 : 0;
    }
    if (s.front() == '[') {
        // `[[` is the profiler memory-timeline export, a different format.
        const std::string_view rest = skipBlanks(s.substr(1));
        return rest.starts_with('{') && hasPhase ? 50 : 0;
    }
    return 0;
}

void KinetoImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    KinetoMetadata metadata(out);
    KinetoTraceBuilder builder(out, metadata);
    JsonTokenizer tokenizer(
        in,
        [&out](Diagnostic d) {
            if (d.isError())
                out.error(d.code, std::move(d.message), d.line, d.offset);
            else
                out.warning(d.code, std::move(d.message), d.line, d.offset);
            // One report may stand for several occurrences (the values cut in one event).
            if (d.count > 1)
                for (Diagnostic &same : out.source().diagnostics)
                    if (same.code == d.code && same.severity == d.severity)
                        same.count += d.count - 1;
        },
        [&in, &ctx] {
            ctx.reportProgress(in.compressedBytesRead(), in.compressedSize());
            return !ctx.isCancelled();
        });
    JsonEvent ev;
    switch (tokenizer.open()) {
    case JsonTokenizer::Root::Object: {
        bool sawEvents = false;
        std::string key;
        std::string value;
        while (tokenizer.nextKey(key)) {
            if (key == "traceEvents") {
                if (!tokenizer.enterArray()) {
                    out.warning("trace-events-not-array", "\"traceEvents\" is not an array; it was skipped");
                    continue;
                }
                sawEvents = true;
                while (tokenizer.nextEvent(ev))
                    builder.addEvent(ev);
            } else if (tokenizer.readValue(value, KinetoMetadata::valueCap(key))) {
                metadata.addTopLevel(key, value);
            }
        }
        if (!sawEvents && !tokenizer.cancelled() && !tokenizer.truncated())
            out.error("no-trace-events", "the JSON object has no \"traceEvents\" array, so it holds no trace", 1, 0);
        break;
    }
    case JsonTokenizer::Root::Array:
        while (tokenizer.nextEvent(ev))
            builder.addEvent(ev);
        break;
    case JsonTokenizer::Root::NotJson:
        out.error("not-json", "the file does not start with a JSON object or array", 1, 0);
        break;
    case JsonTokenizer::Root::Empty:
        if (!tokenizer.cancelled())
            out.error("only-whitespace", "the file holds nothing but whitespace", 1, 0);
        break;
    }
    if (tokenizer.suppressedErrors() > 0) {
        const std::string message = std::to_string(tokenizer.suppressedErrors())
            + " further problems in the event array were not listed one by one ("
            + std::to_string(tokenizer.brokenEvents()) + " broken events were skipped in all)";
        if (tokenizer.brokenEvents() > 0)
            out.error("json-syntax", message);
        else
            out.warning("json-syntax", message);
    }
    builder.finish();
}

} // namespace rs
