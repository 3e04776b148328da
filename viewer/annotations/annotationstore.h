#pragma once
// The annotations of one session and their undo history. Every change a person makes (add, edit,
// move, delete) is a QUndoCommand on undoStack(), so the Edit menu's Undo/Redo cover them; the
// annotations made from analysis findings are replaced as a set when a new analysis arrives,
// keeping what the person edited and not bringing back what they deleted.

#include "annotation.h"

#include <QObject>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

class QUndoStack;

namespace rs {

class AnnotationStore : public QObject
{
    Q_OBJECT
public:
    explicit AnnotationStore(QObject *parent = nullptr);
    ~AnnotationStore() override;

    /// Every annotation, hidden finding annotations included, in drawing order (later on top).
    const std::vector<Annotation> &annotations() const { return m_items; }
    /// What the views draw and list: annotations() without the finding annotations while those are hidden.
    std::vector<Annotation> visibleAnnotations() const;
    /// The annotation with `id`, or nullptr.
    const Annotation *find(std::uint64_t id) const;
    /// True when `a` is shown now (not a hidden finding annotation).
    bool isVisible(const Annotation &a) const;

    /// The history of user changes; the lead's Edit menu makes its undo/redo actions from it.
    QUndoStack *undoStack() const { return m_undo; }

    /// Adds `a` (its id is ignored) as one undo step; returns the id assigned.
    std::uint64_t add(Annotation a);
    /// Removes `id` as one undo step; false when there is no such annotation.
    bool remove(std::uint64_t id);
    /// Replaces the annotation with `a.id` by `a` (text, colour, kind, place) as one undo step;
    /// false when there is no such annotation or nothing changed. A range's ends are put in order.
    bool update(const Annotation &a);
    /// Like update(), but consecutive moves of the same annotation merge into one undo step until
    /// endMove(): call it for every mouse move of a drag.
    bool move(const Annotation &a);
    /// Ends the current drag: the next move() opens a new undo step.
    void endMove();

    /// The selected annotation, 0 for none.
    std::uint64_t selectedId() const { return m_selected; }
    /// Selects `id` (0, or an unknown id: none).
    void setSelectedId(std::uint64_t id);

    /// Replaces the annotations made from findings (Origin::Finding) by `fromFindings` (usually
    /// annotationsFromFindings() of a new analysis), matched by findingKey: ones the person edited
    /// or moved are kept as they are, ones they deleted are not added again, the rest are replaced
    /// (keeping their ids). Not undoable; the undo history is kept.
    void setFindingAnnotations(std::vector<Annotation> fromFindings);
    /// Whether finding annotations are drawn and listed (true by default).
    bool findingAnnotationsVisible() const { return m_findingsVisible; }
    void setFindingAnnotationsVisible(bool visible);

    /// Finding keys of finding annotations the person deleted (a session file saves these).
    std::vector<std::string> deletedFindingKeys() const { return {m_deletedKeys.begin(), m_deletedKeys.end()}; }
    /// Finding keys of finding annotations the person edited or moved (a session file saves these).
    std::vector<std::string> editedFindingKeys() const { return {m_editedKeys.begin(), m_editedKeys.end()}; }
    /// Loads a saved state: the annotations (ids kept when unique and non-zero, else assigned), and
    /// the deleted and edited finding keys. Clears the undo history and the selection.
    void reset(std::vector<Annotation> annotations, std::vector<std::string> deletedFindingKeys = {},
               std::vector<std::string> editedFindingKeys = {});

Q_SIGNALS:
    /// Anything drawn or listed changed: an annotation, the set, or the visibility of findings.
    void changed();
    /// The selected annotation changed; 0: none.
    void selectionChanged(std::uint64_t id);

private:
    friend class AnnotationCommand;
    // The primitive edits the undo commands replay; each emits changed().
    void insertAt(std::size_t index, const Annotation &a);
    void erase(std::uint64_t id);
    void replace(const Annotation &a);
    std::size_t indexOf(std::uint64_t id) const;
    void setKeyFlag(std::set<std::string> &set, const std::string &key, bool on);
    bool pushUpdate(const Annotation &a, bool merging);
    void dropStaleSelection();

    std::vector<Annotation> m_items;
    QUndoStack *m_undo;
    std::uint64_t m_nextId = 1;
    std::uint64_t m_selected = 0;
    std::uint64_t m_dragSerial = 1; // moves merge only within one serial
    bool m_findingsVisible = true;
    std::set<std::string> m_deletedKeys;
    std::set<std::string> m_editedKeys;
};

} // namespace rs
