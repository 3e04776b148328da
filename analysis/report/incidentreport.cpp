#include "incidentreport.h"

#include "incidentstory.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QTimeZone>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace rs {

namespace {

bool isWordChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80;
}

std::string utc(TimeNs t)
{
    const auto dt = QDateTime::fromMSecsSinceEpoch(t / 1000000, QTimeZone::utc());
    return dt.toString(QStringLiteral("yyyy-MM-dd HH:mm:ss.zzz 'UTC'")).toStdString();
}

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string duration(TimeNs ns)
{
    const double a = std::abs(static_cast<double>(ns));
    if (a >= 1e9)
        return fixed(static_cast<double>(ns) / 1e9, 3) + " s";
    if (a >= 1e6)
        return fixed(static_cast<double>(ns) / 1e6, 3) + " ms";
    return fixed(static_cast<double>(ns) / 1e3, 3) + " us";
}

// Relative to the session start, with its sign, so a reader sees order at a glance.
std::string relative(TimeNs t, TimeNs origin)
{
    return (t >= origin ? "+" : "") + duration(t - origin);
}

// A clock offset with its sign: "+2.000 ms", "-1.500 s", or "0" when the clock was kept.
std::string offset(TimeNs ns)
{
    return ns == 0 ? std::string("0") : (ns > 0 ? "+" : "") + duration(ns);
}

std::string gib(const std::optional<std::int64_t> &b)
{
    return b ? fixed(static_cast<double>(*b) / double(1LL << 30), 2) : std::string("–");
}

template <typename T>
std::string num(const std::optional<T> &v)
{
    return v ? std::to_string(*v) : std::string("–");
}

std::string rankList(const std::vector<RankId> &ranks)
{
    if (ranks.empty())
        return "–";
    std::string s;
    for (RankId r : ranks)
        s += (s.empty() ? "" : ", ") + (r == kJobLevel ? std::string("job") : std::to_string(r));
    return s;
}

const RankAlignment *alignmentOf(const AnalysisResult &r, RankId rank)
{
    for (const RankAlignment &a : r.alignment)
        if (a.rank == rank)
            return &a;
    return nullptr;
}

// The earliest data on the aligned axis: the zero of every relative time in the report.
TimeNs alignedStart(const Session &s, const AnalysisResult &r, TimeNs *end)
{
    TimeRange all;
    for (const Rank &k : s.ranks())
        if (!k.timeRange.isEmpty()) {
            const TimeNs off = r.offsetOf(k.id);
            all = all.united({k.timeRange.begin + off, k.timeRange.end + off});
        }
    *end = all.end;
    return all.begin;
}

void summary(std::string &md, const Session &s, const AnalysisResult &r, const IncidentReport::Options &o, TimeNs t0,
             TimeNs t1)
{
    std::vector<RankId> ranks;
    for (const Rank &k : s.ranks())
        ranks.push_back(k.id);
    md += std::to_string(ranks.size()) + (ranks.size() == 1 ? " rank" : " ranks") + " (" + rankList(ranks) + ") read from "
        + std::to_string(s.sources().size()) + (s.sources().size() == 1 ? " input file" : " input files");
    if (t1 > t0)
        md += ", spanning " + duration(t1 - t0) + " from " + utc(t0) + " to " + utc(t1) + " (aligned clock)";
    md += ". ";
    if (o.range)
        md += "The images show " + relative(o.range->begin, t0) + " to " + relative(o.range->end, t0) + ". ";
    md += r.findings.empty() ? std::string("No findings.")
                             : std::to_string(r.findings.size()) + (r.findings.size() == 1 ? " finding in all." : " findings in all.");
    md += "\n\n";
}

// The incident as one story, the report's first paragraph: its first sentence (what happened to
// whom) in bold, then why, what followed and the fix.
void story(std::string &md, const IncidentSummary &s)
{
    const std::string first = s.firstSentence();
    if (first.empty())
        return;
    md += "**" + IncidentReport::escape(first) + ".**";
    if (first.size() + 1 < s.headline.size())
        md += " " + IncidentReport::escape(std::string_view(s.headline).substr(first.size() + 2));
    md += "\n\n";
}

void findings(std::string &md, const AnalysisResult &r, const IncidentSummary &story, TimeNs t0)
{
    md += "## Findings\n\n";
    if (r.findings.empty()) {
        md += "No findings.\n\n";
        return;
    }
    // Numbered in reading order, like the viewer's badges and findings panel ("### 3." is ③).
    const std::vector<int> order = findingOrder(r);
    std::vector<int> number(r.findings.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        number[static_cast<std::size_t>(order[k])] = static_cast<int>(k) + 1;
    auto numberOf = [&number](int index) { return std::to_string(number[static_cast<std::size_t>(index)]); };
    int n = 0;
    for (const int index : order) {
        const Finding *f = &r.findings[static_cast<std::size_t>(index)];
        const FindingStory role = story.roleOf(index);
        md += "### " + std::to_string(++n) + ". " + IncidentReport::escape(f->title) + "\n\n";
        md += "- Severity: " + std::string(severityName(f->severity)) + " (" + IncidentReport::codeSpan(f->id) + ")\n";
        md += "- Ranks: " + rankList(f->ranks) + "\n";
        if (role.role == StoryRole::Consequence && role.relatedTo >= 0)
            md += "- Consequence of: finding " + numberOf(role.relatedTo) + "\n";
        else if (role.role == StoryRole::Contributing && role.relatedTo >= 0)
            md += "- Led to: finding " + numberOf(role.relatedTo) + "\n";
        if (f->timeNs)
            md += "- Time: " + relative(*f->timeNs, t0) + " (" + utc(*f->timeNs) + ")"
                + (f->endNs ? " to " + relative(*f->endNs, t0) : std::string()) + "\n";
        md += "\n";
        if (!f->evidence.empty()) {
            md += "Evidence:\n\n";
            for (const Evidence &e : f->evidence)
                md += "- " + IncidentReport::codeSpan(e.text) + "\n";
            md += "\n";
        }
        // A consequence goes away with its cause: the cause's fix is the one to apply.
        const int fixFrom = role.role == StoryRole::Consequence && role.fixFrom >= 0 ? role.fixFrom : index;
        const Finding &fixer = r.findings[static_cast<std::size_t>(fixFrom)];
        if (fixFrom != index && !fixer.fix.empty())
            md += "**Fix (of finding " + numberOf(fixFrom) + (fixFrom == role.relatedTo ? ", the cause" : ", behind the cause")
                + "):** " + IncidentReport::escape(fixer.fix) + "\n\n";
        else if (!f->fix.empty())
            md += "**Fix:** " + IncidentReport::escape(f->fix) + "\n\n";
    }
}

// What the people working the incident wrote on the timeline, right after what the analysis found.
void notesSection(std::string &md, const std::vector<IncidentReport::Note> &notes, TimeNs t0)
{
    if (notes.empty())
        return;
    std::vector<const IncidentReport::Note *> sorted;
    for (const IncidentReport::Note &n : notes)
        sorted.push_back(&n);
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto *a, const auto *b) { return a->time < b->time; });
    md += "## Notes\n\n";
    for (const IncidentReport::Note *n : sorted) {
        const std::string where = n->rank == kNoRank ? std::string("Job") : "Rank " + std::to_string(n->rank);
        std::string when = relative(n->time, t0) + " (" + utc(n->time) + ")";
        if (n->kind == "range")
            when = relative(n->time, t0) + " to " + relative(n->endTime, t0) + " (" + utc(n->time) + ")";
        else if (n->kind == "arrow")
            when += " → " + (n->endRank == kNoRank ? std::string("job") : "rank " + std::to_string(n->endRank)) + " at "
                + relative(n->endTime, t0);
        const std::string text = n->text.empty() ? std::string("(no text)") : IncidentReport::escape(n->text);
        md += "- **" + where + "**, " + when + ": " + text + "\n";
    }
    md += "\n";
}

void metricsTable(std::string &md, const AnalysisResult &r)
{
    md += "## Per-rank metrics\n\n";
    if (r.metrics.empty()) {
        md += "No ranks.\n\n";
        return;
    }
    // A divergent cell carries ⚠ and a footnote with the reason. Footnotes are numbered as the
    // cells reference them: Markdown drops a footnote nothing points to, so divergences of metrics
    // without a column (input elements, lateness) are listed below the table instead.
    std::map<std::pair<RankId, std::string>, const Divergence *> divergent;
    for (const Divergence &d : r.divergent)
        divergent.emplace(std::pair(d.rank, d.metric), &d);
    std::vector<const Divergence *> noteText;
    auto cell = [&](RankId rank, const char *metric, std::string text) {
        const auto it = divergent.find({rank, metric});
        if (it == divergent.end())
            return text;
        noteText.push_back(it->second);
        divergent.erase(it);
        return text + " ⚠[^d" + std::to_string(noteText.size()) + "]";
    };
    md += "| Rank | Clock offset | Peak allocated (GiB) | Peak reserved (GiB) | GPU used peak (GiB) | Steps | Median step "
          "| Micro-batches | Collectives | OOM |\n";
    md += "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    for (const RankMetrics &m : r.metrics) {
        const RankAlignment *a = alignmentOf(r, m.rank);
        // Cells are computed one statement each: operands of + are unsequenced, and the footnote
        // numbers must follow the column order.
        // A peak read from anything but a trace names its evidence (a memory_summary's peak spans the
        // whole process, an OOM message's is the moment of the failure).
        auto from = [](const std::optional<std::int64_t> &v, MemorySource src) {
            return v && src != MemorySource::Trace && memorySourceName(src) ? gib(v) + " (" + memorySourceName(src) + ")" : gib(v);
        };
        const std::string allocated = cell(m.rank, "peak_allocated_bytes", from(m.peakAllocatedBytes, m.peakSource));
        const std::string reserved = cell(m.rank, "peak_reserved_bytes", from(m.peakReservedBytes, m.peakReservedSource));
        const std::string used = cell(m.rank, "gpu_used_peak_bytes", gib(m.gpuUsedPeakBytes));
        const std::string steps = cell(m.rank, "steps", num(m.steps));
        const std::string median =
            cell(m.rank, "step_time_median_ns", m.stepTimeMedianNs ? duration(*m.stepTimeMedianNs) : "–");
        const std::string batches = cell(m.rank, "micro_batches", num(m.microBatches));
        const std::string collectives = cell(m.rank, "collectives", num(m.collectives));
        md += "| " + std::to_string(m.rank) + " | " + offset(a ? a->offsetNs : 0) + " ("
            + alignmentMethodName(a ? a->method : AlignmentMethod::None) + ") | " + allocated + " | " + reserved + " | "
            + used + " | " + steps + " | " + median + " | " + batches + " | " + collectives + " | "
            + (m.oomCount > 0 ? "yes (" + std::to_string(m.oomCount) + ")" : std::string("no")) + " |\n";
    }
    md += "\n";
    for (std::size_t i = 0; i < noteText.size(); ++i)
        md += "[^d" + std::to_string(i + 1) + "]: " + IncidentReport::escape(noteText[i]->reason) + "\n";
    if (!noteText.empty())
        md += "\n";
    // What is left are divergences of metrics the table has no column for; keep the analysis order.
    bool first = true;
    for (const Divergence &d : r.divergent)
        if (divergent.count({d.rank, d.metric})) {
            md += first ? "Other divergent metrics:\n\n" : "";
            first = false;
            md += "- ⚠ " + IncidentReport::escape(d.reason) + "\n";
        }
    if (!first)
        md += "\n";
}

void alignmentTable(std::string &md, const AnalysisResult &r)
{
    md += "## Clock alignment\n\n";
    if (r.alignment.empty()) {
        md += "No ranks to align.\n\n";
        return;
    }
    md += "| Rank | Method | Offset | Residual | Anchors | Reference rank |\n|---:|---|---:|---:|---:|---:|\n";
    for (const RankAlignment &a : r.alignment)
        md += "| " + std::to_string(a.rank) + " | " + alignmentMethodName(a.method) + " | " + offset(a.offsetNs) + " | "
            + (a.residualNs ? duration(*a.residualNs) : "–") + " | " + std::to_string(a.anchors) + " | "
            + std::to_string(a.reference) + " |\n";
    md += "\n";
}

void spikesTable(std::string &md, const AnalysisResult &r, TimeNs t0, std::size_t max)
{
    md += "## Allocation spikes\n\n";
    if (r.spikes.empty()) {
        md += "No allocation spikes.\n\n";
        return;
    }
    md += "| # | Rank | Step | Time | Size (GiB) | Attributed to | Source |\n|---:|---:|---:|---|---:|---|---|\n";
    for (std::size_t i = 0; i < r.spikes.size() && i < max; ++i) {
        const Spike &s = r.spikes[i];
        md += "| " + std::to_string(i + 1) + " | " + std::to_string(s.rank) + " | "
            + (s.step >= 0 ? std::to_string(s.step) : std::string("–")) + " | " + relative(s.timeNs, t0) + " | "
            + gib(s.bytes) + " | " + (s.attributedTo.empty() ? "–" : IncidentReport::escape(s.attributedTo)) + " | "
            + IncidentReport::escape(s.source) + " |\n";
    }
    if (r.spikes.size() > max)
        md += "\n" + std::to_string(r.spikes.size() - max) + " smaller spikes not listed.\n";
    md += "\n";
}

void inputsTable(std::string &md, const Session &s)
{
    md += "## Inputs\n\n";
    md += "| Path | Format | Ranks | Size (bytes) | SHA-256 | Errors | Warnings |\n|---|---|---|---:|---|---:|---:|\n";
    for (const Source &src : s.sources()) {
        // A file moved or deleted since it was read is reported, not fatal: the report is still useful.
        const QFileInfo info(QString::fromStdString(src.path));
        const std::optional<std::string> sha = info.isFile() ? IncidentReport::sha256File(src.path) : std::nullopt;
        const std::size_t errors = src.errorCount();
        md += "| " + IncidentReport::escape(src.path) + " | " + (src.format.empty() ? "unrecognised" : src.format) + " | "
            + rankList(src.ranks) + " | " + (info.isFile() ? std::to_string(info.size()) : std::string("missing")) + " | "
            + (sha ? IncidentReport::codeSpan(*sha) : std::string("missing")) + " | " + std::to_string(errors) + " | "
            + std::to_string(src.warningCount()) + " |\n";
    }
    md += "\n";
    if (!s.skippedFiles().empty()) {
        md += "Files not recognised as inputs:\n\n";
        for (const std::string &f : s.skippedFiles())
            md += "- " + IncidentReport::escape(f) + "\n";
        md += "\n";
    }
}

void images(std::string &md, const IncidentReport::Options &o)
{
    md += "## Images\n\n";
    if (o.images.empty()) {
        md += "No images.\n\n";
        return;
    }
    for (const IncidentReport::Image &im : o.images) {
        // <...> keeps a path with spaces or parentheses one link destination.
        std::string dest;
        for (char c : im.path)
            dest += (c == '<' || c == '>') ? std::string("\\") + c : std::string(1, c);
        md += "![" + IncidentReport::escape(im.caption) + "](<" + dest + ">)\n\n";
        if (!im.caption.empty())
            md += "*" + IncidentReport::escape(im.caption) + "*\n\n";
    }
}

} // namespace

std::optional<std::string> IncidentReport::sha256File(const std::string &path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        return std::nullopt;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QByteArray chunk(1 << 20, Qt::Uninitialized);
    for (;;) {
        const qint64 n = f.read(chunk.data(), chunk.size());
        if (n < 0)
            return std::nullopt;
        if (n == 0)
            break;
        hash.addData(QByteArrayView(chunk.constData(), n));
    }
    return hash.result().toHex().toStdString();
}

std::string IncidentReport::escape(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        switch (c) {
        case '\\': case '`': case '*': case '[': case ']': case '<': case '>': case '|':
            out += '\\';
            out += c;
            break;
        case '_': {
            // Intraword underscores never emphasise in CommonMark; leaving them keeps settings such
            // as expandable_segments:True readable and pasteable from the raw text.
            const bool inner = i > 0 && i + 1 < text.size() && isWordChar(text[i - 1]) && isWordChar(text[i + 1]);
            out += inner ? "_" : "\\_";
            break;
        }
        case '#': case '+': case '-': case '!':
            if (out.empty())
                out += '\\';
            out += c;
            break;
        case '\r': case '\n':
            out += ' ';
            break;
        default:
            out += c;
        }
    }
    return out;
}

std::string IncidentReport::codeSpan(std::string_view text)
{
    std::size_t longest = 0, run = 0;
    std::string flat;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
        flat += (c == '\n' || c == '\r') ? ' ' : c;
    }
    const std::string fence(longest + 1, '`');
    // A span starting or ending with a backtick needs a space so the fence is not read as longer.
    const bool pad = !flat.empty() && (flat.front() == '`' || flat.back() == '`');
    return fence + (pad ? " " : "") + flat + (pad ? " " : "") + fence;
}

std::string IncidentReport::markdown(const Session &session, const AnalysisResult &result, const Options &options)
{
    TimeNs t1 = 0;
    const TimeNs t0 = alignedStart(session, result, &t1);
    // A result put together by hand (no analyzer run) still gets its story.
    const IncidentSummary told = result.summary.headline.empty() ? IncidentStory::build(result, &session) : result.summary;
    std::string md = "# " + escape(options.title) + "\n\n";
    story(md, told);
    if (!options.generatedAt.empty())
        md += "Generated " + escape(options.generatedAt) + " by RankScope.\n\n";
    summary(md, session, result, options, t0, t1);
    findings(md, result, told, t0);
    notesSection(md, options.notes, t0);
    metricsTable(md, result);
    alignmentTable(md, result);
    spikesTable(md, result, t0, options.maxSpikes);
    inputsTable(md, session);
    images(md, options);
    return md;
}

} // namespace rs
