#pragma once
// What an import task gets besides its input: a cancel flag it must poll, and a progress callback
// fed with bytes consumed (throttled here, so importers may call it as often as they like).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace rs {

class ImportContext
{
public:
    /// Called with (bytes of the file consumed, file size), at most every `interval`.
    using ProgressFn = std::function<void(std::int64_t done, std::int64_t total)>;

    ImportContext() = default;
    ImportContext(const std::atomic<bool> *cancel, ProgressFn progress,
                  std::chrono::milliseconds interval = std::chrono::milliseconds(50))
        : m_cancel(cancel), m_progress(std::move(progress)), m_interval(interval) {}

    /// Time zone (IANA id such as "Europe/Berlin", or "UTC") for sources whose time stamps carry none
    /// (nvidia-smi's local times). Empty means the machine's local zone.
    std::string timeZone;

    /// The most decompressed bytes read from one file (InputStream::setLimit); 0: no limit.
    std::int64_t maxDecompressedBytes = 64LL << 30;

    /// True once the user asked to stop; importers return promptly (a partial result is fine).
    bool isCancelled() const { return m_cancel && m_cancel->load(std::memory_order_relaxed); }

    void reportProgress(std::int64_t done, std::int64_t total)
    {
        if (!m_progress)
            return;
        const auto now = std::chrono::steady_clock::now();
        if (done < total && now - m_last < m_interval)
            return;
        m_last = now;
        m_progress(done, total);
    }

private:
    const std::atomic<bool> *m_cancel = nullptr;
    ProgressFn m_progress;
    std::chrono::milliseconds m_interval{50};
    std::chrono::steady_clock::time_point m_last{};
};

} // namespace rs
