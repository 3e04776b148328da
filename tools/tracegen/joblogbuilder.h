#pragma once
// Collects the lines of a torchrun job log from everyone who writes to it (the launch script, the
// elastic agent, each worker's Python logging, PyTorch's C++ logging, NCCL) with the true time each
// was written, and writes them interleaved in time order, worker lines prefixed `[rankN]:` the
// way `torchrun --tee 3 --log-line-prefix-template '[rank${rank}]:'` does. Also knows the time
// stamp formats of those writers; all print local time, and the demo node runs in UTC.

#include "jobconfig.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace rs::tracegen {

class JobLogBuilder
{
public:
    /// For lines that no worker wrote (the agent, the launch script): no prefix.
    static constexpr RankId kAgent = -1;

    /// One line written at true time `t`.
    void line(TimeNs t, RankId rank, std::string text);
    /// Several lines written at once (a traceback, a table): they stay together.
    void block(TimeNs t, RankId rank, std::string_view text);

    /// Python logging's `[%(asctime)s]`: "[2024-08-14 03:12:56,553]".
    static std::string pythonStamp(TimeNs t);
    /// c10's glog-like prefix: "[E814 03:13:29.398123456 ProcessGroupNCCL.cpp:632] " (month not padded).
    static std::string c10Prefix(TimeNs t, char level, std::string_view fileLine);
    /// torchrun's logging prefix: "W0814 03:11:46.713000 140089633285952 torch/distributed/run.py:779] ".
    static std::string agentPrefix(TimeNs t, char level, std::int64_t thread, std::string_view fileLine);
    /// An NCCL debug line: "host:pid:tid [dev] NCCL INFO msg" (NCCL 2.21 prints no time).
    static std::string ncclInfo(std::string_view host, std::int64_t pid, std::int64_t tid, int device,
                                std::string_view message);

    /// Sorts by time (lines of equal time keep their order) and writes the file. Throws on I/O errors.
    void write(const std::filesystem::path &path) const;
    std::size_t lineCount() const { return m_lines.size(); }

private:
    struct Line {
        TimeNs time;
        RankId rank;
        std::string text;
    };
    std::vector<Line> m_lines;
};

} // namespace rs::tracegen
