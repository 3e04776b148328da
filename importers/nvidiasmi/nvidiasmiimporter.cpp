#include "nvidiasmiimporter.h"

#include "nvidiasmiparser.h"
#include "smicsvreader.h"
#include "smitablereader.h"
#include "text/linereader.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <set>

namespace rs {

using namespace nvidiasmi;

namespace {

// Judging more lines than this says nothing new; it keeps the sniffer cheap on a 4 MiB head.
constexpr int kSniffLines = 4000;

bool blank(std::string_view s)
{
    return s.find_first_not_of(" \t\r") == std::string_view::npos;
}

bool isDmonHeader(std::string_view line)
{
    return line.rfind("# gpu", 0) == 0 || line.rfind("#Date", 0) == 0;
}

// A header names at least one column nvidia-smi prints and holds no numbers; a data row always does.
bool isHeader(const std::vector<std::string_view> &f)
{
    if (f.size() < 2)
        return false;
    static const std::set<std::string> kAppColumns = {"pid", "process_name", "used_gpu_memory", "used_memory"};
    bool known = false;
    for (auto cell : f) {
        if (number(cell) || timestamp(cell, "UTC"))
            return false;
        known = known || classifyColumn(cell).metric != Metric::Other || kAppColumns.count(columnName(cell)) > 0;
    }
    return known;
}

bool isAppsHeader(const std::vector<std::string_view> &f)
{
    return std::any_of(f.begin(), f.end(), [](std::string_view h) { return columnName(h) == "pid"; });
}

// A headerless query-gpu row: a time stamp first, or values with nvidia-smi's units.
bool looksLikeNoheaderRow(const std::vector<std::string_view> &f)
{
    if (f.size() < 2)
        return false;
    if (timestamp(f.front(), "UTC") && f.front().find_first_of("/-:") != std::string_view::npos)
        return true;
    return std::count_if(f.begin(), f.end(), [](std::string_view v) {
               return v.size() > 4 && number(v) && (v.find(" MiB") != std::string_view::npos || v.find(" %") != std::string_view::npos);
           }) >= 2;
}

// Calls `segment(text, offsetInLine)` for each NUL-free piece of `line` and `run(offset, length)`
// for each run of NULs between them.
template <typename Segment, typename Run>
void splitAtNuls(std::string_view line, Segment segment, Run run)
{
    std::size_t pos = 0;
    for (;;) {
        const auto nul = line.find('\0', pos);
        segment(line.substr(pos, nul == std::string_view::npos ? nul : nul - pos), pos);
        if (nul == std::string_view::npos)
            return;
        auto end = line.find_first_not_of('\0', nul);
        if (end == std::string_view::npos)
            end = line.size();
        run(nul, end - nul);
        pos = end;
    }
}

// One compute-apps row → a GpuProcess (and the older "compute_app" metadata, kept for readers of it).
void appRow(const std::vector<std::string_view> &f, const std::vector<Column> &cols, std::int64_t lineNo, SourceBuilder &out)
{
    GpuProcess p;
    p.line = lineNo;
    std::string json = "{";
    bool hasPid = false;
    for (std::size_t i = 0; i < f.size() && i < cols.size(); ++i) {
        const std::string &name = cols[i].name;
        json += std::string(i ? "," : "") + "\"" + name + "\":";
        if (name.find("memory") != std::string::npos) {
            const auto b = memoryBytes(f[i], cols[i].unit);
            json += b ? std::to_string(std::llround(*b)) : std::string("null");
            if (b)
                p.usedMemory = std::llround(*b);
            continue;
        }
        std::string value;
        for (char c : f[i])
            if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20)
                value += c;
        json += "\"" + value + "\"";
        if (name == "pid" && !f[i].empty() && std::all_of(f[i].begin(), f[i].end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
            // from_chars: a 30-digit "pid" is no pid, not an exception (found fuzzing).
            hasPid = std::from_chars(f[i].data(), f[i].data() + f[i].size(), p.pid).ec == std::errc();
        } else if (name == "process_name") {
            p.name = value;
        } else if (name == "gpu_uuid" && !isMissing(f[i])) {
            p.uuid = value;
        } else if (name == "gpu_bus_id") {
            p.busId = busIdToNccl(f[i]).value_or(-1);
        }
    }
    if (!hasPid) {
        out.warning("row-fragment", "a compute-apps row without a pid (torn or cut by a writer); skipped", lineNo);
        return;
    }
    out.source().metadata.emplace_back("compute_app", json + "}");
    out.gpus().processes.push_back(std::move(p));
    ++out.source().counts.gpuSamples;
}

} // namespace

int NvidiaSmiImporter::sniff(std::string_view head, std::string_view) const
{
    int lines = 0, smi = 0, banners = 0, headers = 0, rows = 0, noheader = 0;
    std::size_t headerFields = 0, ctrl = 0, judged = 0;
    bool firstIsHeader = false, firstIsNoheader = false;
    std::string_view first;
    std::size_t from = 0;
    while (from < head.size() && lines < kSniffLines) {
        const auto nl = head.find('\n', from);
        // The head may end inside a line: judge complete lines, or the whole head when it has one.
        if (nl == std::string_view::npos && lines > 0)
            break;
        const std::string_view line = head.substr(from, nl == std::string_view::npos ? nl : nl - from);
        from = nl == std::string_view::npos ? head.size() : nl + 1;
        splitAtNuls(
            line,
            [&](std::string_view s, std::size_t) {
                if (blank(s))
                    return;
                judged += s.size();
                for (char c : s)
                    if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\r' && c != '\x1b' && c != '\f' && c != '\v')
                        ++ctrl;
                ++lines;
                if (lines == 1)
                    first = s;
                if (SmiTableReader::isTableLine(s)) {
                    ++smi;
                    banners += s.find("NVIDIA-SMI") != std::string_view::npos && s.find("Driver Version") != std::string_view::npos;
                    return;
                }
                const auto f = splitCsv(s);
                if (isHeader(f)) {
                    ++headers, ++smi;
                    headerFields = f.size();
                    firstIsHeader = firstIsHeader || lines == 1;
                } else if (headers > 0 && f.size() == headerFields) {
                    ++rows, ++smi;
                } else if (looksLikeNoheaderRow(f)) {
                    ++noheader, ++smi;
                    firstIsNoheader = firstIsNoheader || lines == 1;
                }
            },
            [](std::size_t, std::size_t) {});
    }
    // Binary content: NULs alone are a cut writer, but other control bytes mean it is not text.
    if (lines == 0 || ctrl * 64 > judged)
        return 0;
    if (isDmonHeader(first))
        return head.find("# Idx") != std::string_view::npos || head.find("#YYYYMMDD") != std::string_view::npos ? 85 : 50;
    if (firstIsHeader)
        return 85;
    // Deeper in, nvidia-smi's lines must make up most of what was read: a job log that printed one
    // table at its start is a log.
    const bool dominant = smi * 2 > lines;
    if (headers > 0 && rows > 0 && dominant)
        return 80;
    if (banners > 0 && dominant)
        return 75;
    if (firstIsNoheader && dominant)
        return 70;
    return 0;
}

void NvidiaSmiImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    LineReader lines(in, ctx);
    SmiCsvReader csv(out, ctx);
    SmiTableReader table(out, ctx);
    enum class Mode { Unknown, Csv, Dmon, Apps } mode = Mode::Unknown;
    std::vector<Column> appCols;
    std::vector<std::string> gpuHeader;
    bool csvRows = false;

    auto handle = [&](std::string_view line, std::int64_t no) {
        if (blank(line))
            return;
        if (mode == Mode::Unknown && isDmonHeader(line))
            mode = Mode::Dmon;
        if (mode == Mode::Dmon) {
            if (line.front() == '#') {
                // "# gpu pwr ..." names the columns (it repeats; "# Idx W C ..." gives units).
                const std::vector<std::string_view> names = splitWhitespace(line.substr(1));
                if (!names.empty() && names.front() != "Idx" && names.front() != "YYYYMMDD" && !csv.hasColumns()) {
                    std::vector<Column> cols;
                    for (auto n : names)
                        cols.push_back(classifyColumn(n == "gpu" ? std::string_view("index") : n));
                    csv.setColumns(cols);
                }
                return;
            }
            if (!csv.hasColumns()) {
                out.error("dmon-row-before-header", "dmon data row before its '# gpu' header; skipped", no);
                return;
            }
            std::vector<std::string> fields;
            for (std::string_view w : splitWhitespace(line))
                fields.emplace_back(w);
            csvRows = true;
            csv.row(std::move(fields), no);
            return;
        }
        if (table.feed(line, no))
            return;
        const auto f = splitCsv(line);
        if (isHeader(f)) {
            if (isAppsHeader(f)) {
                mode = Mode::Apps;
                appCols.clear();
                for (auto h : f)
                    appCols.push_back(classifyColumn(h));
                return;
            }
            std::vector<std::string> names;
            for (auto h : f)
                names.push_back(columnName(h));
            mode = Mode::Csv;
            if (names == gpuHeader) // repeated by a restarted sidecar
                return;
            if (!gpuHeader.empty())
                out.warning("header-changed", "a different query-gpu header from here on; its columns are used", no);
            gpuHeader = names;
            std::vector<Column> cols;
            for (auto h : f)
                cols.push_back(classifyColumn(h));
            csv.setColumns(cols);
            return;
        }
        if (mode == Mode::Apps) {
            appRow(f, appCols, no, out);
            return;
        }
        if (mode == Mode::Unknown) {
            if (!looksLikeNoheaderRow(f)) {
                out.warning("text-skipped", "a line that is neither nvidia-smi CSV nor its table; skipped", no);
                return;
            }
            std::string described;
            csv.setColumns(guessColumns(f, ctx.timeZone, described));
            out.warning("no-header", "no header line: columns guessed from the units of the first row as: " + described, no);
            mode = Mode::Csv;
        }
        csvRows = true;
        csv.row(std::vector<std::string>(f.begin(), f.end()), no);
    };

    std::string_view line;
    while (lines.next(line)) {
        const std::int64_t no = lines.lineNumber();
        if (lines.truncated())
            out.warning("line-too-long", "line longer than 1 MiB was cut", no, lines.offset());
        splitAtNuls(line, [&](std::string_view s, std::size_t) { handle(s, no); },
                    [&](std::size_t at, std::size_t n) {
                        out.warning("nul-bytes", std::to_string(n) + " NUL bytes skipped (a writer was cut off, or the file was preallocated)",
                                    no, lines.offset() + std::int64_t(at));
                    });
    }
    if (csvRows)
        csv.finish();
    std::vector<GpuRecord> records = csv.records();
    table.mergeInto(records);
    for (GpuRecord &r : records)
        out.gpus().gpus.push_back(std::move(r));
    if (out.source().ranks.empty() && !out.gpus().gpus.empty()) {
        // A table without CSV rows still names its GPUs by index.
        std::set<RankId> ranks;
        for (const GpuRecord &r : out.gpus().gpus)
            ranks.insert(r.rank);
        out.source().ranks.assign(ranks.begin(), ranks.end());
        out.source().rankOrigin = RankOrigin::DeviceIndex;
    }
    if (!csvRows)
        out.source().hasClock = false;
}

} // namespace rs
