#include "joblogscenario.h"

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace rs::tracegen {

namespace {

// "HH:MM:SS,mmm" of `ms` after 06:00 on the job's day.
std::string clock(std::int64_t ms)
{
    char out[96];
    std::snprintf(out, sizeof out, "2025-06-01 %02lld:%02lld:%02lld,%03lld", static_cast<long long>(6 + ms / 3600000),
                  static_cast<long long>(ms / 60000 % 60), static_cast<long long>(ms / 1000 % 60), static_cast<long long>(ms % 1000));
    return out;
}

} // namespace

JobLogScenario::Result JobLogScenario::write(const std::filesystem::path &directory, std::uint64_t targetBytes, int ranks)
{
    std::filesystem::create_directories(directory);
    Result r;
    r.file = directory / "job.log";
    r.failedRank = ranks / 2;
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> file(std::fopen(r.file.c_str(), "wb"), &std::fclose);
    std::FILE *f = file.get();
    if (!f)
        throw std::runtime_error("cannot write " + r.file.string());
    std::string buf;
    const auto line = [&](const std::string &text) {
        buf += text;
        buf += '\n';
        ++r.lines;
        if (buf.size() >= (1u << 20)) {
            if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size())
                throw std::runtime_error("cannot write " + r.file.string());
            r.bytes += buf.size();
            buf.clear();
        }
    };
    const auto prefix = [](int rank) { return "[rank" + std::to_string(rank) + "]:"; };
    const auto host = [](int rank) { return "gpu-node" + std::to_string(rank / 8) + ":" + std::to_string(4000 + rank) + ":" + std::to_string(4000 + rank); };
    for (int k = 0; k < ranks; ++k) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "%x000", 0x18 + 0x10 * (k % 8));
        line(prefix(k) + host(k) + " [" + std::to_string(k % 8) + "] NCCL INFO comm 0x5581" + std::to_string(k) + " rank "
             + std::to_string(k) + " nranks " + std::to_string(ranks) + " cudaDev " + std::to_string(k % 8) + " busId " + hex
             + " commId 0x6b1f2c9e44a0d1 - Init COMPLETE");
    }
    std::int64_t step = 0, ms = 0;
    while (r.bytes + buf.size() < targetBytes) {
        ++step;
        ms += 850;
        for (int k = 0; k < ranks; ++k) {
            char text[256];
            std::snprintf(text, sizeof text,
                          "%s - INFO - train.py:214 - step %lld | loss %.4f | lr %.3e | grad_norm %.3f | tokens/s %d | mem 61.2 GiB",
                          clock(ms + k).c_str(), static_cast<long long>(step), 2.0 + 1.0 / double(step), 3e-4, 0.9 + 0.001 * double(k),
                          118000 + k * 7);
            line(prefix(k) + text);
            if (step % 50 == 0)
                line(prefix(k) + host(k) + " [" + std::to_string(k % 8) + "] NCCL INFO Channel 0" + std::to_string(step % 8) + "/0 : "
                     + std::to_string(k) + "[" + std::to_string(k % 8) + "] -> " + std::to_string((k + 1) % ranks) + "["
                     + std::to_string((k + 1) % 8) + "] via P2P/CUMEM/read");
        }
    }
    const std::string p = prefix(r.failedRank);
    line(p + "Traceback (most recent call last):");
    line(p + "  File \"/workspace/train.py\", line 231, in <module>");
    line(p + "    main()");
    line(p + "  File \"/workspace/train.py\", line 214, in main");
    line(p + "    loss.backward()");
    line(p + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU " + std::to_string(r.failedRank % 8)
         + " has a total capacity of 79.11 GiB of which 2.19 GiB is free. Process " + std::to_string(4000 + r.failedRank)
         + " has 76.92 GiB memory in use. Of the allocated memory 70.31 GiB is allocated by PyTorch, and 5.88 GiB is reserved "
           "by PyTorch but unallocated. If reserved but unallocated memory is large try setting "
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.");
    line("E0601 " + clock(ms + 5000).substr(11, 8) + ".000000 3999 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: "
         + std::to_string(r.failedRank % 8) + " (pid: " + std::to_string(4000 + r.failedRank) + ") of binary: /usr/bin/python3");
    line("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ");
    line("============================================================");
    line("train.py FAILED");
    line("------------------------------------------------------------");
    line("Failures:");
    line("  <NO_OTHER_FAILURES>");
    line("------------------------------------------------------------");
    line("Root Cause (first observed failure):");
    line("[0]:");
    line("  time      : 2025-06-01_" + clock(ms + 5000).substr(11, 8));
    line("  host      : gpu-node" + std::to_string(r.failedRank / 8));
    line("  rank      : " + std::to_string(r.failedRank) + " (local_rank: " + std::to_string(r.failedRank % 8) + ")");
    line("  exitcode  : 1 (pid: " + std::to_string(4000 + r.failedRank) + ")");
    line("  error_file: <N/A>");
    line("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html");
    line("============================================================");
    if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size() || std::fclose(file.release()) != 0)
        throw std::runtime_error("cannot write " + r.file.string());
    r.bytes += buf.size();
    return r;
}

} // namespace rs::tracegen
