#include "exportactions.h"

#include "annotations/annotationstore.h"
#include "compare/compareview.h"
#include "export/exportdialog.h"
#include "export/figureexporter.h"
#include "export/mergedtracewriter.h"
#include "export/reportwriter.h"
#include "mainwindow.h"
#include "taskmonitor.h"
#include "viewstate.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace rs {

namespace {

} // namespace

// What a background writer hands back.
struct ExportActions::Outcome {
    bool ok = false;
    QString error;
    QStringList files;
};

ExportActions::ExportActions(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_exportView = new QAction(tr("&View as Image…"), this);
    m_exportView->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    m_exportView->setToolTip(tr("Export what the current tab shows (the timeline with annotations, or the rank comparison) "
                                "with its legend, as PNG, SVG or PDF"));
    connect(m_exportView, &QAction::triggered, this, &ExportActions::exportView);
    m_copyImage = new QAction(tr("&Copy View Image"), this);
    m_copyImage->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    connect(m_copyImage, &QAction::triggered, this, &ExportActions::copyImage);
    m_exportReport = new QAction(tr("Incident &Report…"), this);
    m_exportReport->setToolTip(tr("Markdown report with findings, per-rank metrics, inputs and checksums, images beside it"));
    connect(m_exportReport, &QAction::triggered, this, &ExportActions::exportReport);
    m_exportTrace = new QAction(tr("Merged Chrome &Trace…"), this);
    m_exportTrace->setToolTip(tr("Every rank on the aligned axis in one trace that Perfetto and chrome://tracing open"));
    connect(m_exportTrace, &QAction::triggered, this, &ExportActions::exportTrace);
}

void ExportActions::addTo(QMenu *menu) const
{
    for (QAction *a : {m_exportView, m_copyImage, m_exportReport, m_exportTrace})
        menu->addAction(a);
}

void ExportActions::setEnabled(bool enabled)
{
    for (QAction *a : {m_exportView, m_copyImage, m_exportReport, m_exportTrace})
        a->setEnabled(enabled);
}

FigureOptions ExportActions::currentView() const
{
    FigureOptions o;
    if (const SessionPtr s = m_window->session())
        o = FigureOptions::fromView(*s, *m_window->viewState());
    if (m_window->compareShown())
        o.view = FigureOptions::View::Compare;
    // Also from the Timeline tab: the report's compare figure measures against the same reference.
    o.referenceRank = m_window->compareView()->referenceRank();
    o.annotations = m_window->annotationStore()->visibleAnnotations();
    const std::string &zone = m_window->loaderOptions().timeZone;
    o.timeZone = zone.empty() ? QTimeZone::systemTimeZone() : QTimeZone(QByteArray::fromStdString(zone));
    if (!o.timeZone.isValid())
        o.timeZone = QTimeZone::utc();
    return o;
}

QString ExportActions::suggestedPath(const QString &fileName) const
{
    QString dir = m_window->documentPath().isEmpty() ? QString() : QFileInfo(m_window->documentPath()).absolutePath();
    if (dir.isEmpty() && m_window->session() && !m_window->session()->sources().empty())
        dir = QFileInfo(QString::fromStdString(m_window->session()->sources().front().path)).absolutePath();
    return dir.isEmpty() ? fileName : QDir(dir).filePath(fileName);
}

void ExportActions::report(const QString &message, bool failed)
{
    m_window->statusBar()->showMessage(message, 10000);
    if (failed) {
        auto *box = new QMessageBox(QMessageBox::Warning, tr("Export"), message, QMessageBox::Ok, m_window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

void ExportActions::exportView()
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    ExportDialog dialog(session, m_window->analysis(), currentView(), m_window);
    if (dialog.exec() != QDialog::Accepted)
        return;
    writeFigure(dialog.path(), dialog.format(), dialog.options());
}

void ExportActions::runTask(const QString &label, const QString &path, std::function<Outcome(const TaskControl &)> work,
                            std::function<QString(const Outcome &)> success)
{
    TaskMonitor *tasks = m_window->tasks();
    const TaskMonitor::Id task = tasks->begin(label, [] {}); // the stop flag is the cancel: the work checks it
    const TaskControl control = tasks->control(task);
    ++m_running;
    auto *watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, task, control, path, success = std::move(success)] {
        --m_running;
        m_window->tasks()->end(task);
        const Outcome out = watcher->result();
        watcher->deleteLater();
        const bool cancelled = control.stopped();
        const QString message = out.ok ? success(out) : out.error;
        report(message, !out.ok && !cancelled);
        Q_EMIT written(path, out.ok, message);
    });
    // Painting into QImage, SVG and PDF devices is allowed off the GUI thread; the session and the
    // analysis are immutable and shared.
    watcher->setFuture(QtConcurrent::run([work = std::move(work), control] { return work(control); }));
}

void ExportActions::writeFigure(const QString &path, FigureExporter::Format format, const FigureOptions &options)
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    const auto analysis = m_window->analysis();
    runTask(tr("Exporting %1…").arg(QFileInfo(path).fileName()), path,
            [path, format, options, session, analysis](const TaskControl &control) {
                // Drawn to a side file and moved in place at the end: a cancelled export leaves
                // the old file, if any, as it was.
                Outcome out;
                const QString part = path + QStringLiteral(".part");
                out.ok = FigureExporter(session, analysis).exportTo(part, format, options, &out.error);
                if (out.ok && control.stopped()) {
                    out.ok = false;
                    out.error = tr("cancelled: %1 was not written").arg(path);
                }
                if (out.ok) {
                    QFile::remove(path);
                    out.ok = QFile::rename(part, path);
                    if (!out.ok)
                        out.error = tr("cannot write %1").arg(path);
                }
                if (!out.ok) {
                    QFile::remove(part);
                    out.error.replace(part, path);
                }
                return out;
            },
            [path](const Outcome &) { return tr("Exported %1").arg(QDir::toNativeSeparators(path)); });
}

void ExportActions::copyImage()
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    FigureOptions o = currentView();
    o.devicePixelRatio = m_window->devicePixelRatioF();
    const bool ok = FigureExporter(session, m_window->analysis()).copyToClipboard(o);
    report(ok ? tr("Copied the view (%1 × %2 px) to the clipboard").arg(o.width).arg(o.height > 0 ? QString::number(o.height) : tr("auto"))
              : tr("The clipboard is not available"),
           !ok);
}

void ExportActions::exportReport()
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    QString path = QFileDialog::getSaveFileName(m_window, tr("Export Incident Report"), suggestedPath(QStringLiteral("incident.md")),
                                                tr("Markdown (*.md)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".md"), Qt::CaseInsensitive))
        path += QStringLiteral(".md");
    writeReport(path);
}

void ExportActions::writeReport(const QString &path)
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    const auto analysis = m_window->analysis();
    const FigureOptions figure = currentView();
    runTask(tr("Writing %1…").arg(QFileInfo(path).fileName()), path,
            [path, session, analysis, figure](const TaskControl &control) {
                Outcome out;
                ReportWriter::Options options;
                options.control = control;
                out.ok = ReportWriter::write(path, session, analysis, figure, options, &out.error, &out.files);
                return out;
            },
            [path](const Outcome &out) {
                return tr("Wrote %1 and %n image(s) beside it", nullptr, int(out.files.size()) - 1).arg(QDir::toNativeSeparators(path));
            });
}

void ExportActions::exportTrace()
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    QString path = QFileDialog::getSaveFileName(m_window, tr("Export Merged Chrome Trace"),
                                                suggestedPath(QStringLiteral("merged.pt.trace.json.gz")),
                                                tr("Chrome trace (*.json.gz *.json)"));
    if (path.isEmpty())
        return;
    if (!MergedTraceWriter::isTracePath(path))
        path += QStringLiteral(".json.gz");
    writeTrace(path);
}

void ExportActions::writeTrace(const QString &path)
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    const auto analysis = m_window->analysis();
    const auto offsets = m_window->clockOffsetOverrides();
    const std::vector<Annotation> annotations = m_window->annotationStore()->annotations();
    runTask(tr("Writing %1…").arg(QFileInfo(path).fileName()), path,
            [path, session, analysis, offsets, annotations](const TaskControl &control) {
                Outcome out;
                out.ok = MergedTraceWriter::write(path, *session, analysis.get(), offsets, &out.error, annotations, &control);
                return out;
            },
            [path](const Outcome &) { return tr("Wrote %1 (open it in Perfetto)").arg(QDir::toNativeSeparators(path)); });
}

} // namespace rs
