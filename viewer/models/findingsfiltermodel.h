#pragma once
// Narrows the findings tree to a minimum severity and a text (matched against the title, id,
// ranks, evidence and fix). Evidence and fix rows always follow their finding, so a match on an
// evidence line shows the whole finding it supports.

#include "analysisresult.h"

#include <QSortFilterProxyModel>

namespace rs {

class FindingsFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit FindingsFilterModel(QObject *parent = nullptr);

    Severity minimumSeverity() const { return m_minimum; }
    void setMinimumSeverity(Severity minimum);
    QString text() const { return m_text; }
    void setText(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    Severity m_minimum = Severity::Info;
    QString m_text;
};

} // namespace rs
