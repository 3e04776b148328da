#include "figureoptions.h"

namespace rs {

FigureOptions FigureOptions::fromView(const Session &session, const ViewState &state)
{
    FigureOptions o;
    o.range = state.visibleRange();
    bool anyHidden = false;
    for (const Rank &r : session.ranks()) {
        if (state.isRankHidden(r.id)) {
            anyHidden = true;
            continue;
        }
        o.ranks.push_back(r.id);
        if (state.isRankCollapsed(r.id))
            o.collapsed.push_back(r.id);
        o.clockOffsets[r.id] = state.clockOffset(r.id);
    }
    if (!anyHidden)
        o.ranks.clear(); // every rank: stays "all" when the session has more than the view knew
    o.highlight = state.highlight();
    return o;
}

} // namespace rs
