#include "taskmonitor.h"

#include <QCoreApplication>
#include <QPointer>

#include <algorithm>

namespace rs {

TaskMonitor::TaskMonitor(QObject *parent)
    : QObject(parent)
{
}

TaskMonitor::Entry *TaskMonitor::find(Id id)
{
    const auto it = std::find_if(m_tasks.begin(), m_tasks.end(), [id](const Entry &e) { return e.task.id == id; });
    return it == m_tasks.end() ? nullptr : &*it;
}

const TaskMonitor::Entry *TaskMonitor::find(Id id) const
{
    return const_cast<TaskMonitor *>(this)->find(id);
}

TaskMonitor::Id TaskMonitor::begin(const QString &label, std::function<void()> cancel)
{
    Entry e;
    e.task.id = m_next++;
    e.task.label = label;
    e.task.cancellable = static_cast<bool>(cancel);
    e.cancel = std::move(cancel);
    e.stop = std::make_shared<std::atomic<bool>>(false);
    m_tasks.push_back(std::move(e));
    Q_EMIT changed();
    return m_tasks.back().task.id;
}

void TaskMonitor::setProgress(Id id, qint64 done, qint64 total, const QString &label)
{
    Entry *e = find(id);
    if (!e)
        return;
    e->task.done = done;
    e->task.total = total;
    if (!label.isEmpty())
        e->task.label = label;
    Q_EMIT changed();
}

void TaskMonitor::end(Id id)
{
    const auto it = std::find_if(m_tasks.begin(), m_tasks.end(), [id](const Entry &e) { return e.task.id == id; });
    if (it == m_tasks.end())
        return;
    m_tasks.erase(it);
    Q_EMIT changed();
}

bool TaskMonitor::cancel(Id id)
{
    Entry *e = find(id);
    if (!e || !e->task.cancellable)
        return false;
    e->stop->store(true);
    // The cancel function may end other tasks or begin new ones: work on copies.
    const std::function<void()> stop = e->cancel;
    const QString label = e->task.label;
    end(id);
    Q_EMIT cancelled(id, label); // first: what the cancel function says afterwards has the last word
    stop();
    return true;
}

TaskControl TaskMonitor::control(Id id) const
{
    TaskControl c;
    const Entry *e = find(id);
    if (!e)
        return c;
    c.stop = e->stop;
    // Reports from the pool are queued to this thread; a report after the task ended finds no task.
    QPointer<TaskMonitor> self(const_cast<TaskMonitor *>(this));
    // Posted to the application object, which outlives every monitor: whether this monitor still
    // exists is asked on its own thread, never from the worker's.
    c.progress = [self, id](qint64 done, qint64 total, const QString &what) {
        QMetaObject::invokeMethod(
            QCoreApplication::instance(),
            [self, id, done, total, what] {
                if (self)
                    self->setProgress(id, done, total, what);
            },
            Qt::QueuedConnection);
    };
    return c;
}

std::optional<TaskMonitor::Task> TaskMonitor::current() const
{
    if (m_tasks.empty())
        return std::nullopt;
    return m_tasks.back().task;
}

std::vector<TaskMonitor::Task> TaskMonitor::tasks() const
{
    std::vector<Task> out;
    for (const Entry &e : m_tasks)
        out.push_back(e.task);
    return out;
}

bool TaskMonitor::isRunning(Id id) const
{
    return find(id) != nullptr;
}

} // namespace rs
