#include "sessionfilecontroller.h"

namespace rs {

// What a worker hands back: a document and its resolution (open), or an error.
struct SessionFileController::Outcome {
    std::optional<SessionDocument> document;
    SessionDocument::Resolution resolution;
    QString error;
};

SessionFileController::SessionFileController(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<rs::SessionDocument>("rs::SessionDocument");
    qRegisterMetaType<rs::SessionDocument::Resolution>("rs::SessionDocument::Resolution");
}

SessionFileController::~SessionFileController()
{
    // A save in flight must reach the disk (QSaveFile commits or leaves the old file intact).
    JobTracker::waitForPool();
}

void SessionFileController::open(const QString &path, bool allowOutside)
{
    m_jobs.run(
        [path, allowOutside] {
            Outcome out;
            out.document = SessionDocument::load(path, &out.error);
            if (out.document)
                out.resolution = SessionDocument::resolve(*out.document, path, true, allowOutside);
            return out;
        },
        [this, path](const Outcome &r) {
            if (!r.document)
                Q_EMIT failed(r.error);
            else
                Q_EMIT opened(path, *r.document, r.resolution);
        });
}

void SessionFileController::save(const QString &path, SessionPtr session, const SessionLoader::Options &options,
                                 const SessionDocument &state)
{
    if (!session) {
        Q_EMIT failed(tr("%1: nothing to save (no session is open)").arg(path));
        return;
    }
    m_jobs.run(
        [path, session, options, state] {
            Outcome out;
            SessionDocument doc = SessionDocument::describe(*session, options, path);
            doc.clockOffsets = state.clockOffsets;
            doc.annotations = state.annotations;
            doc.deletedFindingKeys = state.deletedFindingKeys;
            doc.editedFindingKeys = state.editedFindingKeys;
            doc.findingAnnotationsVisible = state.findingAnnotationsVisible;
            doc.view = state.view;
            if (!SessionDocument::save(doc, path, &out.error) && out.error.isEmpty())
                out.error = tr("%1: could not be written").arg(path);
            return out;
        },
        [this, path](const Outcome &r) {
            if (!r.error.isEmpty())
                Q_EMIT failed(r.error);
            else
                Q_EMIT saved(path);
        });
}

} // namespace rs
