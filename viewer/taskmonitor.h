#pragma once
// The long tasks running for the window (import, analysis, compare totals, report, merged trace,
// figure export), each with its progress and a way to cancel it. The status bar shows the newest
// one with a progress bar and Cancel; every controller reports here instead of owning a progress
// widget of its own.
//
// begin() registers a task and returns its id; the work reports through setProgress() (GUI
// thread) or through the TaskControl from control() (any thread: reports are queued to the GUI
// thread, where the monitor lives; after the task ended they are dropped). cancel() sets the
// task's stop flag, calls its cancel function and ends it; end() ends it without a word.

#include "taskcontrol.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace rs {

class TaskMonitor : public QObject
{
    Q_OBJECT
public:
    using Id = quint64;

    struct Task {
        Id id = 0;
        QString label;     ///< "Analysing 8 ranks…", "Writing incident.md…"
        qint64 done = 0;
        qint64 total = 0;  ///< <= 0: unknown (a busy indicator)
        bool cancellable = false;
    };

    explicit TaskMonitor(QObject *parent = nullptr);

    /// Starts showing a task; `cancel` (may be empty: the task cannot be stopped) runs on this
    /// thread when the user cancels it.
    Id begin(const QString &label, std::function<void()> cancel = {});
    /// The progress of task `id`; an empty `label` keeps the current one.
    void setProgress(Id id, qint64 done, qint64 total, const QString &label = {});
    /// Task `id` is over (finished, failed or dropped). Unknown ids are ignored.
    void end(Id id);
    /// Stops task `id`: sets its stop flag, runs its cancel function and ends it. False when it
    /// was not running or cannot be stopped.
    bool cancel(Id id);
    /// A control for the work of task `id`, for any thread.
    TaskControl control(Id id) const;

    /// The newest running task (the one the status bar shows).
    std::optional<Task> current() const;
    std::vector<Task> tasks() const;
    bool isRunning(Id id) const;

Q_SIGNALS:
    /// A task began, progressed or ended.
    void changed();
    /// Task `id` was cancelled by the user (just before its cancel function runs).
    void cancelled(rs::TaskMonitor::Id id, const QString &label);

private:
    struct Entry {
        Task task;
        std::function<void()> cancel;
        std::shared_ptr<std::atomic<bool>> stop;
    };
    Entry *find(Id id);
    const Entry *find(Id id) const;

    std::vector<Entry> m_tasks; // in begin order
    Id m_next = 1;
};

} // namespace rs
