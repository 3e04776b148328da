#pragma once
// Helpers shared by the Kineto importer tests: compressing fixtures, importing text, finding
// tracks and diagnostics.

#include "importerregistry.h"

#include <QString>

#include <zlib.h>
#include <zstd.h>

#include <string>
#include <string_view>

namespace rs::test {

inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// One complete gzip member holding `text`.
inline std::string gzip(std::string_view text)
{
    z_stream z{};
    deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, static_cast<uLong>(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

/// One zstd frame holding `text`.
inline std::string zstd(std::string_view text)
{
    std::string out(ZSTD_compressBound(text.size()), '\0');
    out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 3));
    return out;
}

/// Imports `text` (plain or compressed) through the registry, as the app does.
inline SourceBuilder importText(std::string text, const std::string &name = "fixture.json")
{
    ImportContext ctx;
    return ImporterRegistry::instance().importBytes(std::move(text), name, ctx);
}

inline int countDiagnostics(const SourceBuilder &b, Diagnostic::Severity severity)
{
    int n = 0;
    for (const Diagnostic &d : b.source().diagnostics)
        n += d.severity == severity;
    return n;
}

/// The first diagnostic whose message contains `needle`, or nullptr.
inline const Diagnostic *findDiagnostic(const SourceBuilder &b, std::string_view needle)
{
    for (const Diagnostic &d : b.source().diagnostics)
        if (d.message.find(needle) != std::string::npos)
            return &d;
    return nullptr;
}

/// The first track of `kind` named `name`, or nullptr.
inline const Track *findTrack(const SourceBuilder &b, TrackKind kind, std::string_view name)
{
    for (const Track &t : b.tracks())
        if (t.kind == kind && b.str(t.name) == name)
            return &t;
    return nullptr;
}

/// The first span named `name` on any track, or nullptr.
inline const Span *findSpan(const SourceBuilder &b, std::string_view name, const Track **on = nullptr)
{
    for (const Track &t : b.tracks())
        for (const Span &s : t.spans)
            if (b.str(s.name) == name) {
                if (on)
                    *on = &t;
                return &s;
            }
    return nullptr;
}

/// Every diagnostic as one line each, for failure messages.
inline QByteArray diagnosticsText(const SourceBuilder &b)
{
    QByteArray out;
    for (const Diagnostic &d : b.source().diagnostics)
        out += QByteArray(d.isError() ? "E " : "W ") + QByteArray::fromStdString(d.message) + " @" + QByteArray::number(d.line) + "\n";
    return out;
}

} // namespace rs::test
