#pragma once
// The annotations of a store as a table (kind, rank, time, text, origin) for the Annotations panel.
// Lists what the timeline draws (AnnotationStore::visibleAnnotations()). The text column is
// editable; edits go through the store, so they are undoable like edits on the timeline.

#include "annotationstore.h"

#include <QAbstractTableModel>

namespace rs {

class AnnotationModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { KindColumn, RankColumn, TimeColumn, TextColumn, OriginColumn, ColumnCount };
    enum Role {
        IdRole = Qt::UserRole + 1, ///< quint64: the annotation's id in the store
        KindRole,                  ///< int: Annotation::Kind
        RankRole,                  ///< int: its rank, kNoRank (-1) for job-wide
        TimeRole,                  ///< qint64: aligned ns of the note, the arrow's tail, the range's start
        EndTimeRole,               ///< qint64: aligned ns of the arrow's head or the range's end (== time for a note)
        OriginRole,                ///< int: Annotation::Origin
        SortRole,                  ///< a value that sorts the column naturally (numbers for rank and time)
    };

    explicit AnnotationModel(AnnotationStore *store, QObject *parent = nullptr);

    /// t = 0 of the printed times (the ruler's origin, ViewState::fullRange().begin).
    void setTimeOrigin(TimeNs origin);
    TimeNs timeOrigin() const { return m_origin; }
    /// The annotation of `row`, or nullptr.
    const Annotation *annotationAt(int row) const;
    /// The row of annotation `id`, or -1 when it is not listed.
    int rowOf(std::uint64_t id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    QHash<int, QByteArray> roleNames() const override;

    /// "Note", "Arrow", "Range".
    static QString kindName(Annotation::Kind kind);

private:
    void storeChanged();
    QString timeText(const Annotation &a) const;

    AnnotationStore *m_store;
    std::vector<Annotation> m_rows; // the store's visible annotations, as last announced
    TimeNs m_origin = 0;
};

} // namespace rs
