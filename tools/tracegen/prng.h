#pragma once
// Deterministic pseudo-random numbers for the generators. We carry our own xoshiro256** instead of
// <random> distributions because those are implementation-defined: the demo files must come out
// byte-identical from any standard library, or regenerating them would churn the repository.

#include <cstdint>

namespace rs::tracegen {

class Prng
{
public:
    explicit Prng(std::uint64_t seed)
    {
        // splitmix64 spreads a small seed over the whole state, as the xoshiro authors advise.
        for (auto &word : m_state) {
            seed += 0x9e3779b97f4a7c15ULL;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
            word = z ^ (z >> 31);
        }
    }

    std::uint64_t next()
    {
        const std::uint64_t result = rotl(m_state[1] * 5, 7) * 9;
        const std::uint64_t t = m_state[1] << 17;
        m_state[2] ^= m_state[0];
        m_state[3] ^= m_state[1];
        m_state[1] ^= m_state[2];
        m_state[0] ^= m_state[3];
        m_state[2] ^= t;
        m_state[3] = rotl(m_state[3], 45);
        return result;
    }

    /// Uniform in [0, 1), 53 bits of precision.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    /// Uniform integer in [lo, hi].
    std::int64_t range(std::int64_t lo, std::int64_t hi)
    {
        if (hi <= lo)
            return lo;
        const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
        return lo + static_cast<std::int64_t>(next() % span);
    }
    /// `value` scaled by a factor drawn from [1 - spread, 1 + spread].
    double jitter(double value, double spread) { return value * uniform(1.0 - spread, 1.0 + spread); }
    /// Same for a duration in ns; never below 1 ns, so spans keep a visible width.
    std::int64_t jitterNs(std::int64_t ns, double spread)
    {
        const auto v = static_cast<std::int64_t>(jitter(static_cast<double>(ns), spread));
        return v < 1 ? 1 : v;
    }
    /// An independent generator for a sub-stream (one per rank, one per resolver...), so adding
    /// draws in one place does not shift every other stream.
    Prng fork(std::uint64_t stream) { return Prng(next() ^ (stream * 0xd1342543de82ef95ULL)); }

private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    std::uint64_t m_state[4];
};

} // namespace rs::tracegen
