#pragma once
// What a long piece of work (writing a report, a merged trace, a figure) is handed so the user can
// follow and stop it: a progress callback and a stop flag, both usable from any thread. The work
// calls report() as it goes and checks stopped() between steps; a stopped task leaves no partial
// output behind and says so. TaskMonitor makes these for the tasks it shows with a Cancel button.
//
// Header-only, QtCore only: the writers of the export layer and the app's controllers share it.

#include <QString>
#include <QtGlobal>

#include <atomic>
#include <functional>
#include <memory>

namespace rs {

struct TaskControl {
    /// Called with work done of `total` (total <= 0: unknown) and what is being done now.
    std::function<void(qint64 done, qint64 total, const QString &what)> progress;
    /// Set when the user cancels.
    std::shared_ptr<const std::atomic<bool>> stop;

    bool stopped() const { return stop && stop->load(std::memory_order_relaxed); }
    void report(qint64 done, qint64 total, const QString &what = {}) const
    {
        if (progress)
            progress(done, total, what);
    }
};

} // namespace rs
