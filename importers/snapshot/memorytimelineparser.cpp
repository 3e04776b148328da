#include "memorytimelineparser.h"

#include "plausible.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace rs {

namespace {

// Enough of the first element to hold the times of any real plain export; a longer first element
// (no export writes one) loses the rest rather than taking memory without bound.
constexpr std::size_t kMaxFirstValues = std::size_t(1) << 23;
constexpr std::size_t kUnknownCategory = 7;

std::string categoryName(std::size_t i)
{
    static const std::array<const char *, 8> kNames = {"parameter", "optimizer state", "input", "temporary",
                                                       "activation", "gradient", "autograd detail", "unknown"};
    return i < kNames.size() ? kNames[i] : "category " + std::to_string(i);
}

std::string text(const MemoryTimelineParser::Value &v)
{
    if (v.kind == MemoryTimelineParser::Value::Kind::Int)
        return std::to_string(v.i);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v.d);
    return buf;
}

} // namespace

MemoryTimelineParser::MemoryTimelineParser(SourceBuilder &out) : m_out(out) {}

bool MemoryTimelineParser::open(bool array, std::int64_t offset)
{
    // A file of a billion '[' must not take a byte per level.
    if (m_depth >= kMaxDepth) {
        m_out.error("json-too-deep", "lists nested deeper than " + std::to_string(kMaxDepth) + " levels; the rest of the file was not read",
                    -1, offset);
        return false;
    }
    if (m_depth == 0 && !array) {
        m_out.error("timeline-not-list", "memory timeline is not a JSON list", -1, offset);
        return false;
    }
    // What the new container is an element of decides what it means.
    if (m_depth == 1) {
        element(offset, array);
    } else if (m_depth == 2) {
        if (m_shape == Shape::Pending) {
            if (array)
                m_shape = Shape::Plain; // a list of lists: the sizes
            else
                decideRaw();
        }
        if (m_shape == Shape::Unknown)
            m_first.add(Value{}); // not a number
        else if (m_shape == Shape::Raw)
            m_row.add(Value{});
        else if (m_elements == 2)
            m_row.start(offset, kMaxCategories, array); // one list of sizes
    } else if (m_depth == 3 && m_shape == Shape::Plain && m_elements == 2) {
        m_row.add(Value{});
    }
    ++m_depth;
    return true;
}

bool MemoryTimelineParser::close()
{
    const int depth = m_depth--;
    if (depth == 1 && (m_shape == Shape::Unknown || m_shape == Shape::Pending))
        decideRaw();
    if (depth == 2) {
        m_firstComplete |= m_elements == 1;
        if (m_shape == Shape::Pending) // the second element is an empty list
            decideRaw();
        if (m_shape == Shape::Raw)
            rawRow(m_row);
    }
    if (depth == 3 && m_shape == Shape::Plain && m_elements == 2)
        plainRow(m_row);
    return true;
}

bool MemoryTimelineParser::scalar(const Value &v, std::int64_t offset)
{
    switch (m_depth) {
    case 0:
        m_out.error("timeline-not-list", "memory timeline is not a JSON list", -1, offset);
        return false;
    case 1:
        element(offset, false);
        if (m_shape == Shape::Raw)
            rawRow(m_row);
        return true;
    case 2:
        if (m_shape == Shape::Pending) // the second element starts with a number: rows
            decideRaw();
        if (m_shape == Shape::Unknown)
            m_first.add(v);
        else if (m_shape == Shape::Raw)
            m_row.add(v);
        else if (m_elements == 2) // a size list that is not a list
            plainRow(Row{{}, 0, 0, offset, false});
        return true;
    case 3:
        if (m_shape == Shape::Plain && m_elements == 2)
            m_row.add(v);
        return true;
    default:
        return true;
    }
}

// A new element of the root list: a list when `container`, else a scalar or an object.
void MemoryTimelineParser::element(std::int64_t offset, bool container)
{
    const std::size_t index = m_elements++;
    if (index == 0) {
        m_first.start(offset, container ? kMaxFirstValues : 0, container);
        m_firstComplete = !container;
        return;
    }
    if (m_shape == Shape::Unknown) {
        if (index == 1 && container) {
            m_shape = Shape::Pending; // its first element tells
            m_row.start(offset, 4, true);
            return;
        }
        decideRaw();
    }
    if (m_shape == Shape::Raw) {
        m_row.start(offset, container ? 4 : 0, container);
        return;
    }
    m_out.error("timeline-bad-row", "element " + std::to_string(index) + " follows the times and sizes lists; it was not read", -1, offset);
}

void MemoryTimelineParser::decideRaw()
{
    m_shape = Shape::Raw;
    if (m_firstComplete) // not when the file ends inside it
        rawRow(m_first);
    m_first = Row{}; // its memory, too
}

void MemoryTimelineParser::rawRow(const Row &row)
{
    const std::size_t index = &row == &m_first ? 0 : m_elements - 1;
    ++m_out.source().counts.traceEntries;
    if (!row.isArray || row.count < 3 || row.values.size() < 3 || !row.values[0].isNumber() || !row.values[2].isNumber()) {
        m_out.error("timeline-bad-row", "row " + std::to_string(index) + " is not [time, action, bytes, category]", -1, row.offset);
        return;
    }
    const double bytes = row.values[2].d;
    if (!std::isfinite(bytes) || std::fabs(bytes) >= double(plausible::kMaxBytes)) {
        implausible(index, row.offset, "the byte count " + text(row.values[2]) + " is not finite or beyond 1 PiB");
        return;
    }
    const Value &timeValue = row.values[0];
    TimeNs t = 0;
    if (timeValue.d < 0 && std::isfinite(timeValue.d)) {
        // A tensor that existed before profiling: it belongs at the first real time.
        if (!m_firstTime) {
            m_preexisting = true;
        } else {
            t = *m_firstTime;
        }
    } else if (const auto real = time(timeValue, index, row.offset)) {
        t = *real;
        if (!m_firstTime)
            m_firstTime = t;
    } else {
        return;
    }
    std::size_t category = kUnknownCategory;
    if (row.values.size() > 3 && row.values[3].kind == Value::Kind::Int) {
        if (row.values[3].i >= 0 && row.values[3].i < std::int64_t(kMaxCategories))
            category = std::size_t(row.values[3].i);
        else
            implausible(index, row.offset, "category " + text(row.values[3]) + " is not a category index", true);
    }
    if (m_firstTime) {
        // Samples are taken when time moves on, so rows at one instant make one sample.
        if (m_pending && *m_pending != t)
            flush(*m_pending);
        m_pending = t;
    }
    m_level[category] += bytes;
    m_total += bytes;
}

void MemoryTimelineParser::plainRow(const Row &row)
{
    const std::size_t index = m_plainRows++;
    if (index >= m_first.values.size())
        return; // more sizes than times: reported once at the end
    const Value &timeValue = m_first.values[index];
    if (!timeValue.isNumber() || !row.isArray) {
        m_out.error("timeline-bad-row", "row " + std::to_string(index) + " is not a time with a list of sizes", -1, row.offset);
        return;
    }
    const auto t = time(timeValue, index, row.offset);
    if (!t)
        return;
    for (const Value &v : row.values)
        if (v.isNumber() && !plausible::bytes(v.d)) {
            implausible(index, row.offset, "the size " + text(v) + " is not a byte count (negative, not finite or beyond 1 PiB)");
            return;
        }
    if (row.count > row.values.size() && !m_extraCategories) {
        m_extraCategories = true;
        implausible(index, row.offset, "more than " + std::to_string(kMaxCategories) + " categories; the rest were not read", true);
    }
    double sum = 0;
    for (std::size_t c = 0; c < row.values.size(); ++c) {
        const double v = row.values[c].isNumber() ? row.values[c].d : 0.0;
        sum += v;
        m_out.addCounterSample(track(c), *t, v);
    }
    m_out.addCounterSample(totalTrack(), *t, sum);
    ++m_out.source().counts.traceEntries;
}

void MemoryTimelineParser::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    if (m_shape == Shape::Unknown || m_shape == Shape::Pending)
        decideRaw(); // the file ended before the shape showed (one element, or cut short)
    if (m_shape == Shape::Raw) {
        if (m_pending)
            flush(*m_pending);
        else if (m_preexisting)
            flush(0); // nothing but pre-existing tensors: no time to place them at
    } else {
        if (m_first.count > m_first.values.size())
            m_out.warning("timeline-too-long", "more than " + std::to_string(m_first.values.size()) + " times; the rest were not read");
        if (m_plainRows != m_first.count)
            m_out.warning("timeline-length-mismatch", "times and sizes lists differ in length; the shorter one decides");
    }
    m_out.source().hasClock = m_clock;
}

void MemoryTimelineParser::flush(TimeNs t)
{
    for (const auto &[c, v] : m_level)
        m_out.addCounterSample(track(c), t, v);
    m_out.addCounterSample(totalTrack(), t, m_total);
}

// ns since the epoch for plausible epoch stamps (which set the clock); relative µs otherwise, as
// the HTML export uses them. Integers are kept exact: epoch nanoseconds do not fit a double.
std::optional<TimeNs> MemoryTimelineParser::time(const Value &v, std::size_t row, std::int64_t offset)
{
    const double t = v.d;
    const auto bad = [&] {
        implausible(row, offset, "the time " + text(v) + " is not finite, or an epoch stamp outside 1990-2100");
        return std::nullopt;
    };
    if (!std::isfinite(t) || t < -1e14)
        return bad();
    if (v.kind == Value::Kind::Int && v.i > 100000000000000000LL) {
        if (!plausible::epochNs(v.i))
            return bad();
        m_clock = true;
        return v.i;
    }
    const double ns = t > 1e17 ? t : t * 1000.0;
    if (t > 1e14) {
        if (!(ns >= double(plausible::kMinEpochNs) && ns < double(plausible::kMaxEpochNs)))
            return bad();
        m_clock = true;
    }
    return TimeNs(ns);
}

TrackId MemoryTimelineParser::track(std::size_t category)
{
    if (auto it = m_tracks.find(category); it != m_tracks.end())
        return it->second;
    const TrackId id = m_out.track(TrackKind::Counter, 0, std::int64_t(category) + 1);
    m_out.trackAt(id).name = m_out.intern("Memory timeline: " + categoryName(category));
    m_out.trackAt(id).sortIndex = int(category) + 1;
    m_tracks.emplace(category, id);
    return id;
}

TrackId MemoryTimelineParser::totalTrack()
{
    if (m_totalTrack == kNoTrack) {
        m_totalTrack = m_out.track(TrackKind::Counter, 0, 0);
        m_out.trackAt(m_totalTrack).name = m_out.intern("Memory timeline: total");
    }
    return m_totalTrack;
}

void MemoryTimelineParser::implausible(std::size_t row, std::int64_t offset, const std::string &what, bool used)
{
    m_out.warning("timeline-implausible", "row " + std::to_string(row) + ": " + what + (used ? "" : "; the row was not used"), -1, offset);
}

} // namespace rs
