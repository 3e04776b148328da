#include "timelinecontext.h"

#include "viewstate.h"

#include <algorithm>

namespace rs {

TimeNs TimelineContext::origin() const
{
    return state ? state->fullRange().begin : 0;
}

const QString &TimelineContext::text(StringId id)
{
    static const QString empty;
    if (!session || id >= m_text.size())
        return empty;
    if (!m_textReady[id]) {
        const std::string_view v = session->str(id);
        m_text[id] = QString::fromUtf8(v.data(), static_cast<qsizetype>(v.size()));
        m_textReady[id] = true;
    }
    return m_text[id];
}

void TimelineContext::setSession(SessionPtr s)
{
    session = std::move(s);
    palette.setSession(session.get());
    m_text.assign(session ? session->strings().size() : 0, QString());
    m_textReady.assign(m_text.size(), false);
    memoryMax = 0;
    extent = {};
    counterMax.assign(session ? session->tracks().size() : 0, 0.0);
    evidence.build(session.get());
    if (!session)
        return;
    for (std::size_t i = 0; i < session->tracks().size(); ++i) {
        const Track &t = session->tracks()[i];
        if (!t.counter.empty())
            counterMax[i] = *std::max_element(t.counter.values.begin(), t.counter.values.end());
    }
    // Until the analysis aligns the ranks, the extent of the unaligned data (PlausibleExtent).
    setExtent(PlausibleExtent::find(*session, nullptr));
}

void TimelineContext::setExtent(PlausibleExtent e)
{
    extent = std::move(e);
    memoryMax = extent.memoryScale;
}

TimeRange TimelineContext::dataRange() const
{
    if (!session)
        return {};
    // Placed (untimed) OOMs may lie past the data; everything else comes from the plausible extent.
    return !extent.axis.isEmpty() ? extent.axis.united(evidence.placedExtent()) : evidence.extent();
}

} // namespace rs
