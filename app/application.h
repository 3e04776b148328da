#pragma once
// The viewer as a whole: the main window and the controllers that feed it (import, analysis,
// session files), wired together. main() builds one from the command line; tests build one to
// drive the same flows a user does (open the demo, annotate, save a session, reopen it).

#include "analysiscontroller.h"
#include "importcontroller.h"
#include "mainwindow.h"
#include "sessionfilecontroller.h"

#include <QObject>
#include <QStringList>

namespace rs {

class Application : public QObject
{
    Q_OBJECT
public:
    /// `options` are the command line's choices (rank overrides, time zone).
    explicit Application(const SessionLoader::Options &options = {}, QObject *parent = nullptr);

    MainWindow &window() { return m_window; }
    ImportController &importer() { return m_import; }
    AnalysisController &analysis() { return m_analysis; }
    SessionFileController &sessionFiles() { return m_files; }

    /// Opens `paths`: one `.rankscope` file is reopened as a session, anything else is imported.
    void open(const QStringList &paths);

Q_SIGNALS:
    /// A session was shown and its analysis arrived (the views are complete).
    void ready();

private:
    // Loads the sources a session file resolved to (with its rank choices), listing its problems.
    void loadSessionSources(const QString &path, const SessionDocument &doc, const SessionDocument::Resolution &resolution);

    ImportController m_import;
    AnalysisController m_analysis;
    quint64 m_analysisTask = 0; // the running analysis in the window's task list
    SessionFileController m_files;
    MainWindow m_window;
};

} // namespace rs
