#pragma once
// The contract every format implements: a sniffer that judges content, and an import that streams
// the file into a SourceBuilder. Importers are stateless and shared between worker threads.

#include "importcontext.h"
#include "inputstream.h"
#include "sourcebuilder.h"

#include <string>
#include <string_view>

namespace rs {

class Importer
{
public:
    virtual ~Importer() = default;

    /// The DESIGN.md §3 format id this importer produces ("pytorch-trace", ...).
    virtual std::string_view formatId() const = 0;
    /// A short human name ("PyTorch profiler trace").
    virtual std::string_view displayName() const = 0;
    /// Confidence 0..100 that `head` (the first decompressed bytes, up to 4 MiB) is this format. Must be
    /// linear in the head: records may start deep in it (FORMATS.md §7.1).
    /// `path` is only a tie-breaker; content decides.
    virtual int sniff(std::string_view head, std::string_view path) const = 0;
    /// Reads the whole stream into `out`. Never throws for bad input: it reports diagnostics to
    /// `out` and keeps what it could read. Polls `ctx.isCancelled()` regularly.
    virtual void import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const = 0;
};

} // namespace rs
