#include "stepprogress.h"

#include "logline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

namespace rs {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool has(const std::string &s, std::string_view what)
{
    return s.find(what) != std::string::npos;
}

// Nanoseconds per unit; 0 when `unit` is not a unit of time.
double unitNs(std::string_view unit)
{
    static const std::pair<const char *, double> kUnits[] = {
        {"ns", 1.0},          {"us", 1e3},          {"\xc2\xb5s", 1e3},    {"ms", 1e6},      {"msec", 1e6},
        {"s", 1e9},           {"sec", 1e9},         {"secs", 1e9},         {"second", 1e9},  {"seconds", 1e9},
        {"min", 60e9},        {"mins", 60e9},       {"minute", 60e9},      {"minutes", 60e9}};
    const std::string u = lower(unit);
    for (const auto &[name, f] : kUnits)
        if (u == name)
            return f;
    return 0;
}

// The unit a label states for its value: "(ms)", "[s]", "time_ms", "time in seconds".
double labelUnit(const std::string &label)
{
    std::string word;
    double found = 0;
    for (std::size_t i = 0; i <= label.size(); ++i) {
        const char c = i < label.size() ? label[i] : ' ';
        if (std::isalpha(static_cast<unsigned char>(c))) {
            word += c;
            continue;
        }
        if (!word.empty() && word != "s") // a lone "s" in a label is a plural, not seconds
            if (const double f = unitNs(word); f > 0)
                found = f;
        if (word == "s" && i < label.size() && (label[i] == ')' || label[i] == ']'))
            found = 1e9;
        word.clear();
    }
    return found;
}

// Whether the words before a number name the time of one step. Cumulative and partial times
// (elapsed since start, ETA, data loading, forward only) are not.
bool perStepLabel(const std::string &label)
{
    for (std::string_view no : {"total", "eta", "remain", "since", "wall", "epoch", "data", "load", "forward", "backward",
                                "optim", "comm", "sample", "token", "throughput", "/s", "per sec", "per_sec"})
        if (has(label, no))
            return false;
    const bool per = has(label, "per iter") || has(label, "per step") || has(label, "/iter") || has(label, "/step")
        || has(label, "per batch");
    if (has(label, "elapsed") && !per)
        return false;
    if (per && (has(label, "time") || has(label, "elapsed") || has(label, "duration")))
        return true;
    for (std::string_view kind : {"step_time", "step time", "steptime", "iter_time", "iter time", "itertime", "iteration time",
                                  "batch_time", "batch time", "time_per_step", "time_per_iter"})
        if (has(label, kind))
            return true;
    // A bare "time" or "dt" in the step's own line: "iter 100: loss 4.2, time 123ms" (finish() drops
    // a chain of such values that only grows: that is time since the start).
    std::string words;
    for (char c : label)
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
            words += c;
        else if (!words.empty() && words.back() != ' ')
            words += ' ';
    while (!words.empty() && words.back() == ' ')
        words.pop_back();
    const auto lastSpace = words.rfind(' ');
    const std::string last = lastSpace == std::string::npos ? words : words.substr(lastSpace + 1);
    return last == "time" || last == "dt" || last == "duration";
}

} // namespace

std::optional<StepProgress::Reading> StepProgress::parse(std::string_view line)
{
    if (line.size() < 8 || line.size() > 4096)
        return std::nullopt;
    const std::string l = lower(line);
    if (!(has(l, "step") || has(l, "iter")) || !(has(l, "time") || has(l, "dt") || has(l, "duration")))
        return std::nullopt;
    const auto [step, total] = logline::stepNumber(line);
    if (step < 0)
        return std::nullopt;
    // Fields of a progress line are separated by '|', ',' or ';'; a label and its value share one.
    std::size_t from = 0;
    while (from < l.size()) {
        std::size_t to = l.find_first_of("|,;", from);
        if (to == std::string::npos)
            to = l.size();
        const std::string field = l.substr(from, to - from);
        from = to + 1;
        for (std::size_t i = 0; i < field.size(); ++i) {
            const bool starts = std::isdigit(static_cast<unsigned char>(field[i]))
                && (i == 0 || (!std::isalnum(static_cast<unsigned char>(field[i - 1])) && field[i - 1] != '.' && field[i - 1] != '_'));
            if (!starts)
                continue;
            std::size_t e = i;
            while (e < field.size() && (std::isdigit(static_cast<unsigned char>(field[e])) || field[e] == '.'))
                ++e;
            const std::string label = field.substr(0, i);
            std::size_t u = e;
            while (u < field.size() && field[u] == ' ')
                ++u;
            std::size_t ue = u;
            while (ue < field.size() && (std::isalpha(static_cast<unsigned char>(field[ue])) || field[ue] == '\xc2' || field[ue] == '\xb5'))
                ++ue;
            const bool rate = ue < field.size() && field[ue] == '/';
            double factor = ue > u ? unitNs(std::string_view(field).substr(u, ue - u)) : 0;
            if (factor == 0 && (ue == u || unitNs(std::string_view(field).substr(u, ue - u)) == 0))
                factor = labelUnit(label);
            if (factor > 0 && !rate && perStepLabel(label)) {
                const double v = std::strtod(field.substr(i, e - i).c_str(), nullptr);
                if (std::isfinite(v) && v > 0 && v * factor < 1e16) // under about four months per step
                    return Reading{step, total, static_cast<TimeNs>(std::llround(v * factor))};
            }
            i = e;
        }
    }
    return std::nullopt;
}

void StepProgress::add(std::size_t recordIndex, const Reading &reading)
{
    m_samples.push_back({recordIndex, reading});
}

std::set<RankId> StepProgress::finish(SourceBuilder &out, const std::set<RankId> &ranks)
{
    std::set<RankId> given;
    if (m_samples.empty())
        return given;
    const auto &records = out.logs().records;
    const bool clocked = std::any_of(records.begin(), records.end(), [](const LogRecord &r) { return r.time != kNoTime; });
    // One chain of steps per printer: a rank, or the job (lines without a rank).
    std::map<RankId, std::vector<const Sample *>> chains;
    for (const Sample &s : m_samples) {
        const RankId r = records[s.record].rank;
        chains[r >= 0 ? r : kJobLevel].push_back(&s);
    }
    bool warnedUntimed = false;
    for (const auto &[printer, samples] : chains) {
        // Per-step times go up and down; a value that only ever grows with the step is the time
        // since the start, which a bare "time" label can also mean.
        if (samples.size() >= 4) {
            bool growing = true;
            for (std::size_t i = 1; i < samples.size() && growing; ++i)
                growing = samples[i]->reading.step > samples[i - 1]->reading.step
                    && samples[i]->reading.durationNs > samples[i - 1]->reading.durationNs;
            if (growing && samples.back()->reading.durationNs > 2 * samples.front()->reading.durationNs) {
                out.warning("step-progress-cumulative",
                            "progress lines print a time that only grows with the step (time since the start, not per "
                            "step); no steps were made from them",
                            records[samples.front()->record].line);
                continue;
            }
        }
        struct Placed {
            const Sample *s;
            TimeRange range;
        };
        std::vector<Placed> placed;
        std::map<std::int64_t, bool> seen;
        TimeNs chainEnd = kNoTime;
        for (std::size_t i = 0; i < samples.size(); ++i) {
            const Sample &s = *samples[i];
            // Several processes printing the same iteration without a prefix: the first line stands.
            if (seen[s.reading.step])
                continue;
            seen[s.reading.step] = true;
            // An average over the k iterations since the previous line covers all k of them.
            std::int64_t gap = 1;
            if (!placed.empty() && s.reading.step > placed.back().s->reading.step)
                gap = s.reading.step - placed.back().s->reading.step;
            else if (placed.empty() && i + 1 < samples.size() && samples[i + 1]->reading.step > s.reading.step)
                gap = std::min<std::int64_t>(s.reading.step, samples[i + 1]->reading.step - s.reading.step);
            gap = std::clamp<std::int64_t>(gap, 1, 100000);
            const TimeNs dur = s.reading.durationNs * gap;
            const LogRecord &rec = records[s.record];
            TimeRange r;
            if (rec.time != kNoTime) {
                r = {rec.time - dur, rec.time};
            } else if (chainEnd != kNoTime) {
                r = {chainEnd, chainEnd + dur};
            } else {
                TimeNs anchor = kNoTime;
                for (std::size_t k = s.record; k-- > 0;)
                    if (records[k].time != kNoTime) {
                        anchor = records[k].time;
                        break;
                    }
                if (anchor == kNoTime && clocked) {
                    out.warning("step-progress-unplaced",
                                "a step's progress line has no time stamp and no timed line comes before it; the step is "
                                "left out",
                                rec.line);
                    continue;
                }
                if (anchor == kNoTime) {
                    anchor = 0;
                    if (!warnedUntimed) {
                        warnedUntimed = true;
                        out.warning("step-progress-untimed",
                                    "steps were read from progress lines in a log without time stamps: they are placed back "
                                    "to back from 0 by their printed durations, not on a wall clock",
                                    rec.line);
                    }
                }
                r = {anchor, anchor + dur};
            }
            chainEnd = r.end;
            placed.push_back({&s, r});
        }
        if (placed.empty())
            continue;
        std::vector<RankId> owners;
        if (printer != kJobLevel)
            owners.push_back(printer);
        else if (!ranks.empty())
            owners.assign(ranks.begin(), ranks.end());
        else
            owners.push_back(kNoRank); // the source's own rank, decided when frozen
        const bool jobWide = printer == kJobLevel && ranks.size() > 1;
        for (RankId owner : owners) {
            // pid/tid -2 keep this lane apart from any thread the log could name.
            const TrackId track = out.track(TrackKind::CpuThread, -2, -2, -1, owner);
            out.trackAt(track).name = out.intern(jobWide ? "training loop (log, job-wide)" : "training loop (log)");
            const StringId category = out.intern("step");
            for (const Placed &p : placed) {
                const Reading &rd = p.s->reading;
                const std::string name = "iteration " + std::to_string(rd.step)
                    + (rd.total > 0 ? "/" + std::to_string(rd.total) : std::string());
                char args[160];
                std::snprintf(args, sizeof args, R"j({"step":%lld,"total":%lld,"time per step (ms)":%.3f,"line":%lld})j",
                              static_cast<long long>(rd.step), static_cast<long long>(rd.total), double(rd.durationNs) / 1e6,
                              static_cast<long long>(records[p.s->record].line));
                Span span;
                span.start = p.range.begin;
                span.duration = std::max<TimeNs>(p.range.duration(), 1);
                span.name = out.intern(name);
                span.category = category;
                span.args = out.addArgs(args);
                span.flags = SpanFlagStep;
                out.addSpan(track, span);
                Step st;
                st.number = rd.step;
                st.range = {span.start, span.end()};
                st.track = track;
                st.fromLog = true;
                out.addStep(st);
            }
            given.insert(owner);
        }
        // The steps the file printed, once: a job-wide copy per rank is not another step.
        out.source().counts.steps += static_cast<std::int64_t>(placed.size());
        if (printer == kJobLevel)
            given.insert(kNoRank); // the unprefixed lines' steps are taken whoever owns them

    }
    return given;
}

} // namespace rs
