#pragma once
// The robust statistics the analysis leans on, in one place so every rule means the same thing by
// "median".

#include <algorithm>
#include <cstddef>
#include <vector>

namespace rs {

/// The median of `v`: the mean of the two middle values when the count is even; 0 when empty.
inline double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/// The upper median of `v`: its middle element, never an average, so integer nanoseconds stay
/// exact; T{} when empty. O(n) (nth_element).
template <typename T>
T upperMedian(std::vector<T> v)
{
    if (v.empty())
        return T{};
    const auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    return *mid;
}

} // namespace rs
