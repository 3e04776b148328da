#pragma once
// Turns the JSON of a profiler memory-timeline export into counter tracks as it streams by: it
// receives the values and brackets of the document in file order (from TimelineJsonReader) and
// keeps no document, only the running levels and the samples.
//
// Both shapes of the export (FORMATS.md §5.4):
//   * raw rows `[[time, action, bytes, category], ...]`: running sums per category and a total,
//     one sample per category whenever the time moves on. Rows with a negative time (tensors that
//     existed before profiling) are placed at the first real time: their bytes are held until the
//     first real row arrives. The profiler writes rows in time order, so that is the earliest time;
//     in a file that is not sorted it is the first one in file order.
//   * plain `[times, sizes]`: sizes[i] lists the bytes per category at times[i]. The shape is known
//     once the second element shows a list of lists, so the first element is kept until then (for
//     the plain shape it is the list of times, one number per sample the tracks get anyway).
// Values the model must not take are warnings naming the row, and the row is not used: a time
// that is not finite, or looks like an epoch stamp (past 1e14) outside 1990-2100; a byte count
// that is not finite or beyond 2^50 (plain sizes: also below 0). A category index that is not one
// (negative, beyond 255) counts as unknown.

#include "sourcebuilder.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rs {

class MemoryTimelineParser
{
public:
    /// One scalar of the document. Integers that fit an int64 stay exact (epoch ns do not fit a double).
    struct Value {
        enum class Kind : std::uint8_t { Int, Float, Null, Other };
        Kind kind = Kind::Other;
        std::int64_t i = 0;
        double d = 0;

        static Value integer(std::int64_t v) { return {Kind::Int, v, double(v)}; }
        static Value real(double v) { return {Kind::Float, 0, v}; }
        bool isNumber() const { return kind == Kind::Int || kind == Kind::Float; }
    };

    /// Nesting deeper than this stops the reading: no timeline needs more than three levels, and
    /// the reader keeps a byte per open level.
    static constexpr int kMaxDepth = 64;
    /// Plain sizes rows longer than this keep their first entries (no real category index comes close).
    static constexpr std::size_t kMaxCategories = 256;

    explicit MemoryTimelineParser(SourceBuilder &out);

    /// '[' (`array`) or '{' at byte `offset`; false stops the reading (an error was reported).
    bool open(bool array, std::int64_t offset);
    /// ']' or '}'.
    bool close();
    /// A number, null, boolean or string at byte `offset`.
    bool scalar(const Value &v, std::int64_t offset);
    /// Emits what is still pending (the last samples, a first element never classified) and sets
    /// the source's clock. Call once, also after an error: what was read before it is kept.
    void finish();

private:
    enum class Shape : std::uint8_t { Unknown, Pending, Raw, Plain };
    struct Row {
        std::vector<Value> values; // the first `keep` elements; nested lists and objects as Other
        std::size_t count = 0;      // elements in all
        std::size_t keep = 4;
        std::int64_t offset = -1;
        bool isArray = true;
        void start(std::int64_t at, std::size_t keepValues, bool array)
        {
            values.clear();
            count = 0;
            keep = keepValues;
            offset = at;
            isArray = array;
        }
        void add(const Value &v)
        {
            if (values.size() < keep)
                values.push_back(v);
            ++count;
        }
    };

    void element(std::int64_t offset, bool container);
    void decideRaw();
    void rawRow(const Row &row);
    void plainRow(const Row &row);
    void flush(TimeNs t);
    std::optional<TimeNs> time(const Value &v, std::size_t row, std::int64_t offset);
    TrackId track(std::size_t category);
    TrackId totalTrack();
    void implausible(std::size_t row, std::int64_t offset, const std::string &what, bool used = false);

    SourceBuilder &m_out;
    int m_depth = 0;
    Shape m_shape = Shape::Unknown;
    std::size_t m_elements = 0; // elements of the root list begun so far
    Row m_first;                // the root's first element, until the shape is known
    bool m_firstComplete = false;
    Row m_row;                  // the row being read
    std::size_t m_plainRows = 0;
    bool m_extraCategories = false;
    bool m_clock = false;
    bool m_finished = false;
    // Raw running levels.
    std::map<std::size_t, double> m_level;
    double m_total = 0;
    std::optional<TimeNs> m_pending;  // time of the rows summed since the last sample
    std::optional<TimeNs> m_firstTime; // the first real time, where earlier (negative-time) rows go
    bool m_preexisting = false;        // negative-time rows were summed before any real time
    std::map<std::size_t, TrackId> m_tracks;
    TrackId m_totalTrack = kNoTrack;
};

} // namespace rs
