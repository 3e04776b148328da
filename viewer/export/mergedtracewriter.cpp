#include "mergedtracewriter.h"

#include "report/chrometraceexport.h"

#include <QFile>
#include <QFileInfo>

#include <zlib.h>

#include <array>
#include <fstream>
#include <ostream>
#include <streambuf>
#include <vector>

namespace rs {

namespace {

// A write-only stream buffer that deflates into a .gz file, so the exporter's text stream goes to
// disk compressed without being held in memory.
class GzipBuffer : public std::streambuf
{
public:
    explicit GzipBuffer(const QString &path)
        : m_file(gzopen(QFile::encodeName(path).constData(), "wb6"))
    {
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    ~GzipBuffer() override { close(); }
    GzipBuffer(const GzipBuffer &) = delete;
    GzipBuffer &operator=(const GzipBuffer &) = delete;

    bool isOpen() const { return m_file != nullptr; }
    bool close()
    {
        if (!m_file)
            return m_ok;
        m_ok = flushBuffer() && m_ok;
        m_ok = gzclose(m_file) == Z_OK && m_ok;
        m_file = nullptr;
        return m_ok;
    }

protected:
    int_type overflow(int_type c) override
    {
        if (!flushBuffer())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return flushBuffer() ? 0 : -1; }

private:
    bool flushBuffer()
    {
        const auto n = static_cast<unsigned>(pptr() - pbase());
        if (n > 0 && (!m_file || gzwrite(m_file, pbase(), n) != static_cast<int>(n)))
            m_ok = false;
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
        return m_ok;
    }

    gzFile m_file = nullptr;
    bool m_ok = true;
    std::array<char, 1 << 16> m_buffer{};
};

// Passes the exporter's text on to `target` in 1 MiB pieces, and between pieces says how much was
// written and whether the user stopped: a stop fails the next write, which ends the export.
class ControlledBuffer : public std::streambuf
{
public:
    ControlledBuffer(std::streambuf *target, const TaskControl *control, QString name)
        : m_target(target)
        , m_control(control)
        , m_name(std::move(name))
    {
        m_buffer.resize(1 << 20);
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    bool stopped() const { return m_stopped; }

protected:
    int_type overflow(int_type c) override
    {
        if (!pass())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return pass() && m_target->pubsync() == 0 ? 0 : -1; }

private:
    bool pass()
    {
        const std::streamsize n = pptr() - pbase();
        if (m_control && m_control->stopped())
            m_stopped = true;
        if (m_stopped || (n > 0 && m_target->sputn(pbase(), n) != n))
            return false;
        m_written += n;
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
        if (m_control && n > 0)
            m_control->report(0, 0, MergedTraceWriter::tr("Writing %1: %2 MB of JSON…").arg(m_name).arg(m_written >> 20));
        return true;
    }

    std::streambuf *m_target;
    const TaskControl *m_control;
    QString m_name;
    std::vector<char> m_buffer;
    qint64 m_written = 0;
    bool m_stopped = false;
};

} // namespace

bool MergedTraceWriter::isTracePath(const QString &path)
{
    return path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) || path.endsWith(QLatin1String(".json.gz"), Qt::CaseInsensitive);
}

bool MergedTraceWriter::write(const QString &path, const Session &session, const AnalysisResult *analysis,
                              const std::map<RankId, TimeNs> &offsets, QString *error, const std::vector<Annotation> &annotations,
                              const TaskControl *control)
{
    ChromeTraceExport::Found found;
    found.analysis = analysis;
    for (const Annotation &a : annotations) {
        if (a.origin != Annotation::Origin::User)
            continue; // a finding's annotation is its finding, exported with the findings
        ChromeTraceExport::Mark m;
        const char *kind = a.kind == Annotation::Kind::Arrow ? "arrow" : a.kind == Annotation::Kind::Range ? "range" : "note";
        m.name = a.text.isEmpty() ? std::string(kind) : a.text.toStdString();
        m.time = a.time;
        m.duration = a.kind == Annotation::Kind::Range ? std::max<TimeNs>(0, a.endTime - a.time) : 0;
        if (a.rank != kNoRank)
            m.ranks = {a.rank};
        m.args = {{"kind", kind}};
        if (a.kind == Annotation::Kind::Arrow)
            m.args.emplace_back("to", (a.endRank == kNoRank ? std::string("job") : "rank " + std::to_string(a.endRank)) + " at "
                                          + std::to_string(a.endTime) + " ns");
        found.annotations.push_back(std::move(m));
    }
    std::vector<RankAlignment> alignment;
    for (const Rank &r : session.ranks()) {
        RankAlignment a;
        a.rank = r.id;
        const auto it = offsets.find(r.id);
        a.offsetNs = it != offsets.end() ? it->second : analysis ? analysis->offsetOf(r.id) : 0;
        alignment.push_back(a);
    }
    auto fail = [&](const QString &why) {
        if (error)
            *error = tr("cannot write %1: %2").arg(path, why);
        return false;
    };
    std::string why;
    const QString name = QFileInfo(path).fileName();
    // A stopped export leaves no half-written trace behind.
    const auto cancelled = [&] {
        QFile::remove(path);
        if (error)
            *error = tr("cancelled: %1 was not written").arg(path);
        return false;
    };
    if (path.endsWith(QLatin1String(".gz"), Qt::CaseInsensitive)) {
        GzipBuffer buffer(path);
        if (!buffer.isOpen())
            return fail(tr("cannot open the file"));
        ControlledBuffer controlled(&buffer, control, name);
        std::ostream out(&controlled);
        const bool ok = ChromeTraceExport::write(session, alignment, out, &why, found) && out.flush().good();
        const bool closed = buffer.close();
        if (controlled.stopped())
            return cancelled();
        if (!closed || !ok)
            return fail(why.empty() ? tr("write failed") : QString::fromStdString(why));
        return true;
    }
    std::ofstream file(QFile::encodeName(path).constData(), std::ios::binary | std::ios::trunc);
    if (!file)
        return fail(tr("cannot open the file"));
    ControlledBuffer controlled(file.rdbuf(), control, name);
    std::ostream out(&controlled);
    const bool ok = ChromeTraceExport::write(session, alignment, out, &why, found) && out.flush().good();
    file.close();
    if (controlled.stopped())
        return cancelled();
    if (!ok || file.fail())
        return fail(why.empty() ? tr("write failed") : QString::fromStdString(why));
    return true;
}

} // namespace rs
