#pragma once
// File ▸ Save Session / Save Session As and everything the window does with `.rankscope` files:
// which file the session belongs to, what of the window goes into one (annotations, clock-offset
// overrides, the view, the compare reference), putting a reopened file's state back once its
// session has loaded, reporting sources that moved or changed, and asking before unsaved
// annotation edits are dropped. The files themselves are read and written by the owner
// (SessionFileController) — this class only decides and shows.

#include "sessiondocument.h"

#include <QObject>
#include <QString>

#include <optional>
#include <vector>

class QAction;

namespace rs {

class MainWindow;

class SessionFileActions : public QObject
{
    Q_OBJECT
public:
    explicit SessionFileActions(MainWindow *window);

    QAction *saveAction() const { return m_save; }
    QAction *saveAsAction() const { return m_saveAs; }

    /// The `.rankscope` file the session was opened from or last saved to ("" when none).
    QString documentPath() const { return m_path; }
    /// Everything a session file keeps besides the sources, as the window shows it now.
    SessionDocument capture() const;
    /// Other inputs are opened (or the session closed): no document, nothing pending.
    void forget();
    /// Called once the window shows a new session: puts a just-opened file's state back.
    /// Returns true when one was applied.
    bool applyPending();
    /// True when the saved state restores a visible range (then it wins over "show the top finding").
    bool pendingRestoresView() const { return m_pending && m_pending->view.visible.has_value(); }
    /// True unless there are unsaved annotation edits and the user chose to keep them (Cancel).
    bool confirmDiscardEdits();

public Q_SLOTS:
    void opened(const QString &path, const rs::SessionDocument &document,
                const std::vector<rs::SessionDocument::Problem> &problems);
    void saved(const QString &path);
    void failed(const QString &message);
    /// Save Session: to documentPath(), or asks for a path when there is none.
    void save();
    /// Save Session As: asks for a path, then saveTo().
    void saveAs();
    /// Emits saveRequested(path, capture()).
    void saveTo(const QString &path);

Q_SIGNALS:
    /// The owner should write the session with `state` to `path`.
    void saveRequested(const QString &path, const rs::SessionDocument &state);
    /// documentPath() changed (the window title follows it).
    void documentPathChanged(const QString &path);

private:
    void apply(const SessionDocument &document);
    void setPath(const QString &path);

    MainWindow *m_window;
    QAction *m_save;
    QAction *m_saveAs;
    QString m_path;
    std::optional<SessionDocument> m_pending;
};

} // namespace rs
