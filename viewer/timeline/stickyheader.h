#pragma once
// The header of the rank being read, pinned at the top of the timeline's viewport while that rank's
// lanes scroll under it, so the rank's name, colour, badges and summary stay in sight in a group
// taller than the screen. It paints the group's own header from the group stack
// (RankGroupWidget::paintHeader, no widget needed) and a click folds the group like a click on its
// header. TimelineView places it on every scroll.

#include "types.h"

#include <QWidget>

namespace rs {

struct GroupEntry;
struct TimelineContext;
class ViewState;

class StickyHeader : public QWidget
{
    Q_OBJECT
public:
    StickyHeader(ViewState *state, QWidget *viewport);

    /// Shows the header of `group` of `ctx`'s stack at the top (nullptr hides it).
    void showGroup(TimelineContext *ctx, const GroupEntry *group);
    /// The rank shown, or kNoRank when hidden.
    RankId rank() const;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    ViewState *m_state;
    TimelineContext *m_ctx = nullptr;
    RankId m_rank = kNoRank;
};

} // namespace rs
