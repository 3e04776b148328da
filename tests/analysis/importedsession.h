#pragma once
// A session read from real files by the importers (UTC for stamps without a zone), for analysis
// tests that run on fixtures and samples rather than on sessions they build.

#include "importerregistry.h"
#include "sessionfixture.h"

#include <QStringList>

namespace rs::test {

/// Every file of `files`, in order, through the importer registry, frozen into one session.
inline SessionPtr importSession(const QStringList &files)
{
    std::vector<SourceBuilder> src;
    for (const QString &f : files) {
        ImportContext ctx;
        ctx.timeZone = "UTC";
        src.push_back(ImporterRegistry::instance().importFile(f.toStdString(), ctx));
    }
    return freeze(std::move(src));
}

} // namespace rs::test
