#include "logparser.h"

#include "recordboundaries.h"

#include <QDateTime>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <regex>

namespace rs {

namespace {

bool contains(std::string_view s, std::string_view what)
{
    return s.find(what) != std::string_view::npos;
}

bool containsNoCase(std::string_view s, std::string_view what)
{
    auto it = std::search(s.begin(), s.end(), what.begin(), what.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    return it != s.end();
}

std::string_view trimLeft(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    return s;
}

std::string_view trim(std::string_view s)
{
    s = trimLeft(s);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

std::int64_t toInt(const std::string &s, int base = 10)
{
    std::int64_t v = -1;
    std::from_chars(s.data(), s.data() + s.size(), v, base);
    return v;
}

bool isRule(std::string_view s, char c)
{
    s = trim(s);
    return s.size() >= 40 && s.find_first_not_of(c) == std::string_view::npos;
}

// Flags any record can carry, whoever wrote it.
std::uint16_t contentFlags(std::string_view text)
{
    std::uint16_t f = 0;
    if (contains(text, "CUDA out of memory. Tried to allocate") || contains(text, "CUDA error: out of memory")
        || (contains(text, "Cuda failure") && contains(text, "out of memory")))
        f |= LogFlagOom;
    if (contains(text, "Watchdog caught collective operation timeout"))
        f |= LogFlagWatchdogTimeout;
    if (containsNoCase(text, "desync") || contains(text, "Detected mismatch between collectives"))
        f |= LogFlagDesync;
    if (contains(text, "find_unused_parameters") || containsNoCase(text, "unused parameters"))
        f |= LogFlagUnusedParameters;
    return f;
}

} // namespace

LogParser::LogParser(SourceBuilder &out, const ImportContext &ctx)
    : m_out(out), m_zone(ctx.timeZone), m_wrapper(&RecordBoundaries::startsRecord, ctx.timeZone), m_memory(out)
{
}

void LogParser::remember(RankId rank)
{
    if (rank >= 0)
        m_ranks.insert(rank);
}

std::size_t LogParser::addRecord(const Piece &p, std::string_view text, LogKind kind, LogLevel level, TimeNs time,
                                 std::uint16_t flags)
{
    LogRecord r;
    r.time = time;
    r.rank = p.rank;
    r.line = p.lineNo;
    r.kind = kind;
    r.level = level;
    r.flags = static_cast<std::uint16_t>(flags | contentFlags(text) | (p.interleaved ? LogFlagInterleaved : 0));
    r.text = m_out.logs().addText(text);
    if (kind != LogKind::Other)
        ++m_out.source().counts.logLines;
    m_out.logs().records.push_back(std::move(r));
    return m_out.logs().records.size() - 1;
}

void LogParser::learnWrappers(std::string_view head)
{
    m_wrapper.learn(head);
}

bool LogParser::scrub(std::string_view &line, std::int64_t lineNo)
{
    // NUL runs are what a writer cut off mid-block, or a preallocated file, leaves behind.
    const bool nul = line.find('\0') != std::string_view::npos;
    if (nul) {
        m_scrubbed.clear();
        for (char c : line)
            if (c != '\0')
                m_scrubbed += c;
        m_out.warning("nul-bytes", "NUL bytes in a text line were left out", lineNo);
        line = m_scrubbed;
        if (line.empty())
            return false;
    }
    // Bytes no text writer produces: C0 controls other than tab and ESC, and broken UTF-8.
    std::size_t junk = 0;
    for (std::size_t i = 0; i < line.size();) {
        const auto c = static_cast<unsigned char>(line[i]);
        if (c < 0x80) {
            junk += (c < 0x20 && c != '\t' && c != '\x1b' && c != '\r' && c != '\f') || c == 0x7f;
            ++i;
            continue;
        }
        const std::size_t n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
        bool ok = n > 0 && i + n <= line.size();
        for (std::size_t k = 1; ok && k < n; ++k)
            ok = (static_cast<unsigned char>(line[i + k]) & 0xc0) == 0x80;
        if (!ok) {
            ++junk;
            ++i;
        } else {
            i += n;
        }
    }
    if (line.size() >= 4 && junk * 4 > line.size()) {
        m_out.warning("binary-line", "a line of binary bytes in a text log was skipped", lineNo);
        return false;
    }
    return true;
}

void LogParser::feed(std::string_view line, std::int64_t lineNo)
{
    const PeeledLine w = m_wrapper.peel(line);
    if (w.implausibleRank)
        m_out.warning("rank-implausible",
                      "launcher tag '" + std::string(line.substr(0, std::min<std::size_t>(w.peeledBytes, 40)))
                          + "' names no rank (2^20 or more); the line's records are not credited to any rank",
                      lineNo);
    std::string_view text = w.text;
    if (!scrub(text, lineNo)) {
        flushWrapped();
        return;
    }
    if (m_wrapped.active) {
        // A hard wrap cuts inside a token; the rest comes on the next line(s), with the same
        // wrapper if the collector (not the terminal) split it.
        const bool sameRank = w.rank == kNoRank || w.rank == m_wrapped.rank;
        if (sameRank && m_wrapped.text.size() < (1u << 16)) {
            std::string sofar = m_wrapped.text;
            for (const Held &h : m_wrapped.held)
                sofar += h.text;
            if (RecordBoundaries::completes(sofar, text)) {
                m_out.warning("wrapped-line-joined",
                              m_wrapped.held.empty()
                                  ? "a record cut by a line wrap was joined with the next line"
                                  : "a record cut by line wraps was joined with the next " + std::to_string(m_wrapped.held.size() + 1) + " lines",
                              m_wrapped.lineNo);
                m_wrapped.text = std::move(sofar);
                m_wrapped.text.append(text);
                m_wrapped.held.clear();
                if (m_wrapped.time == kNoTime)
                    m_wrapped.time = w.time;
                if (!RecordBoundaries::looksCut(m_wrapped.text))
                    flushWrapped();
                return;
            }
            // A middle piece of a record wrapped over several lines: held until the record
            // completes, read as lines of their own if it never does.
            if (RecordBoundaries::mayContinue(sofar, text, static_cast<int>(m_wrapped.held.size()) + 1)) {
                m_wrapped.held.push_back({std::string(text), lineNo, w.rank, w.time});
                return;
            }
        }
        flushWrapped();
    }
    if (RecordBoundaries::looksCut(text)) {
        m_wrapped.active = true;
        m_wrapped.text.assign(text);
        m_wrapped.lineNo = lineNo;
        m_wrapped.rank = w.rank;
        m_wrapped.time = w.time;
        m_wrapped.held.clear();
        return;
    }
    logicalLine(text, lineNo, w.rank, w.time);
}

void LogParser::flushWrapped()
{
    if (!m_wrapped.active)
        return;
    m_wrapped.active = false;
    logicalLine(m_wrapped.text, m_wrapped.lineNo, m_wrapped.rank, m_wrapped.time);
    std::vector<Held> held;
    held.swap(m_wrapped.held);
    for (const Held &h : held)
        logicalLine(h.text, h.lineNo, h.rank, h.time);
}

void LogParser::logicalLine(std::string_view line, std::int64_t lineNo, RankId rank, TimeNs time)
{
    auto &logs = m_out.logs();
    const std::size_t records = logs.records.size(), timeouts = logs.timeouts.size(), comms = logs.comms.size(),
                      calls = logs.calls.size();
    Piece p;
    p.lineNo = lineNo;
    p.rank = rank;
    remember(rank);
    // A progress bar redraws itself after '\r'; a terminal shows only what came last, but a
    // record written between two redraws is still a record.
    if (line.find('\r') != std::string_view::npos) {
        std::vector<std::string_view> kept;
        for (std::size_t from = 0; from <= line.size();) {
            const auto cr = std::min(line.find('\r', from), line.size());
            const std::string_view seg = line.substr(from, cr - from);
            from = cr + 1;
            const bool last = cr >= line.size();
            if (seg.find_first_not_of(' ') != std::string_view::npos && (last || RecordBoundaries::startsRecord(seg)))
                kept.push_back(seg);
        }
        line = kept.empty() ? std::string_view() : kept.back();
        for (std::size_t i = 0; i + 1 < kept.size(); ++i)
            logicalLine(kept[i], lineNo, rank, time);
    }
    auto cuts = RecordBoundaries::splicePoints(line);
    // A header right after NCCL's own time stamp is the line's start, not a splice.
    if (auto stamp = logline::leadingStamp(line, m_zone))
        cuts.erase(std::remove_if(cuts.begin(), cuts.end(), [&](std::size_t c) { return c <= stamp->length; }), cuts.end());
    if (cuts.empty()) {
        p.text = line;
        piece(p);
    } else {
        std::size_t from = 0;
        for (std::size_t i = 0; i <= cuts.size(); ++i) {
            const std::size_t to = i < cuts.size() ? cuts[i] : line.size();
            Piece q = p;
            q.text = line.substr(from, to - from);
            q.interleaved = true;
            // A record glued on mid-line brings its own launcher tag.
            if (auto tag = LineWrapper::rankTag(q.text); tag && !tag->weak && from > 0) {
                q.rank = tag->rank;
                remember(q.rank);
                q.text.remove_prefix(tag->length);
            }
            piece(q);
            from = to;
        }
    }
    if (time == kNoTime)
        return;
    // A collector's stamp times whatever the record itself leaves untimed; the record's own
    // stamp, when it has one, was already read (or is resolved in finish()).
    for (std::size_t i = records; i < logs.records.size(); ++i)
        if (logs.records[i].time == kNoTime)
            logs.records[i].time = time;
    for (std::size_t i = timeouts; i < logs.timeouts.size(); ++i)
        if (logs.timeouts[i].time == kNoTime)
            logs.timeouts[i].time = time;
    for (std::size_t i = comms; i < logs.comms.size(); ++i)
        if (logs.comms[i].time == kNoTime)
            logs.comms[i].time = time;
    for (std::size_t i = calls; i < logs.calls.size(); ++i)
        if (logs.calls[i].time == kNoTime)
            logs.calls[i].time = time;
    if (m_refYear == 0)
        m_refYear = QDateTime::fromMSecsSinceEpoch(time / 1000000, QTimeZone::utc()).date().year();
}

void LogParser::piece(const Piece &p)
{
    std::string_view text = p.text;
    TimeNs time = kNoTime;
    if (auto stamp = logline::leadingStamp(text, m_zone)) {
        time = stamp->time;
        if (m_refYear == 0)
            m_refYear = std::stoi(std::string(text.substr(text[0] == '[' ? 1 : 0, 4)));
        text.remove_prefix(stamp->length);
    } else if (contains(text, "ime") || contains(text, "ate") || contains(text, "IME") || contains(text, "ATE")) {
        // "[after dataloaders are built] datetime: 2021-05-27 21:42:48": the line states when it was printed.
        if (auto t = logline::labelledStamp(text, m_zone)) {
            time = *t;
            if (m_refYear == 0)
                m_refYear = QDateTime::fromMSecsSinceEpoch(time / 1000000, QTimeZone::utc()).date().year();
        }
    }

    // torchrun's summary block is line-oriented and comes from the agent, not a rank.
    if (m_summary == Summary::Open || contains(text, "ChildFailedError:")) {
        m_perNodeLauncher = true;
        if (m_summary == Summary::None) {
            m_summary = Summary::Open;
            m_rootCause = false;
            m_summaryRules = 0;
            m_failure = -1;
            Piece job = p;
            job.rank = p.rank == kNoRank ? kJobLevel : p.rank;
            addRecord(job, trim(text), LogKind::Torchrun, LogLevel::Error, time, LogFlagChildFailed);
            return;
        }
        summaryLine(text, p.lineNo);
        Piece job = p;
        job.rank = kJobLevel;
        addRecord(job, text, LogKind::Other, LogLevel::Info, time, 0);
        return;
    }

    const std::size_t before = m_out.logs().records.size();
    if (nccl(p, time, before))
        return;

    // A bare quote or comment marker is an empty line of a pasted block: its wrapper had no text
    // after it to peel, so it arrives whole; for a table it is a blank line, not the table's end.
    const std::string_view bare = trim(text);
    m_memory.feed(bare == ">" || bare == "#" ? std::string_view() : text, p.lineNo, p.rank, time);

    const Classified c = classify(text);
    // Launchers and schedulers speak for the job; their lines are never part of a traceback.
    if (auto l = jobline::launcher(c.body, m_zone)) {
        m_inTraceback[p.rank] = false;
        launcherLine(p, *l, c, time);
        return;
    }

    bool &inTb = m_inTraceback[p.rank];
    if (contains(text, "Traceback (most recent call last):")) {
        inTb = true;
        addRecord(p, text, LogKind::Other, LogLevel::Info, time, 0);
        return;
    }
    if (inTb) {
        if (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '^' || text.front() == '~')) {
            addRecord(p, text, LogKind::Other, LogLevel::Info, time, 0);
            return;
        }
        inTb = false;
        static const std::regex kException(R"(^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Failure)\b:?)");
        const std::string s(text);
        if (std::regex_search(s, kException)) {
            addRecord(p, text, LogKind::Python, LogLevel::Error, time, 0);
            return;
        }
    }

    Piece owner = p;
    if (c.kind == LogKind::Torchrun && p.rank == kNoRank)
        owner.rank = kJobLevel;
    // ProcessGroupNCCL messages name their rank in a tag; it decides when no prefix did.
    if (c.kind == LogKind::PyTorch && p.rank == kNoRank)
        if (auto tag = jobline::pgTag(c.body)) {
            owner.rank = tag->rank;
            remember(owner.rank);
        }
    const std::size_t index = addClassified(owner, c, c.kind, c.level, time, 0);
    rankStatements(owner, c.body, index);
    if (auto r = StepMemory::parse(c.body)) {
        if (r->implausible > 0)
            m_out.warning("memory-value-implausible", "a per-step memory line gives a size of 2^50 bytes or more; it was not used",
                          p.lineNo);
        if (r->allocated >= 0 || r->peakAllocated >= 0 || r->reserved >= 0 || r->peakReserved >= 0) {
            m_out.logs().records[index].flags |= LogFlagStepMemory;
            m_stepMemory.add(index, owner.rank, *r);
        }
    }
    if (auto r = StepProgress::parse(c.body))
        m_stepProgress.add(index, *r);
    watchdog(owner, c.body, index);
}

namespace {

// `word` as a level field of a logging format: bracketed, between " - " or after "| " in the first
// 160 characters, or the line's first word ("WARNING: ...", "ERROR  | ...").
bool levelField(std::string_view text, std::string_view word)
{
    const std::string_view head = text.substr(0, 160);
    const std::string w(word);
    for (const std::string &form : {"[" + w + "]", "- " + w + " -", "| " + w + " ", "|" + w + "|"})
        if (head.find(form) != std::string_view::npos)
            return true;
    std::size_t i = 0;
    while (i < text.size() && (text[i] == ' ' || text[i] == '|' || text[i] == '\t'))
        ++i;
    const std::string_view first = text.substr(i);
    return first.starts_with(word)
        && (first.size() == word.size() || !std::isalnum(static_cast<unsigned char>(first[word.size()])));
}

// Python's warnings module: "/path/module.py:557: UserWarning: ..." (any ...Warning category).
bool pythonWarning(std::string_view text)
{
    const std::size_t py = text.find(".py:");
    if (py == std::string_view::npos || py > 400)
        return false;
    std::size_t i = py + 4;
    const std::size_t digits = i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        ++i;
    if (i == digits || text.substr(i, 2) != ": ")
        return false;
    i += 2;
    const std::size_t name = i;
    while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i])))
        ++i;
    return i > name && text.substr(name, i - name).ends_with("Warning") && text.substr(i, 1) == ":";
}

} // namespace

LogParser::Classified LogParser::classify(std::string_view text)
{
    Classified c;
    c.body = text;
    if (auto c10 = logline::c10Prefix(text)) {
        c.kind = LogKind::PyTorch;
        c.level = c10->level == 'E' ? LogLevel::Error : c10->level == 'W' ? LogLevel::Warning : LogLevel::Info;
        c.body = text.substr(c10->length);
        c.partial = *c10;
    } else if (auto old = logline::oldC10Prefix(text)) {
        c.kind = LogKind::PyTorch;
        c.level = old->first == 'E' ? LogLevel::Error : old->first == 'W' ? LogLevel::Warning : LogLevel::Info;
        c.body = text.substr(old->second);
    } else if (auto glog = logline::glogPrefix(text)) {
        c.kind = contains(text.substr(0, glog->length), "elastic") ? LogKind::Torchrun : LogKind::PyTorch;
        c.level = glog->level == 'E' ? LogLevel::Error : glog->level == 'W' ? LogLevel::Warning : LogLevel::Info;
        c.body = text.substr(glog->length);
        c.partial = *glog;
    } else {
        static const std::regex kPyLog(R"(^(CRITICAL|ERROR|WARNING|INFO|DEBUG):(torch[\w.]*):)");
        std::smatch m;
        const std::string s(text.substr(0, std::min<std::size_t>(text.size(), 200)));
        if (std::regex_search(s, m, kPyLog)) {
            c.kind = contains(m[2].str(), "elastic") ? LogKind::Torchrun : LogKind::PyTorch;
            const std::string lv = m[1].str();
            c.level = lv == "ERROR" || lv == "CRITICAL" ? LogLevel::Error : lv == "WARNING" ? LogLevel::Warning : LogLevel::Info;
        } else if (contentFlags(text) & (LogFlagUnusedParameters | LogFlagDesync | LogFlagWatchdogTimeout)) {
            c.kind = LogKind::PyTorch;
            c.level = contains(text, "Error") ? LogLevel::Error : LogLevel::Warning;
        } else if (pythonWarning(text)) {
            c.level = LogLevel::Warning;
        } else {
            // Logging modules state their level as a field near the start: "[WARNING] ...",
            // "... - ERROR - ...", "| WARNING | ...", or as the line's first word. The same word
            // inside the message ("no WARNING issued") is not a level.
            for (std::string_view w : {"ERROR", "CRITICAL", "FATAL"})
                if (levelField(text, w))
                    c.level = LogLevel::Error;
            if (c.level == LogLevel::Info)
                for (std::string_view w : {"WARNING", "WARN"})
                    if (levelField(text, w))
                        c.level = LogLevel::Warning;
        }
    }
    return c;
}

std::size_t LogParser::addClassified(const Piece &owner, const Classified &c, LogKind kind, LogLevel level, TimeNs time,
                                     std::uint16_t flags)
{
    if (c.partial)
        m_partial.emplace_back(m_out.logs().records.size(), *c.partial);
    return addRecord(owner, c.body, kind, level, time, flags);
}

bool LogParser::nccl(const Piece &p, TimeNs time, std::size_t recordIndex)
{
    std::string_view text = p.text;
    if (time != kNoTime) {
        // Already stripped in piece(); strip again here because p.text still holds it.
        if (auto stamp = logline::leadingStamp(text, m_zone))
            text.remove_prefix(stamp->length);
    }
    const auto h = logline::ncclHeader(text);
    if (!h)
        return false;
    const bool warn = h->level == 'W';
    const LogLevel level = warn ? LogLevel::Warning : LogLevel::Info;
    if (warn)
        ++m_out.source().counts.warnings;
    const std::string_view msg = h->level == 'V' ? text : h->message;
    addRecord(p, text, LogKind::Nccl, level, time, 0);
    // host:pid tells processes apart even where nothing names their rank.
    const std::int32_t proc = h->level == 'V' ? -1 : m_rankFacts.process(h->host, h->pid, p.lineNo);
    auto pending = [&](char what, std::size_t index) {
        if (p.rank == kNoRank && proc >= 0)
            m_pending.push_back({what, index, proc, h->dev});
    };
    pending('r', recordIndex);
    auto &logs = m_out.logs();

    if (msg.substr(0, 13) == "NCCL version " && m_out.source().metadataValue("nccl_version").empty()) {
        std::string_view v = msg.substr(13);
        v = v.substr(0, v.find(' '));
        m_out.source().metadata.emplace_back("nccl_version", "\"" + std::string(v) + "\"");
    }
    if (contains(msg, " - Init ") || contains(msg, " - Abort ")) {
        static const std::regex kInit(
            R"(comm (0x[0-9a-fA-F]+) rank (\d+) n[Rr]anks (\d+) cudaDev (\d+)(?: nvmlDev \d+)? busId ([0-9a-fA-Fx]+)(?: commId (0x[0-9a-fA-F]+))? - (Init|Abort) (START|COMPLETE))");
        std::smatch m;
        const std::string s(msg);
        if (std::regex_search(s, m, kInit)) {
            if (m[7].str() == "Abort") {
                logs.records[recordIndex].flags |= LogFlagNcclAbort;
            } else {
                NcclCommInfo c;
                c.rank = static_cast<RankId>(toInt(m[2].str()));
                c.nranks = static_cast<std::int32_t>(toInt(m[3].str()));
                c.cudaDev = static_cast<std::int32_t>(toInt(m[4].str()));
                std::string bus = m[5].str();
                if (bus.rfind("0x", 0) == 0)
                    bus = bus.substr(2);
                c.busId = toInt(bus, 16);
                c.commId = m[6].str();
                c.host = std::string(h->host);
                c.pid = h->pid;
                c.time = time;
                c.line = p.lineNo;
                c.complete = m[8].str() == "COMPLETE";
                logs.records[recordIndex].flags |= LogFlagNcclInit;
                // The process's largest communicator is its default group: its rank is the global one.
                // A line with no host:pid header (spliced into a version banner) names no process.
                if (proc >= 0)
                    m_rankFacts.comm(proc, c.cudaDev, c.rank, c.nranks);
                m_worldSize = std::max(m_worldSize, c.nranks);
                logs.comms.push_back(std::move(c));
                if (p.rank != kNoRank)
                    logs.comms.back().rank = p.rank;
                else if (proc >= 0)
                    m_pending.push_back({'c', logs.comms.size() - 1, proc, logs.comms.back().cudaDev});
            }
        }
    }
    if (contains(msg, " set by environment to ")) {
        const auto at = msg.find(" set by environment to ");
        NcclSetting st;
        st.name = std::string(trim(msg.substr(0, at)));
        std::string_view value = trim(msg.substr(at + 23));
        if (!value.empty() && value.back() == '.')
            value.remove_suffix(1);
        st.value = std::string(value);
        st.line = p.lineNo;
        st.rank = p.rank;
        logs.records[recordIndex].flags |= LogFlagNcclSetting;
        logs.settings.push_back(std::move(st));
        pending('s', logs.settings.size() - 1);
    }
    if (contains(msg, ": opCount ")) {
        static const std::regex kColl(
            R"(^(\w+): opCount ([0-9a-fA-F]+) sendbuff \S+ recvbuff \S+ count (\d+) datatype (\d+) op (\d+) root (-?\d+) comm (0x[0-9a-fA-F]+|\(nil\)))");
        std::smatch m;
        const std::string s(msg);
        if (std::regex_search(s, m, kColl)) {
            NcclCall c;
            c.op = m[1].str();
            c.opCount = static_cast<std::uint64_t>(toInt(m[2].str(), 16));
            c.count = toInt(m[3].str());
            c.datatype = static_cast<std::int32_t>(toInt(m[4].str()));
            c.redOp = static_cast<std::int32_t>(toInt(m[5].str()));
            c.comm = m[7].str();
            c.time = time;
            c.line = p.lineNo;
            c.rank = p.rank;
            logs.records[recordIndex].flags |= LogFlagNcclCollective;
            logs.calls.push_back(std::move(c));
            pending('n', logs.calls.size() - 1);
        }
    }
    if (contentFlags(msg) & LogFlagOom)
        m_memory.feed(msg, p.lineNo, p.rank, time); // counted as an OOM only if it is the allocator's sentence
    return true;
}

void LogParser::summaryLine(std::string_view text, std::int64_t lineNo)
{
    auto &failures = m_out.logs().failures;
    const std::string_view t = trim(text);
    if (isRule(t, '=')) {
        // Two rules frame the block; the second one closes it.
        if (++m_summaryRules >= 2)
            m_summary = Summary::None;
        return;
    }
    if (t.rfind("Root Cause", 0) == 0) {
        m_rootCause = true;
        return;
    }
    if (t.size() >= 4 && t.front() == '[' && t.substr(t.size() - 2) == "]:") {
        // "[i]:" numbers the entry; the "rank" key below names the rank.
        ChildFailure f;
        f.launcher = "torchrun";
        f.rootCause = m_rootCause;
        f.line = lineNo;
        failures.push_back(std::move(f));
        m_failure = static_cast<std::int64_t>(failures.size() - 1);
        return;
    }
    const auto colon = t.find(':');
    if (m_failure < 0 || colon == std::string_view::npos)
        return;
    ChildFailure &f = failures[std::size_t(m_failure)];
    const std::string key(trim(t.substr(0, colon)));
    const std::string value(trim(t.substr(colon + 1)));
    std::smatch m;
    if (key == "time") {
        f.when = value;
    } else if (key == "host") {
        f.host = value;
    } else if (key == "rank") {
        f.rank = static_cast<RankId>(toInt(value.substr(0, value.find(' '))));
        remember(f.rank);
        static const std::regex kLocal(R"(local_rank: (\d+))");
        if (std::regex_search(value, m, kLocal))
            f.localRank = static_cast<std::int32_t>(toInt(m[1].str()));
    } else if (key == "exitcode") {
        static const std::regex kExit(R"((-?\d+)(?: \(pid: (\d+)\))?)");
        if (std::regex_search(value, m, kExit)) {
            f.exitCode = static_cast<std::int32_t>(toInt(m[1].str()));
            if (m[2].matched)
                f.pid = toInt(m[2].str());
        }
    } else if (key == "traceback") {
        static const std::regex kSignal(R"(\((SIG\w+)\))");
        if (std::regex_search(value, m, kSignal))
            f.signal = m[1].str();
    }
}

void LogParser::finish()
{
    flushWrapped(); // the last line may have been held back as the first half of a wrap
    m_memory.finish();
    auto &logs = m_out.logs();
    resolveProcesses();
    if (m_refYear > 0) {
        for (const auto &[index, stamp] : m_partial)
            if (auto t = logline::resolve(stamp, m_refYear, m_zone))
                logs.records[index].time = *t;
    } else if (!m_partial.empty()) {
        m_out.warning("stamp-no-year", "c10/glog time stamps carry no year and the log has no full date to take it from; "
                      "those records stay untimed");
    }
    // Evidence read from a record is timed like it (c10/glog stamps resolve only now).
    for (const auto &[what, item, record] : m_evidenceTime) {
        const TimeNs t = logs.records[record].time;
        TimeNs *to = what == 't' ? &logs.timeouts[item].time
            : what == 'p'        ? &logs.progress[item].time
            : what == 'f'        ? &logs.failures[item].time
                                 : &logs.jobEvents[item].time;
        if (*to == kNoTime)
            *to = t;
    }
    resolveFailures();
    resolveMemoryOwners();
    // Progress lines time whole steps; per-step memory lines then only give the counters.
    const std::set<RankId> timedSteps = m_stepProgress.finish(m_out, m_ranks);
    m_stepMemory.finish(m_out, [this](RankId r) { return r >= 0 ? m_rankFacts.deviceOf(r) : -1; }, timedSteps);
    // In a log of several ranks, a line no rank claimed (the launcher's own output) is the job's.
    if (m_ranks.size() + logs.processes.size() > 1)
        for (LogRecord &r : logs.records)
            if (r.rank == kNoRank && r.process < 0)
                r.rank = kJobLevel;
    if (!m_ranks.empty()) {
        m_out.source().ranks.assign(m_ranks.begin(), m_ranks.end());
        m_out.source().rankOrigin = RankOrigin::Content;
    }
    if (m_worldSize > 0)
        m_out.source().worldSize = m_worldSize;
    m_out.source().hasClock = std::any_of(logs.records.begin(), logs.records.end(),
                                          [](const LogRecord &r) { return r.time != kNoTime; });
    if (m_summary == Summary::Open)
        m_out.warning("failure-summary-cut", "torchrun failure summary is cut off by the end of the input");
}

} // namespace rs
