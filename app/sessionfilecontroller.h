#pragma once
// Opens and saves `.rankscope` session files off the UI thread. Both directions read every source
// (saving hashes them, opening verifies the hashes), which takes seconds for multi-GB traces, so
// the work runs on the thread pool; each request starts a new generation and a result overtaken by
// a newer request is dropped, like the import and analysis controllers.

#include "jobtracker.h"
#include "sessiondocument.h"

#include <QObject>
#include <QString>

namespace rs {

class SessionFileController : public QObject
{
    Q_OBJECT
public:
    explicit SessionFileController(QObject *parent = nullptr);
    ~SessionFileController() override;

    /// True while a save or open runs.
    bool isBusy() const { return m_jobs.isBusy(); }

public Q_SLOTS:
    /// Reads the session file `path`, then finds and verifies its sources in the background. Sources
    /// outside the file's folder are opened only with `allowOutside` (the user said yes).
    void open(const QString &path, bool allowOutside = false);
    /// Describes `session` for `path` (relative paths, sizes, checksums) with the rank choices of
    /// `options`, takes everything else (annotations, offsets, view) from `state`, and writes it
    /// atomically, in the background.
    void save(const QString &path, rs::SessionPtr session, const rs::SessionLoader::Options &options,
              const rs::SessionDocument &state);

Q_SIGNALS:
    /// `path` was read; `resolution` lists the files to load (with their options) and the problems.
    void opened(const QString &path, const rs::SessionDocument &document,
                const rs::SessionDocument::Resolution &resolution);
    /// `path` was written.
    void saved(const QString &path);
    /// Opening or saving failed; `message` names the file.
    void failed(const QString &message);

private:
    struct Outcome;

    JobTracker m_jobs{this}; // a request overtaken by a newer one is dropped
};

} // namespace rs

Q_DECLARE_METATYPE(rs::SessionDocument)
Q_DECLARE_METATYPE(rs::SessionDocument::Resolution)
