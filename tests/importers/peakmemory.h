#pragma once
// Peak resident memory of the test process, for bounds on what an import may take. The peak is a
// high-water mark, so a test resets it first (Linux: /proc/self/clear_refs); where that is refused
// the figure includes whatever ran before.

#include <sys/resource.h>

#include <cstdint>
#include <fstream>

namespace rs::test {

/// Under AddressSanitizer freed memory sits in a quarantine (256 MiB by default), every block
/// carries redzones and large buffers are mapped twice over, so resident memory says little about what the code keeps: bounds tighter than
/// that are checked in normal builds only.
/// Time bounds are multiplied by kSanitizerSlowdown for the same reason (Debug + instrumentation).
#if defined(__SANITIZE_ADDRESS__)
#define RANKSCOPE_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RANKSCOPE_TEST_ASAN 1
#endif
#endif
#ifdef RANKSCOPE_TEST_ASAN
inline constexpr std::int64_t kSanitizerSlackBytes = std::int64_t(1536) << 20;
inline constexpr int kSanitizerSlowdown = 20;
#else
inline constexpr std::int64_t kSanitizerSlackBytes = 0;
inline constexpr int kSanitizerSlowdown = 1;
#endif

/// Resets the process's peak RSS to its current RSS; false when the system does not allow it.
inline bool resetPeakRss()
{
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
    f.flush();
    return bool(f);
}

/// The peak resident memory of the process since it started or since resetPeakRss(), in bytes.
inline std::int64_t peakRssBytes()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return std::int64_t(ru.ru_maxrss) * 1024;
}

} // namespace rs::test
