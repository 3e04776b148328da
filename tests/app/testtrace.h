#pragma once
// Small, valid Kineto traces written by the tests themselves.

#include <QString>

#include <string>

namespace rs::test {

/// A PyTorch >= 2.4 style trace for `rank` of `world` with `steps` ProfilerStep spans of 10 ms,
/// one kernel per step and a [memory] event per step.
inline std::string kinetoTrace(int rank, int world, int steps, long long baseNs = 1700000000000000000LL)
{
    std::string ev;
    for (int s = 0; s < steps; ++s) {
        const long long t = 1000 + s * 10000; // µs, relative
        ev += "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#" + std::to_string(s)
            + "\",\"pid\":100,\"tid\":100,\"ts\":" + std::to_string(t) + ".000,\"dur\":9000.000},\n";
        ev += "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":100,\"tid\":100,\"ts\":"
            + std::to_string(t + 10) + ".500,\"dur\":100.250,\"args\":{\"External id\":" + std::to_string(s + 1)
            + "}},\n";
        ev += "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm\",\"pid\":0,\"tid\":7,\"ts\":" + std::to_string(t + 200)
            + ".000,\"dur\":50.000,\"args\":{\"stream\":7,\"device\":0}},\n";
        ev += "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":100,\"tid\":100,"
              "\"ts\":"
            + std::to_string(t + 20) + ".000,\"args\":{\"Addr\":1,\"Bytes\":1024,\"Total Allocated\":"
            + std::to_string((s + 1) * 1024) + ",\"Total Reserved\":2097152,\"Device Type\":1,\"Device Id\":0}},\n";
    }
    return " {\n  \"schemaVersion\": 1,\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " + std::to_string(rank)
        + ", \"world_size\": " + std::to_string(world) + "},\n  \"baseTimeNanoseconds\": " + std::to_string(baseNs)
        + ",\n  \"traceEvents\": [\n" + ev
        + "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Record Window End\",\"pid\":\"\",\"tid\":\"\",\"ts\":"
        + std::to_string(1000 + steps * 10000) + ".000}\n  ]\n}\n";
}

} // namespace rs::test
