#include "annotationstore.h"

#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <map>

namespace rs {

namespace {

QString kindName(Annotation::Kind kind)
{
    switch (kind) {
    case Annotation::Kind::Note: return AnnotationStore::tr("note");
    case Annotation::Kind::Arrow: return AnnotationStore::tr("arrow");
    case Annotation::Kind::Range: return AnnotationStore::tr("range");
    }
    return {};
}

// Ranges are kept start <= end whichever edge was dragged past the other.
Annotation normalised(Annotation a)
{
    if (a.kind == Annotation::Kind::Range && a.endTime < a.time)
        std::swap(a.time, a.endTime);
    if (a.kind == Annotation::Kind::Note)
        a.endTime = a.time;
    return a;
}

} // namespace

// One user change. A single class for add, remove and update keeps the store's primitives private
// to it (friendship does not pass on to subclasses).
class AnnotationCommand : public QUndoCommand
{
public:
    enum class Op : std::uint8_t { Add, Remove, Update };
    static constexpr int kMoveId = 0x52534d56; // "RSMV": merges moves of one drag

    AnnotationCommand(AnnotationStore *store, Op op, Annotation before, Annotation after, std::size_t index, std::uint64_t serial)
        : m_store(store)
        , m_op(op)
        , m_before(std::move(before))
        , m_after(std::move(after))
        , m_index(index)
        , m_serial(serial)
    {
        const Annotation &a = op == Op::Add ? m_after : m_before;
        m_wasEdited = store->m_editedKeys.count(a.findingKey) > 0;
        m_wasDeleted = store->m_deletedKeys.count(a.findingKey) > 0;
        switch (op) {
        case Op::Add: setText(AnnotationStore::tr("Add %1").arg(kindName(a.kind))); break;
        case Op::Remove: setText(AnnotationStore::tr("Delete %1").arg(kindName(a.kind))); break;
        case Op::Update:
            setText(serial ? AnnotationStore::tr("Move %1").arg(kindName(a.kind)) : AnnotationStore::tr("Edit %1").arg(kindName(a.kind)));
            break;
        }
    }

    int id() const override { return m_op == Op::Update && m_serial ? kMoveId : -1; }

    bool mergeWith(const QUndoCommand *other) override
    {
        const auto *o = static_cast<const AnnotationCommand *>(other);
        if (o->m_op != Op::Update || o->m_serial != m_serial || o->m_after.id != m_after.id)
            return false;
        m_after = o->m_after;
        // A drag that ends where it started changed nothing: no undo step for it.
        setObsolete(m_after == m_before);
        return true;
    }

    void redo() override
    {
        const bool finding = !m_before.findingKey.empty() || !m_after.findingKey.empty();
        switch (m_op) {
        case Op::Add: m_store->insertAt(m_index, m_after); break;
        case Op::Remove:
            if (finding)
                m_store->setKeyFlag(m_store->m_deletedKeys, m_before.findingKey, true);
            m_store->erase(m_before.id);
            break;
        case Op::Update:
            if (finding && m_after.origin == Annotation::Origin::Finding)
                m_store->setKeyFlag(m_store->m_editedKeys, m_after.findingKey, true);
            m_store->replace(m_after);
            break;
        }
    }

    void undo() override
    {
        const bool finding = !m_before.findingKey.empty() || !m_after.findingKey.empty();
        switch (m_op) {
        case Op::Add: m_store->erase(m_after.id); break;
        case Op::Remove:
            if (finding)
                m_store->setKeyFlag(m_store->m_deletedKeys, m_before.findingKey, m_wasDeleted);
            m_store->insertAt(m_index, m_before);
            break;
        case Op::Update:
            if (finding && m_before.origin == Annotation::Origin::Finding)
                m_store->setKeyFlag(m_store->m_editedKeys, m_before.findingKey, m_wasEdited);
            m_store->replace(m_before);
            break;
        }
    }

private:
    AnnotationStore *m_store;
    Op m_op;
    Annotation m_before; // Remove, Update: as it was
    Annotation m_after;  // Add, Update: as it becomes
    std::size_t m_index; // Add, Remove: position in the drawing order
    std::uint64_t m_serial; // Update: non-zero for a move, the drag it belongs to
    bool m_wasEdited = false;
    bool m_wasDeleted = false;
};

AnnotationStore::AnnotationStore(QObject *parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
}

AnnotationStore::~AnnotationStore() = default;

std::vector<Annotation> AnnotationStore::visibleAnnotations() const
{
    std::vector<Annotation> out;
    out.reserve(m_items.size());
    for (const Annotation &a : m_items)
        if (isVisible(a))
            out.push_back(a);
    return out;
}

bool AnnotationStore::isVisible(const Annotation &a) const
{
    return m_findingsVisible || a.origin != Annotation::Origin::Finding;
}

std::size_t AnnotationStore::indexOf(std::uint64_t id) const
{
    for (std::size_t i = 0; i < m_items.size(); ++i)
        if (m_items[i].id == id)
            return i;
    return m_items.size();
}

const Annotation *AnnotationStore::find(std::uint64_t id) const
{
    const std::size_t i = indexOf(id);
    return id != 0 && i < m_items.size() ? &m_items[i] : nullptr;
}

std::uint64_t AnnotationStore::add(Annotation a)
{
    a = normalised(std::move(a));
    a.id = m_nextId++;
    const std::uint64_t id = a.id;
    m_undo->push(new AnnotationCommand(this, AnnotationCommand::Op::Add, {}, std::move(a), m_items.size(), 0));
    return id;
}

bool AnnotationStore::remove(std::uint64_t id)
{
    const Annotation *a = find(id);
    if (!a)
        return false;
    m_undo->push(new AnnotationCommand(this, AnnotationCommand::Op::Remove, *a, {}, indexOf(id), 0));
    return true;
}

bool AnnotationStore::pushUpdate(const Annotation &changed, bool merging)
{
    const Annotation *a = find(changed.id);
    if (!a)
        return false;
    Annotation next = normalised(changed);
    // Who made it and where it came from are not the editor's to change.
    next.origin = a->origin;
    next.findingKey = a->findingKey;
    if (next == *a)
        return false;
    m_undo->push(new AnnotationCommand(this, AnnotationCommand::Op::Update, *a, std::move(next), 0, merging ? m_dragSerial : 0));
    return true;
}

bool AnnotationStore::update(const Annotation &a)
{
    endMove(); // an edit between two drags keeps them apart
    return pushUpdate(a, false);
}

bool AnnotationStore::move(const Annotation &a)
{
    return pushUpdate(a, true);
}

void AnnotationStore::endMove()
{
    ++m_dragSerial;
}

void AnnotationStore::setSelectedId(std::uint64_t id)
{
    if (id != 0 && (!find(id) || !isVisible(*find(id))))
        id = 0;
    if (id == m_selected)
        return;
    m_selected = id;
    Q_EMIT selectionChanged(id);
}

void AnnotationStore::dropStaleSelection()
{
    if (m_selected != 0 && (!find(m_selected) || !isVisible(*find(m_selected))))
        setSelectedId(0);
}

void AnnotationStore::insertAt(std::size_t index, const Annotation &a)
{
    if (find(a.id))
        return;
    m_items.insert(m_items.begin() + static_cast<std::ptrdiff_t>(std::min(index, m_items.size())), a);
    m_nextId = std::max(m_nextId, a.id + 1);
    Q_EMIT changed();
}

void AnnotationStore::erase(std::uint64_t id)
{
    const std::size_t i = indexOf(id);
    if (i >= m_items.size())
        return; // already gone (a new analysis dropped it): nothing to do
    m_items.erase(m_items.begin() + static_cast<std::ptrdiff_t>(i));
    dropStaleSelection();
    Q_EMIT changed();
}

void AnnotationStore::replace(const Annotation &a)
{
    const std::size_t i = indexOf(a.id);
    if (i >= m_items.size())
        return;
    m_items[i] = a;
    Q_EMIT changed();
}

void AnnotationStore::setKeyFlag(std::set<std::string> &set, const std::string &key, bool on)
{
    if (key.empty())
        return;
    if (on)
        set.insert(key);
    else
        set.erase(key);
}

void AnnotationStore::setFindingAnnotations(std::vector<Annotation> fromFindings)
{
    std::map<std::string, Annotation> incoming;
    std::vector<std::string> order; // the analysis' order, for the ones that are new
    for (Annotation &a : fromFindings) {
        a.origin = Annotation::Origin::Finding;
        if (!a.findingKey.empty() && incoming.emplace(a.findingKey, normalised(a)).second)
            order.push_back(a.findingKey);
    }
    std::vector<Annotation> next;
    next.reserve(m_items.size() + incoming.size());
    for (const Annotation &a : m_items) {
        if (a.origin != Annotation::Origin::Finding) {
            next.push_back(a);
            continue;
        }
        auto it = incoming.find(a.findingKey);
        if (m_editedKeys.count(a.findingKey)) {
            // The person's version wins, even when the finding itself went away: it is their note now.
            next.push_back(a);
        } else if (it != incoming.end()) {
            Annotation fresh = it->second;
            fresh.id = a.id; // undo steps that name this id keep working
            next.push_back(std::move(fresh));
        }
        if (it != incoming.end())
            incoming.erase(it);
    }
    // New findings, in the analysis' order.
    for (const std::string &key : order) {
        auto it = incoming.find(key);
        if (it == incoming.end() || m_deletedKeys.count(key))
            continue;
        Annotation fresh = std::move(it->second);
        incoming.erase(it);
        fresh.id = m_nextId++;
        next.push_back(std::move(fresh));
    }
    if (next == m_items)
        return;
    m_items = std::move(next);
    dropStaleSelection();
    Q_EMIT changed();
}

void AnnotationStore::setFindingAnnotationsVisible(bool visible)
{
    if (visible == m_findingsVisible)
        return;
    m_findingsVisible = visible;
    dropStaleSelection();
    Q_EMIT changed();
}

void AnnotationStore::reset(std::vector<Annotation> annotations, std::vector<std::string> deletedFindingKeys,
                            std::vector<std::string> editedFindingKeys)
{
    m_undo->clear();
    m_items.clear();
    m_nextId = 1;
    for (const Annotation &a : annotations)
        m_nextId = std::max(m_nextId, a.id + 1);
    std::set<std::uint64_t> seen;
    for (Annotation &a : annotations) {
        if (a.id == 0 || !seen.insert(a.id).second)
            a.id = m_nextId++;
        seen.insert(a.id);
        m_items.push_back(normalised(std::move(a)));
    }
    m_deletedKeys = {deletedFindingKeys.begin(), deletedFindingKeys.end()};
    m_editedKeys = {editedFindingKeys.begin(), editedFindingKeys.end()};
    ++m_dragSerial;
    setSelectedId(0);
    Q_EMIT changed();
}

} // namespace rs
