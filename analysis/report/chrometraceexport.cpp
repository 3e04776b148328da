#include "chrometraceexport.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

namespace rs {

namespace {

// Flush threshold of the text buffer: large enough that the stream sees few writes, small enough
// that exporting never holds more than a sliver of the session in text form.
constexpr std::size_t kChunkBytes = 1u << 20;

// Length of the valid UTF-8 sequence starting at s[i], 0 when the bytes there are not one.
std::size_t utf8Length(std::string_view s, std::size_t i)
{
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    unsigned min = 0;
    if (b >= 0xC2 && b <= 0xDF)
        n = 2, min = 0x80;
    else if (b >= 0xE0 && b <= 0xEF)
        n = 3, min = 0x800;
    else if (b >= 0xF0 && b <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    if (i + n > s.size())
        return 0;
    unsigned cp = b & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        const auto c = static_cast<unsigned char>(s[i + k]);
        if ((c & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (c & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

class Writer
{
public:
    explicit Writer(std::ostream &out) : m_out(out) { m_buf.reserve(kChunkBytes + 4096); }
    std::string &buf() { return m_buf; }
    // Starts the next event of the traceEvents array.
    std::string &event()
    {
        m_buf += m_first ? "\n" : ",\n";
        m_first = false;
        maybeFlush();
        return m_buf;
    }
    void maybeFlush()
    {
        if (m_buf.size() >= kChunkBytes)
            flush();
    }
    bool flush()
    {
        m_out.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
        m_buf.clear();
        return static_cast<bool>(m_out);
    }
    bool ok() const { return static_cast<bool>(m_out); }

private:
    std::ostream &m_out;
    std::string m_buf;
    bool m_first = true;
};

std::string trackName(const Session &s, const Track &t)
{
    const std::string_view name = s.str(t.name);
    if (!name.empty())
        return std::string(name);
    switch (t.kind) {
    case TrackKind::GpuStream: return "stream " + std::to_string(t.tid);
    case TrackKind::CpuThread: return "thread " + std::to_string(t.tid);
    default: return trackKindName(t.kind);
    }
}

void appendInt(std::string &out, std::int64_t v) { out += std::to_string(v); }

void appendDouble(std::string &out, double v)
{
    char buf[32];
    // %.17g round-trips; JSON has no NaN or infinity, so those become null.
    if (v != v || v == std::numeric_limits<double>::infinity() || v == -std::numeric_limits<double>::infinity())
        out += "null";
    else {
        std::snprintf(buf, sizeof buf, "%.17g", v);
        out += buf;
    }
}

// The common head of every event: "ph", pid, tid.
void head(std::string &o, const char *ph, RankId pid, TrackId tid)
{
    o += "{\"ph\":\"";
    o += ph;
    o += "\",\"pid\":";
    appendInt(o, pid);
    o += ",\"tid\":";
    appendInt(o, tid);
}

void metadataEvent(Writer &w, const char *name, RankId pid, TrackId tid, const char *key, const std::string *text,
                   std::int64_t number)
{
    std::string &o = w.event();
    head(o, "M", pid, tid);
    o += ",\"name\":\"";
    o += name;
    o += "\",\"args\":{\"";
    o += key;
    o += "\":";
    if (text)
        ChromeTraceExport::appendJsonString(o, *text);
    else
        appendInt(o, number);
    o += "}}";
}

// Raw args are the importer's compact JSON; Chrome wants an object, so anything else is wrapped.
void appendArgs(std::string &o, std::string_view raw)
{
    if (raw.empty())
        return;
    o += ",\"args\":";
    if (raw.front() == '{') {
        o += raw;
    } else {
        o += "{\"value\":";
        o += raw;
        o += '}';
    }
}

} // namespace

void ChromeTraceExport::appendJsonString(std::string &out, std::string_view text)
{
    static const char *hex = "0123456789abcdef";
    out += '"';
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8Length(text, i);
            if (n == 0) {
                out += "\\ufffd";
                ++i;
            } else {
                out.append(text.substr(i, n));
                i += n;
            }
            continue;
        }
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20) {
                out += "\\u00";
                out += hex[c >> 4];
                out += hex[c & 0xF];
            } else {
                out += static_cast<char>(c);
            }
        }
        ++i;
    }
    out += '"';
}

void ChromeTraceExport::appendMicros(std::string &out, TimeNs ns)
{
    if (ns < 0) {
        out += '-';
        // Negating the minimum would overflow; no real trace gets there, so clamp.
        ns = ns == std::numeric_limits<TimeNs>::min() ? std::numeric_limits<TimeNs>::max() : -ns;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    out += buf;
}

bool ChromeTraceExport::write(const Session &session, const std::vector<RankAlignment> &alignment, std::ostream &out,
                              std::string *error)
{
    Found nothing;
    nothing.logRecords = false;
    return write(session, alignment, out, error, nothing);
}

bool ChromeTraceExport::write(const Session &session, const std::vector<RankAlignment> &alignment, std::ostream &out,
                              std::string *error, const Found &found)
{
    std::map<RankId, const RankAlignment *> byRank;
    for (const RankAlignment &a : alignment)
        byRank[a.rank] = &a;
    auto offsetOf = [&](RankId r) { const auto it = byRank.find(r); return it == byRank.end() ? 0 : it->second->offsetNs; };

    // The zero of the exported axis: the earliest aligned data, so timestamps stay small numbers
    // instead of 1.7e15 µs (which viewers show with lost precision). The absolute origin goes to metadata.
    TimeRange all;
    for (const Rank &k : session.ranks())
        if (!k.timeRange.isEmpty())
            all = all.united({k.timeRange.begin + offsetOf(k.id), k.timeRange.end + offsetOf(k.id)});
    const TimeNs origin = all.begin;

    Writer w(out);
    w.buf() += "{\"traceEvents\":[";

    for (const Rank &k : session.ranks()) {
        const RankId pid = k.id;
        const TimeNs shift = offsetOf(k.id) - origin;
        const std::string processName = "Rank " + std::to_string(k.id);
        metadataEvent(w, "process_name", pid, 0, "name", &processName, 0);
        metadataEvent(w, "process_sort_index", pid, 0, "sort_index", nullptr, k.id);
        for (std::size_t order = 0; order < k.tracks.size(); ++order) {
            const TrackId tid = k.tracks[order];
            const Track &t = session.tracks()[tid];
            const std::string name = trackName(session, t);
            metadataEvent(w, "thread_name", pid, tid, "name", &name, 0);
            metadataEvent(w, "thread_sort_index", pid, tid, "sort_index", nullptr, static_cast<std::int64_t>(order));

            // Spans are stored by depth level; Chrome nests "X" events by time whatever their order.
            // name, cat and ts: what spans and instants share.
            const auto nameCatTs = [&session, shift](std::string &o, StringId nameId, StringId catId, TimeNs at) {
                o += ",\"name\":";
                appendJsonString(o, session.str(nameId));
                o += ",\"cat\":";
                appendJsonString(o, session.str(catId));
                o += ",\"ts\":";
                appendMicros(o, at + shift);
            };
            for (const Span &s : t.spans) {
                std::string &o = w.event();
                head(o, "X", pid, tid);
                nameCatTs(o, s.name, s.category, s.start);
                o += ",\"dur\":";
                appendMicros(o, s.duration);
                appendArgs(o, session.args(tid, s.args));
                o += '}';
            }
            for (const Instant &in : t.instants) {
                std::string &o = w.event();
                head(o, "i", pid, tid);
                o += ",\"s\":\"t\"";
                nameCatTs(o, in.name, in.category, in.time);
                appendArgs(o, session.args(tid, in.args));
                o += '}';
            }
            if (isCounterKind(t.kind)) {
                std::string nameJson;
                appendJsonString(nameJson, name);
                for (std::size_t i = 0; i < t.counter.size(); ++i) {
                    std::string &o = w.event();
                    head(o, "C", pid, tid);
                    o += ",\"name\":";
                    o += nameJson;
                    o += ",\"ts\":";
                    appendMicros(o, t.counter.times[i] + shift);
                    o += ",\"args\":{\"value\":";
                    appendDouble(o, t.counter.values[i]);
                    o += "}}";
                }
            }
            if (!w.ok())
                break;
        }
    }

    // Flows go out as Kineto wrote them: an `s` where the first span starts and an `f` bound to
    // the enclosing slice ("bp": "e") where the second starts, so Perfetto draws the same arrows.
    const auto flowEnd = [&](std::string &o, const char *ph, const FlowEnd &e, std::size_t id, FlowKind kind) {
        const Track &t = session.tracks()[e.track];
        head(o, ph, t.rank, e.track);
        o += ",\"id\":";
        appendInt(o, static_cast<std::int64_t>(id));
        o += ",\"ts\":";
        appendMicros(o, t.spans[e.span].start + offsetOf(t.rank) - origin);
        o += ",\"cat\":\"";
        o += flowKindCategory(kind);
        o += "\",\"name\":\"";
        o += flowKindCategory(kind);
        o += '"';
        if (*ph == 'f')
            o += ",\"bp\":\"e\"";
        o += '}';
    };
    for (std::size_t i = 0; i < session.flows().size() && w.ok(); ++i) {
        const Flow &f = session.flows()[i];
        if (session.tracks()[f.from.track].rank < 0 || session.tracks()[f.to.track].rank < 0)
            continue; // a lane without a rank is not written, so neither is its arrow
        flowEnd(w.event(), "s", f.from, i + 1, f.kind);
        flowEnd(w.event(), "f", f.to, i + 1, f.kind);
    }

    // What RankScope found, and what its user noted: one process of their own, so a Perfetto user
    // sees the findings beside the ranks they are about.
    const auto mark = [&w, origin](std::int64_t pid, std::int64_t tid, const std::string &name, TimeNs at, TimeNs duration,
                                   const std::vector<std::pair<std::string, std::string>> &args) {
        std::string &o = w.event();
        head(o, duration > 0 ? "X" : "i", pid, tid);
        if (duration <= 0)
            o += ",\"s\":\"t\"";
        o += ",\"name\":";
        appendJsonString(o, name);
        o += ",\"cat\":\"rankscope\",\"ts\":";
        appendMicros(o, at - origin);
        if (duration > 0) {
            o += ",\"dur\":";
            appendMicros(o, duration);
        }
        o += ",\"args\":{";
        for (std::size_t i = 0; i < args.size(); ++i) {
            o += i ? "," : "";
            appendJsonString(o, args[i].first);
            o += ':';
            appendJsonString(o, args[i].second);
        }
        o += "}}";
    };
    const auto rankList = [](const std::vector<RankId> &ranks) {
        std::string s;
        for (RankId r : ranks)
            s += (s.empty() ? "" : ",") + std::to_string(r);
        return s;
    };
    constexpr std::int64_t kFindingsTid = 1, kAnnotationsTid = 2, kJobLogTid = 3;
    const std::int64_t rsPid = kRankScopePid;
    // Named once, on its first event: a trace with nothing found has no RankScope process.
    bool rsNamed = false;
    const auto rsProcess = [&] {
        if (rsNamed)
            return;
        rsNamed = true;
        const std::string rsName = "RankScope";
        metadataEvent(w, "process_name", rsPid, 0, "name", &rsName, 0);
        metadataEvent(w, "process_sort_index", rsPid, 0, "sort_index", nullptr, -1); // above the ranks
        for (const auto &[tid, label] : {std::pair<std::int64_t, std::string>{kFindingsTid, "Findings"},
                                         {kAnnotationsTid, "Annotations"}, {kJobLogTid, "Job log"}})
            metadataEvent(w, "thread_name", rsPid, tid, "name", &label, 0);
    };
    if (found.analysis)
        for (const Finding &f : found.analysis->findings) {
            if (!f.timeNs)
                continue;
            rsProcess();
            std::string evidence;
            for (const Evidence &e : f.evidence)
                evidence += (evidence.empty() ? "" : "\n") + e.text;
            mark(rsPid, kFindingsTid, f.title, *f.timeNs, f.endNs ? *f.endNs - *f.timeNs : 0,
                 {{"id", f.id}, {"severity", severityName(f.severity)}, {"ranks", rankList(f.ranks)}, {"fix", f.fix},
                  {"evidence", evidence}});
        }
    for (const Mark &m : found.annotations) {
        rsProcess();
        auto args = m.args;
        args.emplace_back("ranks", rankList(m.ranks));
        mark(rsPid, kAnnotationsTid, m.name, m.time, m.duration, args);
    }
    if (found.logRecords) {
        // A log lane per rank, after its tracks (thread ids beyond every track's).
        const auto logTid = static_cast<std::int64_t>(session.tracks().size()) + 1;
        std::set<RankId> named;
        for (const LogRecord &r : session.logs().records) {
            if (r.time == kNoTime)
                continue;
            const bool ofRank = r.rank >= 0 && session.rank(r.rank);
            const std::int64_t pid = ofRank ? r.rank : rsPid;
            if (!ofRank)
                rsProcess();
            if (ofRank && named.insert(r.rank).second) {
                const std::string label = "Log";
                metadataEvent(w, "thread_name", pid, logTid, "name", &label, 0);
            }
            const std::string where = r.source < session.sources().size()
                ? session.sources()[r.source].evidencePath() + ":" + std::to_string(r.line)
                : std::string();
            const std::string text(session.logs().text(r));
            mark(pid, ofRank ? logTid : kJobLogTid, text.substr(0, 120), r.time + (ofRank ? offsetOf(r.rank) : 0), 0,
                 {{"text", text}, {"level", r.level == LogLevel::Error ? "error" : r.level == LogLevel::Warning ? "warning" : "info"}, {"where", where}});
            if (!w.ok())
                break;
        }
    }
    w.buf() += "\n],\"displayTimeUnit\":\"ms\",\"metadata\":{\"tool\":\"RankScope\",\"schema\":\"rankscope.chrometrace/1\","
               "\"origin_ns\":";
    appendInt(w.buf(), origin);
    w.buf() += ",\"ranks\":[";
    bool firstRank = true;
    for (const Rank &k : session.ranks()) {
        const auto it = byRank.find(k.id);
        w.buf() += firstRank ? "" : ",";
        firstRank = false;
        w.buf() += "{\"rank\":";
        appendInt(w.buf(), k.id);
        w.buf() += ",\"offset_ns\":";
        appendInt(w.buf(), offsetOf(k.id));
        w.buf() += ",\"alignment\":\"";
        w.buf() += alignmentMethodName(it == byRank.end() ? AlignmentMethod::None : it->second->method);
        w.buf() += "\"}";
    }
    w.buf() += "],\"sources\":[";
    for (std::size_t i = 0; i < session.sources().size(); ++i) {
        w.buf() += i ? "," : "";
        appendJsonString(w.buf(), session.sources()[i].evidencePath());
    }
    w.buf() += "]}}\n";
    if (!w.flush() || !out.flush()) {
        if (error)
            *error = "could not write the Chrome trace (stream error)";
        return false;
    }
    return true;
}

} // namespace rs
