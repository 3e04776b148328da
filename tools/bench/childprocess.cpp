#include "childprocess.h"

#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace rs::bench {

namespace {

void writeAll(int fd, const std::string &text)
{
    const char *p = text.data();
    std::size_t left = text.size();
    while (left > 0) {
        const ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; // the parent went away; nothing useful left to do
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

std::string readAll(int fd)
{
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

} // namespace

ChildResult ChildProcess::run(const std::vector<std::string> &args)
{
    ChildResult result;
    int fds[2];
    if (::pipe(fds) != 0) {
        result.error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    std::vector<std::string> full = args;
    full.push_back("--result-fd");
    full.push_back(std::to_string(fds[1]));
    std::vector<char *> argv;
    std::string self = "rankscope-bench";
    argv.push_back(self.data());
    for (std::string &a : full)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = std::string("fork: ") + std::strerror(errno);
        ::close(fds[0]);
        ::close(fds[1]);
        return result;
    }
    if (pid == 0) {
        ::close(fds[0]);
        // exec gives the measurement a clean address space: a forked copy of the parent would
        // start with the parent's resident pages already counted.
        ::execv("/proc/self/exe", argv.data());
        reportError(fds[1], std::string("exec: ") + std::strerror(errno));
        ::_exit(127);
    }
    ::close(fds[1]);
    const std::string text = readAll(fds[0]);
    ::close(fds[0]);
    int status = 0;
    struct rusage usage {};
    while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
    }
    result.maxRssBytes = static_cast<std::int64_t>(usage.ru_maxrss) * 1024; // Linux reports KiB

    std::istringstream in(text);
    std::string tag;
    in >> tag;
    if (tag == "ok") {
        in >> result.outcome.seconds >> result.outcome.cpuSeconds;
        std::int64_t v;
        while (in >> v)
            result.outcome.values.push_back(v);
        result.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (!result.ok)
            result.error = "the child exited with an error after reporting";
    } else if (tag == "error") {
        std::getline(in >> std::ws, result.error);
    } else if (WIFSIGNALED(status)) {
        result.error = std::string("the child was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
                       ::strsignal(WTERMSIG(status)) + ")";
    } else {
        result.error = "the child exited without a result (status " + std::to_string(WEXITSTATUS(status)) + ")";
    }
    return result;
}

void ChildProcess::report(int fd, const ProbeOutcome &outcome)
{
    std::ostringstream out;
    out.precision(9);
    out << "ok " << std::fixed << outcome.seconds << ' ' << outcome.cpuSeconds;
    for (const std::int64_t v : outcome.values)
        out << ' ' << v;
    out << '\n';
    writeAll(fd, out.str());
}

void ChildProcess::reportError(int fd, const std::string &message)
{
    writeAll(fd, "error " + message + "\n");
}

} // namespace rs::bench
