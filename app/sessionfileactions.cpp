#include "sessionfileactions.h"

#include "annotations/annotationstore.h"
#include "compare/compareview.h"
#include "mainwindow.h"
#include "panels/clockoffsetspanel.h"
#include "viewstate.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QUndoStack>

#include <algorithm>

namespace rs {

SessionFileActions::SessionFileActions(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_save = new QAction(tr("&Save Session"), this);
    m_save->setShortcut(QKeySequence::Save);
    m_save->setToolTip(tr("Save the inputs, rank choices, clock offsets, annotations and view as a .rankscope file"));
    connect(m_save, &QAction::triggered, this, &SessionFileActions::save);
    m_saveAs = new QAction(tr("Save Session &As…"), this);
    m_saveAs->setShortcut(QKeySequence::SaveAs);
    connect(m_saveAs, &QAction::triggered, this, &SessionFileActions::saveAs);
}

SessionDocument SessionFileActions::capture() const
{
    const ViewState *state = m_window->viewState();
    const AnnotationStore *annotations = m_window->annotationStore();
    SessionDocument d;
    d.timeZone = m_window->loaderOptions().timeZone;
    d.clockOffsets = m_window->clockOffsetOverrides();
    d.annotations = annotations->annotations();
    d.deletedFindingKeys = annotations->deletedFindingKeys();
    d.editedFindingKeys = annotations->editedFindingKeys();
    d.findingAnnotationsVisible = annotations->findingAnnotationsVisible();
    if (m_window->session())
        d.view.visible = state->visibleRange();
    d.view.hidden.assign(state->hiddenRanks().begin(), state->hiddenRanks().end());
    d.view.collapsed.assign(state->collapsedRanks().begin(), state->collapsedRanks().end());
    std::sort(d.view.hidden.begin(), d.view.hidden.end());
    std::sort(d.view.collapsed.begin(), d.view.collapsed.end());
    d.view.compactLanes = state->compactLanes();
    d.view.memoryLaneHeight = state->memoryLaneHeight();
    for (const ViewState::LaneKey &k : state->pinnedLanes())
        d.view.pinned.push_back({k.rank, k.kind.toStdString(), k.track});
    d.view.selectedRank = state->selectedRank();
    d.view.referenceRank = m_window->compareView()->referenceRank();
    return d;
}

void SessionFileActions::forget()
{
    m_pending.reset();
    setPath({});
}

bool SessionFileActions::applyPending()
{
    if (!m_pending || !m_window->session())
        return false;
    apply(*m_pending);
    m_pending.reset();
    return true;
}

void SessionFileActions::apply(const SessionDocument &document)
{
    AnnotationStore *annotations = m_window->annotationStore();
    annotations->reset(document.annotations, document.deletedFindingKeys, document.editedFindingKeys);
    annotations->setFindingAnnotationsVisible(document.findingAnnotationsVisible);
    {
        // The owner analyses the new session with clockOffsetOverrides(): no second request here.
        const QSignalBlocker quiet(m_window->clockOffsetsPanel());
        m_window->clockOffsetsPanel()->setOverrides(document.clockOffsets);
    }
    ViewState *state = m_window->viewState();
    for (RankId r : document.view.hidden)
        state->setRankHidden(r, true);
    state->setRanksCollapsed(document.view.collapsed, true);
    state->setCompactLanes(document.view.compactLanes);
    state->setMemoryLaneHeight(document.view.memoryLaneHeight);
    std::vector<ViewState::LaneKey> pinned;
    for (const auto &p : document.view.pinned)
        pinned.push_back({p.rank, QString::fromStdString(p.kind), p.track});
    state->setPinnedLanes(std::move(pinned));
    if (document.view.selectedRank != kNoRank)
        state->setSelectedRank(document.view.selectedRank);
    if (document.view.visible)
        state->setVisibleRange(*document.view.visible, ViewState::Change::Jump);
    if (document.view.referenceRank != kNoRank)
        m_window->compareView()->setReferenceRank(document.view.referenceRank);
}

void SessionFileActions::opened(const QString &path, const SessionDocument &document,
                                const std::vector<SessionDocument::Problem> &problems)
{
    setPath(path);
    m_pending = document;
    if (problems.empty())
        return;
    QStringList lines;
    bool missing = false;
    for (const auto &p : problems) {
        lines << QString::fromStdString(p.message);
        missing = missing || p.kind == SessionDocument::Problem::Kind::Missing;
    }
    const QString name = QFileInfo(path).fileName();
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Session sources"),
                                missing ? tr("Some sources of %1 could not be found; the rest are loaded.").arg(name)
                                        : tr("Some sources of %1 moved or changed since it was saved.").arg(name),
                                QMessageBox::Ok, m_window);
    box->setInformativeText(lines.mid(0, 8).join(QLatin1Char('\n')) + (lines.size() > 8 ? tr("\n…") : QString()));
    box->setDetailedText(lines.join(QLatin1Char('\n')));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SessionFileActions::saved(const QString &path)
{
    setPath(path);
    m_window->annotationStore()->undoStack()->setClean();
    m_window->statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 10000);
}

void SessionFileActions::failed(const QString &message)
{
    m_window->statusBar()->showMessage(message, 10000);
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Session file"), message, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void SessionFileActions::save()
{
    if (!m_window->session())
        return;
    if (m_path.isEmpty())
        saveAs();
    else
        saveTo(m_path);
}

void SessionFileActions::saveAs()
{
    const SessionPtr session = m_window->session();
    if (!session)
        return;
    QString suggestion = m_path;
    if (suggestion.isEmpty() && !session->sources().empty())
        suggestion = QFileInfo(QString::fromStdString(session->sources().front().path)).absolutePath()
            + QStringLiteral("/incident.rankscope");
    QString path = QFileDialog::getSaveFileName(m_window, tr("Save Session"), suggestion, tr("RankScope sessions (*.rankscope)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".rankscope"), Qt::CaseInsensitive))
        path += QStringLiteral(".rankscope");
    saveTo(path);
}

void SessionFileActions::saveTo(const QString &path)
{
    if (!m_window->session())
        return;
    m_window->statusBar()->showMessage(tr("Saving %1 (hashing the sources)…").arg(QFileInfo(path).fileName()));
    Q_EMIT saveRequested(path, capture());
}

bool SessionFileActions::confirmDiscardEdits()
{
    if (!m_window->session() || m_window->annotationStore()->undoStack()->isClean())
        return true;
    const auto answer = QMessageBox::question(
        m_window, tr("Unsaved annotations"),
        tr("The annotations of this session have changed since it was last saved. Discard the changes?"),
        QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
    return answer == QMessageBox::Discard;
}

void SessionFileActions::setPath(const QString &path)
{
    if (path == m_path)
        return;
    m_path = path;
    Q_EMIT documentPathChanged(path);
}

} // namespace rs
