#include "flightrecorderreader.h"

#include "flightrecorderlanes.h"

#include "sessionbuilder.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <set>

namespace rs {

namespace {

// Versions 2.0 … 2.10 were read in PyTorch's source; a minor bump only adds fields.
constexpr int kKnownMajor = 2;
constexpr int kKnownMinor = 10;

std::optional<std::int64_t> parseInt(std::string_view s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
        return std::nullopt;
    return v;
}

// Ints of any width and bools; JSON dumps print pg_status numbers as strings, so those count too.
std::optional<std::int64_t> asInt(const PickleValue &v)
{
    if (v.isInt())
        return v.type == PickleValue::Type::Bool ? std::int64_t(v.boolean) : v.integer;
    // A whole float within ±2^62 (found fuzzing: converting 6e19 to an int64 is undefined, NaN too).
    if (v.type == PickleValue::Type::Float && std::fabs(v.real) < 4.6e18 && v.real == std::trunc(v.real))
        return static_cast<std::int64_t>(v.real);
    if (v.type == PickleValue::Type::String)
        return parseInt(v.text);
    return std::nullopt;
}

std::string text(const PickleValue *v)
{
    if (!v)
        return {};
    if (v->type == PickleValue::Type::String)
        return v->text;
    if (v->isInt())
        return std::to_string(v->integer);
    return {};
}

// pg_config ranks: "[0, 1, 2, 3]" (ranks_str) or, from other writers, a real list.
std::optional<std::vector<RankId>> parseRanks(const PickleValue &v)
{
    std::vector<RankId> out;
    if (v.isList()) {
        for (const auto &x : v.items) {
            const auto r = x ? asInt(*x) : std::nullopt;
            if (!r || *r < 0 || *r > 1'000'000)
                return std::nullopt;
            out.push_back(static_cast<RankId>(*r));
        }
        return out;
    }
    if (v.type != PickleValue::Type::String)
        return std::nullopt;
    std::string_view s = v.text;
    while (!s.empty() && (s.front() == ' ' || s.front() == '['))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == ']'))
        s.remove_suffix(1);
    while (!s.empty()) {
        const auto comma = s.find(',');
        const auto r = parseInt(s.substr(0, comma));
        if (!r || *r < 0 || *r > 1'000'000)
            return std::nullopt;
        out.push_back(static_cast<RankId>(*r));
        if (comma == std::string_view::npos)
            break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

std::string entryLabel(std::int64_t index)
{
    return "entry " + std::to_string(index);
}

} // namespace

void FlightRecorderReader::read(const PickleValue &root, bool truncated)
{
    if (root.type != PickleValue::Type::Dict) {
        m_out.error("fr-not-dict", "the dump is not a dict (version, pg_config, pg_status, entries), so nothing is read",
                    -1, root.offset);
        return;
    }
    readVersion(root);
    readGroups(root.get("pg_config"));
    readStatus(root.get("pg_status"));
    readEntries(root.get("entries"), truncated);
    FlightRecorderLanes(m_out).build();
    decideRank();
}

void FlightRecorderReader::readVersion(const PickleValue &root)
{
    const PickleValue *v = root.get("version");
    const std::string version = text(v);
    if (!version.empty())
        m_out.source().metadata.emplace_back("version", version);
    if (const std::string lib = text(root.get("comm_lib_version")); !lib.empty())
        m_out.source().metadata.emplace_back("comm_lib_version", lib);
    const auto dot = version.find('.');
    const auto major = parseInt(std::string_view(version).substr(0, dot));
    const auto minor = dot == std::string::npos ? std::optional<std::int64_t>(0)
                                                : parseInt(std::string_view(version).substr(dot + 1));
    if (!major || !minor || *major != kKnownMajor) {
        m_out.warning("fr-unknown-version",
                      "flight-recorder dump version '" + version + "' is not a 2.x layout this reader knows; keys are read "
                          "where they are found",
                      -1, v ? v->offset : root.offset);
    } else if (*minor > kKnownMinor) {
        m_out.warning("fr-newer-version",
                      "flight-recorder dump version " + version + " is newer than 2." + std::to_string(kKnownMinor)
                          + "; fields added since are ignored",
                      -1, v->offset);
    }
}

void FlightRecorderReader::readGroups(const PickleValue *config)
{
    if (!config)
        return;
    if (config->type != PickleValue::Type::Dict) {
        m_out.warning("fr-bad-group", "pg_config is not a dict of process groups; groups are unknown", -1, config->offset);
        return;
    }
    for (const auto &[key, value] : config->entries) {
        FlightRecorderGroup g;
        g.pgId = text(key.get());
        if (!value || value->type != PickleValue::Type::Dict) {
            m_out.warning("fr-bad-group", "pg_config['" + g.pgId + "'] is not a dict (name, desc, ranks); skipped", -1,
                          value ? value->offset : -1);
            continue;
        }
        g.name = text(value->get("name"));
        if (g.name.empty())
            g.name = g.pgId;
        g.desc = text(value->get("desc"));
        if (const PickleValue *ranks = value->get("ranks")) {
            if (auto list = parseRanks(*ranks)) {
                g.ranks = std::move(*list);
            } else {
                m_out.warning("fr-bad-group",
                              "pg_config['" + g.pgId + "'] ranks '" + text(ranks)
                                  + "' is not a list of ranks; the group's members are unknown",
                              -1, ranks->offset);
            }
        }
        std::vector<RankId> sorted = g.ranks;
        std::sort(sorted.begin(), sorted.end());
        m_groupRanks[g.pgId] = sorted;
        if (g.desc == "default_pg" && !g.ranks.empty())
            m_out.source().worldSize = static_cast<std::int32_t>(g.ranks.size());
        m_out.flightRecorder().groups.push_back(std::move(g));
    }
}

void FlightRecorderReader::readStatus(const PickleValue *status)
{
    if (!status)
        return;
    if (status->type != PickleValue::Type::Dict) {
        m_out.warning("fr-bad-status", "pg_status is not a dict of process groups; their progress is unknown", -1,
                      status->offset);
        return;
    }
    for (const auto &[key, value] : status->entries) {
        FlightRecorderStatus st;
        st.pgId = text(key.get());
        if (!value || value->type != PickleValue::Type::Dict) {
            m_out.warning("fr-bad-status", "pg_status['" + st.pgId + "'] is not a dict of last collectives; skipped", -1,
                          value ? value->offset : -1);
            continue;
        }
        // An init-capture, not the binding itself: clang 14 cannot capture structured bindings.
        auto seq = [&, dict = value.get()](std::string_view k) -> std::int64_t {
            const PickleValue *v = dict->get(k);
            if (!v)
                return -1;
            if (auto i = asInt(*v))
                return *i;
            m_out.warning("fr-bad-status", "pg_status['" + st.pgId + "']." + std::string(k) + " is not a number", -1, v->offset);
            return -1;
        };
        st.lastEnqueued = seq("last_enqueued_collective");
        st.lastStarted = seq("last_started_collective");
        st.lastCompleted = seq("last_completed_collective");
        m_out.flightRecorder().status.push_back(std::move(st));
    }
}

void FlightRecorderReader::readEntries(const PickleValue *entries, bool truncated)
{
    if (!entries) {
        // dump_json leaves `entries` out when the ring buffer is empty; a pickle always has it.
        if (m_out.flightRecorder().groups.empty())
            m_out.warning("fr-no-entries", "the dump has neither entries nor process groups");
        return;
    }
    if (!entries->isList()) {
        m_out.warning("fr-bad-field", "entries is not a list; no collective is read", -1, entries->offset);
        return;
    }
    for (std::size_t i = 0; i < entries->items.size(); ++i) {
        const PickleValue *e = entries->items[i].get();
        const auto index = static_cast<std::int64_t>(i);
        if (!e || e->type != PickleValue::Type::Dict) {
            m_out.warning("fr-entry-not-dict", entryLabel(index) + " is not a dict; skipped", -1, e ? e->offset : -1);
            continue;
        }
        // Where the file was cut, the last entry was still being written: its keys are a guess.
        if (truncated && e->partial) {
            m_out.warning("fr-truncated-entry", entryLabel(index) + " was cut off by the end of the file; dropped", -1,
                          e->offset);
            continue;
        }
        FlightRecord r;
        if (readEntry(*e, index, r))
            m_out.flightRecorder().entries.push_back(std::move(r));
    }
    m_out.source().counts.collectives = static_cast<std::int64_t>(m_out.flightRecorder().entries.size());
}

bool FlightRecorderReader::readEntry(const PickleValue &e, std::int64_t index, FlightRecord &r)
{
    r.index = index;
    r.recordId = intField(e, "record_id", index, false).value_or(-1);
    if (const PickleValue *pg = e.get("pg_id"))
        r.pgId = text(pg);
    if (const PickleValue *pg = e.get("process_group")) {
        if (pg->isList() && !pg->items.empty()) {
            r.pgName = text(pg->items[0].get());
            if (pg->items.size() > 1)
                r.pgDesc = text(pg->items[1].get());
        } else {
            badField(e, "process_group", index, "a (name, desc) pair");
        }
    }
    if (r.pgId.empty())
        r.pgId = r.pgName;
    if (const auto seq = intField(e, "collective_seq_id", index, false)) {
        r.collectiveSeq = *seq;
    } else if (!e.get("collective_seq_id")) {
        m_out.warning("fr-entry-no-seq",
                      entryLabel(index) + " has no collective_seq_id; it cannot be matched with other ranks", -1, e.offset);
    }
    r.p2pSeq = intField(e, "p2p_seq_id", index, false).value_or(-1);
    r.opId = intField(e, "op_id", index, false).value_or(-1);
    if (const PickleValue *name = e.get("profiling_name")) {
        if (name->type == PickleValue::Type::String)
            r.profilingName = name->text;
        else
            badField(e, "profiling_name", index, "a string");
    }
    r.isP2p = intField(e, "is_p2p", index, false).value_or(0) != 0;
    sizesField(e, "input_sizes", index, r.inputSizes);
    sizesField(e, "output_sizes", index, r.outputSizes);
    dtypesField(e, "input_dtypes", index, r.inputDtypes);
    dtypesField(e, "output_dtypes", index, r.outputDtypes);
    r.created = timeField(e, "time_created_ns", index);
    r.started = timeField(e, "time_discovered_started_ns", index);
    r.completed = timeField(e, "time_discovered_completed_ns", index);
    if (r.created == kNoTime)
        m_out.warning("fr-entry-no-time", entryLabel(index) + " has no time_created_ns", -1, e.offset);
    const std::string_view state = e.stringOr("state");
    if (state == "scheduled") {
        r.state = FlightRecord::State::Scheduled;
    } else if (state == "started") {
        r.state = FlightRecord::State::Started;
    } else if (state == "completed") {
        r.state = FlightRecord::State::Completed;
    } else {
        // The writer derives the state from the discovery times, so they decide.
        r.state = r.completed != kNoTime ? FlightRecord::State::Completed
            : r.started != kNoTime       ? FlightRecord::State::Started
                                         : FlightRecord::State::Scheduled;
        const PickleValue *s = e.get("state");
        m_out.warning("fr-bad-state",
                      entryLabel(index) + " has state '" + std::string(state) + "' (expected scheduled, started or completed); "
                          "taken as " + flightStateName(r.state) + " from its time stamps",
                      -1, s ? s->offset : e.offset);
    }
    if (const PickleValue *d = e.get("duration_ms")) {
        if (d->type == PickleValue::Type::Float)
            r.durationMs = d->real;
        else if (const auto i = asInt(*d))
            r.durationMs = static_cast<double>(*i);
        else if (d->type != PickleValue::Type::None)
            badField(e, "duration_ms", index, "a number");
    }
    r.timeoutMs = intField(e, "timeout_ms", index, false).value_or(-1);
    r.retired = intField(e, "retired", index, false).value_or(0) != 0;
    r.stack = stack(e.get("frames"));
    return true;
}

std::optional<std::int64_t> FlightRecorderReader::intField(const PickleValue &e, std::string_view key, std::int64_t index,
                                                           bool required)
{
    const PickleValue *v = e.get(key);
    if (!v || v->type == PickleValue::Type::None) {
        if (required)
            badField(e, key, index, "an integer");
        return std::nullopt;
    }
    if (auto i = asInt(*v))
        return i;
    badField(e, key, index, "an integer");
    return std::nullopt;
}

// None (pickle) and 0 (JSON) both mean "not discovered yet".
TimeNs FlightRecorderReader::timeField(const PickleValue &e, std::string_view key, std::int64_t index)
{
    const auto t = intField(e, key, index, false);
    return t && *t > 0 ? *t : kNoTime;
}

void FlightRecorderReader::sizesField(const PickleValue &e, std::string_view key, std::int64_t index,
                                      std::vector<std::vector<std::int64_t>> &out)
{
    const PickleValue *v = e.get(key);
    if (!v)
        return;
    bool ok = v->isList();
    for (std::size_t i = 0; ok && i < v->items.size(); ++i) {
        const PickleValue *shape = v->items[i].get();
        ok = shape && shape->isList();
        std::vector<std::int64_t> dims;
        for (std::size_t d = 0; ok && d < shape->items.size(); ++d) {
            const auto n = shape->items[d] ? asInt(*shape->items[d]) : std::nullopt;
            ok = n.has_value();
            if (ok)
                dims.push_back(*n);
        }
        if (ok)
            out.push_back(std::move(dims));
    }
    if (!ok) {
        out.clear();
        badField(e, key, index, "a list of shapes (lists of integers)");
    }
}

void FlightRecorderReader::dtypesField(const PickleValue &e, std::string_view key, std::int64_t index,
                                       std::vector<std::string> &out)
{
    const PickleValue *v = e.get(key);
    if (!v)
        return;
    bool ok = v->isList();
    for (std::size_t i = 0; ok && i < v->items.size(); ++i) {
        ok = v->items[i] && v->items[i]->type == PickleValue::Type::String;
        if (ok)
            out.push_back(v->items[i]->text);
    }
    if (!ok) {
        out.clear();
        badField(e, key, index, "a list of dtype names");
    }
}

void FlightRecorderReader::badField(const PickleValue &e, std::string_view key, std::int64_t index, const char *expected)
{
    const PickleValue *v = e.get(key);
    m_out.warning("fr-bad-field", entryLabel(index) + " " + std::string(key) + " is not " + expected + "; left out", -1,
                  v ? v->offset : e.offset);
}

std::int32_t FlightRecorderReader::stack(const PickleValue *frames)
{
    if (!frames || !frames->isList() || frames->items.empty())
        return -1;
    std::vector<StackFrame> out;
    std::string key;
    for (const auto &f : frames->items) {
        if (!f || f->type != PickleValue::Type::Dict)
            continue;
        StackFrame fr{std::string(f->stringOr("filename")), std::string(f->stringOr("name")),
                      static_cast<std::int32_t>(f->intOr("line", 0))};
        key += fr.filename + '\n' + fr.name + '\n' + std::to_string(fr.line) + '\n';
        out.push_back(std::move(fr));
    }
    if (out.empty())
        return -1;
    // Every entry of one call site has its own list of the same frames: keep one stack per call site.
    if (auto it = m_stackIds.find(key); it != m_stackIds.end())
        return it->second;
    auto &stacks = m_out.flightRecorder().stacks;
    stacks.push_back(std::move(out));
    const auto id = static_cast<std::int32_t>(stacks.size() - 1);
    m_stackIds.emplace(std::move(key), id);
    return id;
}

void FlightRecorderReader::decideRank()
{
    // "nccl:send 0->1": group rank 0 sends to 1; "nccl:recv 1<-0": group rank 1 receives from 0.
    std::set<RankId> stated;
    for (const FlightRecord &r : m_out.flightRecorder().entries) {
        if (!r.isP2p)
            continue;
        const auto space = r.profilingName.find(' ');
        if (space == std::string::npos)
            continue;
        const std::string_view op = std::string_view(r.profilingName).substr(0, space);
        const std::string_view peers = std::string_view(r.profilingName).substr(space + 1);
        const auto arrow = peers.find(op.ends_with("send") ? "->" : "<-");
        if ((!op.ends_with("send") && !op.ends_with("recv")) || arrow == std::string_view::npos)
            continue;
        const auto local = parseInt(peers.substr(0, arrow));
        const auto members = m_groupRanks.find(r.pgName);
        if (!local || members == m_groupRanks.end() || *local < 0
            || static_cast<std::size_t>(*local) >= members->second.size())
            continue;
        stated.insert(members->second[static_cast<std::size_t>(*local)]);
    }
    const auto named = SessionBuilder::rankFromFileName(m_out.source().path);
    if (stated.size() == 1) {
        const RankId rank = *stated.begin();
        m_out.source().ranks = {rank};
        if (named && *named != rank)
            m_out.warning("fr-rank-conflict", "the file name says rank " + std::to_string(*named)
                                                  + " but its point-to-point entries were sent and received by rank "
                                                  + std::to_string(rank) + "; rank " + std::to_string(rank) + " is used");
    } else if (!named) {
        m_out.warning("fr-no-rank", "the dump does not state its rank and the file name has none (ProcessGroupNCCL names "
                                    "it nccl_trace_rank_<N>); a free rank is assigned: set it with --assign-rank");
    }
}

} // namespace rs
