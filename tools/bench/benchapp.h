#pragma once
// What the bench's probes that paint share: one offscreen QApplication per child process, and the
// microseconds of a steady-clock span.

#include <QApplication>

#include <chrono>

namespace rs::bench {

using BenchClock = std::chrono::steady_clock;

inline double micros(BenchClock::duration d)
{
    return std::chrono::duration<double, std::micro>(d).count();
}

/// Makes the QApplication (offscreen unless QT_QPA_PLATFORM says otherwise) on first use. It is
/// never destroyed: the child exits right after reporting, and a QApplication torn down among the
/// other statics at exit crashes in the style's cleanup.
inline void ensureApplication()
{
    if (QApplication::instance())
        return;
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "rankscope-bench";
    static char *argv[] = {name, nullptr};
    new QApplication(argc, argv);
}

} // namespace rs::bench
