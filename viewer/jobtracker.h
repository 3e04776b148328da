#pragma once
// One helper for "run on the pool, keep only the newest" (hotspot's JobTracker). Each run() starts
// a new generation; when its worker finishes, `done` gets the result on the owner's thread only if
// no newer run() or cancel() came in between. A result overtaken by a newer request is dropped
// without a call, so a slow stale analysis never replaces a newer one.
//
// The watcher of each job is a child of the owner: destroying the owner drops what is in flight
// (the pool still finishes the work, whose result nobody reads). Work runs on
// QThreadPool::globalInstance() and must own what it reads: copy the shared_ptr of a frozen
// Session or of a result, never capture the owner.
//
// QtCore + QtConcurrent only, header-only: controllers of the app and views of the viewer use it.

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <cstddef>
#include <type_traits>
#include <utility>

namespace rs {

class JobTracker
{
public:
    /// `owner` receives the results (on its thread) and parents the watchers; the tracker is
    /// usually one of its members.
    explicit JobTracker(QObject *owner)
        : m_owner(owner)
    {
    }
    JobTracker(const JobTracker &) = delete;
    JobTracker &operator=(const JobTracker &) = delete;

    /// Starts `work()` on the pool as a new generation and returns it. `done(result)` runs on the
    /// owner's thread when `work` finishes and its generation is still the newest; `work` returns
    /// a copyable value (a shared_ptr, a struct of results).
    /// `dropped(result)`, when given, gets the results of overtaken generations instead (what stays
    /// valid anyway, such as per-rank totals of the same session, can be kept).
    template <typename Work, typename Done, typename Dropped = std::nullptr_t>
    quint64 run(Work work, Done done, Dropped dropped = nullptr)
    {
        using Result = std::invoke_result_t<Work &>;
        static_assert(!std::is_void_v<Result>, "a job hands back a result");
        const quint64 generation = ++m_generation;
        ++m_pending;
        m_newestRunning = true;
        auto *watcher = new QFutureWatcher<Result>(m_owner);
        QObject::connect(watcher, &QFutureWatcherBase::finished, m_owner,
                         [this, watcher, generation, done = std::move(done), dropped = std::move(dropped)]() mutable {
                             --m_pending;
                             watcher->deleteLater();
                             if (generation == m_generation) {
                                 m_newestRunning = false;
                                 done(watcher->result());
                             } else if constexpr (!std::is_same_v<Dropped, std::nullptr_t>) {
                                 dropped(watcher->result());
                             }
                         });
        watcher->setFuture(QtConcurrent::run(std::move(work)));
        return generation;
    }

    /// Starts a new generation without work: whatever is in flight is dropped when it finishes.
    quint64 cancel()
    {
        m_newestRunning = false;
        return ++m_generation;
    }
    /// The newest generation (0 before the first run()).
    quint64 generation() const { return m_generation; }
    /// Whether `generation` is still the newest (for results delivered some other way, such as
    /// progress signals of a running job).
    bool isCurrent(quint64 generation) const { return generation == m_generation; }
    /// Jobs started and not finished yet, current or dropped.
    bool isBusy() const { return m_pending > 0; }
    /// Whether the newest generation's job still runs (its result is yet to come).
    bool isPending() const { return m_newestRunning; }
    /// Blocks until the pool has finished every job (a destructor whose jobs write files).
    static void waitForPool() { QThreadPool::globalInstance()->waitForDone(); }

private:
    QObject *m_owner;
    quint64 m_generation = 0;
    int m_pending = 0;
    bool m_newestRunning = false;
};

} // namespace rs
