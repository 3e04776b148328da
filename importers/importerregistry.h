#pragma once
// Picks the importer for a file by content and runs it. The one entry point the app and the
// command line use to read a file.

#include "importer.h"

#include <memory>
#include <vector>

namespace rs {

class ImporterRegistry
{
public:
    /// The registry with every built-in importer.
    static const ImporterRegistry &instance();

    void add(std::unique_ptr<Importer> importer) { m_importers.push_back(std::move(importer)); }
    /// The best importer for `head`, or nullptr when none reaches the confidence threshold.
    const Importer *pick(std::string_view head, std::string_view path) const;
    const std::vector<std::unique_ptr<Importer>> &importers() const { return m_importers; }

    /// Opens, sniffs and imports `path`, then finishes the builder. An unreadable or unrecognised
    /// file yields a builder with an error diagnostic and no data.
    SourceBuilder importFile(const std::string &path, ImportContext &ctx) const;
    /// Same for bytes in memory (tests, fuzzers). `name` stands in for the path.
    SourceBuilder importBytes(std::string bytes, const std::string &name, ImportContext &ctx) const;

    /// Expands folders into the files below them (sorted), keeping files as given. When
    /// `fromFolder` is given it receives, per file, whether it came from a folder.
    static std::vector<std::string> expandPaths(const std::vector<std::string> &paths,
                                                std::vector<bool> *fromFolder = nullptr);
    /// True when `builder` holds nothing but the "unrecognised content" verdict.
    static bool isUnrecognised(const SourceBuilder &builder);

private:
    SourceBuilder run(std::unique_ptr<InputStream> in, SourceBuilder out, ImportContext &ctx) const;
    std::vector<std::unique_ptr<Importer>> m_importers;
};

} // namespace rs
