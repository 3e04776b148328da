#pragma once
// The look of the panels' record lists (Log, Find Slices): sortable rows kept in the model's order
// until the user sorts, one row selected at a time, no grid, no row numbers, compact rows.

#include <QAbstractItemModel>
#include <QHeaderView>
#include <QTableView>

namespace rs {

inline QTableView *recordTable(QAbstractItemModel *model)
{
    auto *view = new QTableView;
    view->setModel(model);
    view->setSortingEnabled(true);
    view->sortByColumn(-1, Qt::AscendingOrder); // the model's order until the user sorts
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setWordWrap(false);
    view->setShowGrid(false);
    view->setTextElideMode(Qt::ElideRight);
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 6);
    view->horizontalHeader()->setHighlightSections(false);
    return view;
}

} // namespace rs
