#pragma once
// The allocator dock: what the caching allocator snapshots of the session hold (Session::allocator()).
// A one-line summary per rank/device (segments, reserved, allocated, free inside segments, largest
// free block) above four tabs: the Active memory timeline (ActiveMemoryView), the Segment map
// (SegmentMapView), the segments with their blocks (SegmentModel, sortable, filtered by rank and
// by text in the stack frames) and the largest allocations (alive at the snapshot or all).
// The stack of the selected segment, block or allocation is listed below, innermost frame first.

#include "session.h"
#include "viewstate.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QScrollArea;
class QTabWidget;
class QTableView;
class QTreeView;

namespace rs {

class ActiveMemoryView;
class AllocationModel;
class SegmentFilterModel;
class SegmentMapView;
class SegmentModel;

class AllocatorPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AllocatorPanel(ViewState *state, QWidget *parent = nullptr);

    void setSession(SessionPtr session);

    SegmentModel *segmentModel() const { return m_segments; }
    SegmentFilterModel *segmentProxy() const { return m_proxy; }
    AllocationModel *allocationModel() const { return m_allocations; }
    QTreeView *segmentView() const { return m_segmentView; }
    QTableView *allocationView() const { return m_allocationView; }
    QListWidget *stackList() const { return m_stack; }
    QLabel *summaryLabel() const { return m_summary; }
    QComboBox *rankCombo() const { return m_rank; }
    QLineEdit *frameFilter() const { return m_filter; }
    QComboBox *allocationModeCombo() const { return m_mode; }
    ActiveMemoryView *activeMemory() const { return m_active; }
    SegmentMapView *segmentMap() const { return m_map; }
    QTabWidget *tabs() const { return m_tabs; }
    QLabel *allocationTotalLabel() const { return m_allocationTotal; }

private:
    void showStack(std::int32_t stack);
    void updateSummary();
    void updateAllocationTotal();
    void updateRanks();

    ViewState *m_state;
    SessionPtr m_session;
    SegmentModel *m_segments;
    SegmentFilterModel *m_proxy;
    AllocationModel *m_allocations;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    QComboBox *m_rank;
    QLineEdit *m_filter;
    QComboBox *m_mode;
    QLabel *m_allocationTotal;
    ActiveMemoryView *m_active;
    SegmentMapView *m_map;
    QScrollArea *m_mapPage;
    QTreeView *m_segmentView;
    QTableView *m_allocationView;
    QListWidget *m_stack;
};

} // namespace rs
