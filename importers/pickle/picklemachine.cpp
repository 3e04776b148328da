#include "picklemachine.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

namespace rs {

namespace {

// Owns every value of one load. The memo lets a pickle put a list inside itself, and shared
// references would then keep each other alive forever; clearing every container when the
// document dies breaks such cycles, whatever a hostile file built.
struct Document {
    std::vector<PickleRef> all;
    ~Document()
    {
        for (auto &v : all) {
            v->items.clear();
            v->entries.clear();
        }
    }
};

class PickleMachine
{
public:
    /// `salvaging`: a FRAME longer than the data is read on to where the data really ends (loadPartial).
    PickleMachine(PickleInput &in, const RestrictedUnpickler::Limits &limits, bool salvaging = false)
        : m_in(in), m_limits(limits), m_salvaging(salvaging)
    {
    }
    /// Hands the values over: the returned reference keeps the whole document alive.
    PickleRef adopt(PickleRef root)
    {
        auto doc = std::make_shared<Document>();
        doc->all = std::move(m_doc.all);
        doc->all.push_back(root); // a scalar root is not among the containers
        return PickleRef(doc, root.get());
    }

    PickleRef run()
    {
        for (;;) {
            const std::size_t at = std::size_t(m_in.pos());
            m_op = at;
            const auto op = static_cast<unsigned char>(byte());
            switch (op) {
            case 0x80: byte(); break;                   // PROTO n
            case 0x95: frame(at); break;
            case '.': return finish(at);                // STOP
            case '(': mark(at); break;
            case '}': push(m_lastContainer = make(PickleValue::Type::Dict)); break;
            case ']': push(m_lastContainer = make(PickleValue::Type::List)); break;
            case ')': push(make(PickleValue::Type::Tuple)); break;
            case 'N': push(make(PickleValue::Type::None)); break;
            case 0x88: push(boolean(true)); break;      // NEWTRUE
            case 0x89: push(boolean(false)); break;     // NEWFALSE
            case 'K': push(integer(static_cast<unsigned char>(byte()))); break; // BININT1
            case 'M': push(integer(le(2, false))); break; // BININT2
            case 'J': push(integer(le(4, true))); break;  // BININT
            case 0x8a: push(longInt(static_cast<unsigned char>(byte()), at)); break; // LONG1
            case 0x8b: push(longInt(static_cast<std::size_t>(le(4, false)), at)); break; // LONG4
            case 'G': push(real()); break;              // BINFLOAT
            case 0x8c: push(string(static_cast<unsigned char>(byte()), PickleValue::Type::String, at)); break;
            case 'X': push(string(static_cast<std::size_t>(le(4, false)), PickleValue::Type::String, at)); break;
            case 0x8d: push(string(static_cast<std::uint64_t>(le(8, false)), PickleValue::Type::String, at)); break;
            case 'U': push(string(static_cast<unsigned char>(byte()), PickleValue::Type::String, at)); break; // SHORT_BINSTRING
            case 'T': push(string(static_cast<std::size_t>(le(4, false)), PickleValue::Type::String, at)); break; // BINSTRING
            case 'C': push(string(static_cast<unsigned char>(byte()), PickleValue::Type::Bytes, at)); break; // SHORT_BINBYTES
            case 'B': push(string(static_cast<std::size_t>(le(4, false)), PickleValue::Type::Bytes, at)); break; // BINBYTES
            case 0x8e: push(string(static_cast<std::uint64_t>(le(8, false)), PickleValue::Type::Bytes, at)); break; // BINBYTES8
            case 'a': append(at); break;
            case 'e': appends(at); break;
            case 's': setItem(at); break;
            case 'u': setItems(at); break;
            case 0x85: tuple(1, at); break;
            case 0x86: tuple(2, at); break;
            case 0x87: tuple(3, at); break;
            case 't': tupleFromMark(at); break;
            case 0x94: memoPut(m_memoNext, at); break;  // MEMOIZE
            case 'q': memoPut(static_cast<unsigned char>(byte()), at); break; // BINPUT
            case 'r': memoPut(static_cast<std::size_t>(le(4, false)), at); break; // LONG_BINPUT
            case 'h': memoGet(static_cast<unsigned char>(byte()), at); break; // BINGET
            case 'j': memoGet(static_cast<std::size_t>(le(4, false)), at); break; // LONG_BINGET
            case '0': pop(at); break;                   // POP
            case '1': popMark(at); break;               // POP_MARK
            case '2': push(top(at)); break;             // DUP
            case 'c': case 0x93: case 'R': case 'b': case 0x81: case 0x92: case 'i': case 'o':
            case 'P': case 'Q': case 0x82: case 0x83: case 0x84:
                throw PickleFailure("pickle-forbidden", std::string("pickle asks to ") + forbiddenWhat(op)
                                         + "; only plain data (dicts, lists, strings, numbers) is read, so the file is rejected",
                                     at);
            default: {
                char buf[64];
                std::snprintf(buf, sizeof buf, "unsupported pickle opcode 0x%02x", op);
                throw PickleFailure("pickle-unknown-opcode", buf, at);
            }
            }
        }
    }

private:
    static const char *forbiddenWhat(unsigned char op)
    {
        switch (op) {
        case 'c': case 0x93: return "import a global (GLOBAL/STACK_GLOBAL)";
        case 'R': return "call a function (REDUCE)";
        case 'b': return "set object state (BUILD)";
        case 'P': case 'Q': return "resolve a persistent id";
        case 0x82: case 0x83: case 0x84: return "load an extension-registry class";
        default: return "build an object (NEWOBJ/INST/OBJ)";
        }
    }

    char byte() { return m_in.byte(); }
    std::string_view take(std::size_t n) { return m_in.take(n); }
    std::int64_t le(std::size_t n, bool isSigned)
    {
        const auto s = take(n);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i)
            v |= std::uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
        if (isSigned && n < 8 && (v >> (8 * n - 1)) & 1)
            v |= ~std::uint64_t(0) << (8 * n);
        return static_cast<std::int64_t>(v);
    }
    std::size_t pos() const { return std::size_t(m_in.pos()); }

    // FRAME only announces how many bytes follow, but a length past what the source can hold means
    // the file was cut or is not what it claims; saying so beats failing later at a random opcode.
    void frame(std::size_t at)
    {
        const auto n = static_cast<std::uint64_t>(le(8, false));
        if (!m_salvaging && n > m_in.capLeft())
            throw PickleFailure("pickle-bad-frame",
                                 "pickle FRAME announces " + std::to_string(n) + " bytes, more than the " + mebibytes(m_in.maxBytes())
                                     + " a pickle may hold once decompressed (corrupt file)",
                                 at);
        if (!m_salvaging && n > m_in.sizeLeft())
            throw PickleFailure("pickle-bad-frame",
                                 "pickle FRAME announces " + std::to_string(n) + " bytes but only " + std::to_string(m_in.sizeLeft())
                                     + " remain (truncated or corrupt file)",
                                 at);
        m_in.setFrame(at, n, !m_salvaging);
    }
    void mark(std::size_t at)
    {
        if (m_marks.size() >= m_limits.maxDepth)
            throw PickleFailure("pickle-too-deep", "pickle opens more than " + std::to_string(m_limits.maxDepth)
                                                        + " nested MARKs; no snapshot nests that deep",
                                 at);
        m_marks.push_back(m_stack.size());
    }
    // Records that `child` now sits inside `parent`; consumers walk these values recursively.
    void nest(PickleValue &parent, const PickleRef &child, std::size_t at)
    {
        if (!child)
            return;
        const std::uint32_t d = child->depth + 1;
        if (d > m_limits.maxDepth)
            throw PickleFailure("pickle-too-deep", "pickle nests containers more than " + std::to_string(m_limits.maxDepth)
                                                        + " levels deep; no snapshot nests that deep",
                                 at);
        parent.depth = std::max(parent.depth, d);
    }

    // What the decoded values cost, roughly: a file of a few KiB can ask for hundreds of millions of
    // tiny values or references, and the bytes it is made of say nothing about that.
    void spend(std::uint64_t bytes, std::size_t at)
    {
        m_memory += bytes;
        if (m_memory <= m_limits.maxMemory)
            return;
        // Past the fixed allowance the budget grows with the input, so a real snapshot of any size
        // decodes while a bomb (many values per byte, or many bytes per compressed byte) stops.
        const std::uint64_t read = m_in.pos(), stored = m_in.storedBytes();
        const std::uint64_t budget = std::max(m_limits.maxMemory, std::min(saturatingMul(read, m_limits.memoryPerByte),
                                                                           saturatingMul(stored, m_limits.memoryPerStoredByte)));
        if (m_memory > budget)
            throw PickleFailure("pickle-too-large", "decoding the pickle would take more than " + mebibytes(budget)
                                     + " of memory for its " + std::to_string(read) + " bytes (" + std::to_string(stored)
                                     + " stored); no snapshot or dump is made like that",
                                 at);
    }
    static std::uint64_t saturatingMul(std::uint64_t a, std::uint64_t b)
    {
        return b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b ? std::numeric_limits<std::uint64_t>::max() : a * b;
    }
    // Makes room for `extra` more elements, doubling as the vector would, and pays for the whole new
    // capacity: slack is memory too, and a list of one memo reference repeated is mostly slots.
    template <typename T>
    void grow(std::vector<T> &v, std::size_t extra, std::size_t at)
    {
        if (v.size() + extra <= v.capacity())
            return;
        const std::size_t capacity = std::max(v.size() + extra, 2 * v.capacity());
        spend((capacity - v.capacity()) * sizeof(T), at);
        v.reserve(capacity);
    }
    static bool isContainer(PickleValue::Type t)
    {
        return t == PickleValue::Type::List || t == PickleValue::Type::Tuple || t == PickleValue::Type::Dict;
    }
    PickleRef make(PickleValue::Type t)
    {
        if (++m_values > m_limits.maxValues)
            throw PickleFailure("pickle-too-large", "pickle holds more values than the limit allows", pos());
        // The value and make_shared's counts beside it.
        spend(sizeof(PickleValue) + 16, m_op);
        auto v = std::make_shared<PickleValue>();
        v->type = t;
        v->offset = static_cast<std::int64_t>(m_op);
        // Only containers can close a cycle, so only they need breaking when the document dies.
        if (isContainer(t)) {
            grow(m_doc.all, 1, m_op);
            m_doc.all.push_back(v);
        }
        return v;
    }
    PickleRef boolean(bool b)
    {
        auto v = make(PickleValue::Type::Bool);
        v->boolean = b;
        return v;
    }
    PickleRef integer(std::int64_t i)
    {
        auto v = make(PickleValue::Type::Int);
        v->integer = i;
        return v;
    }
    PickleRef longInt(std::size_t n, std::size_t at)
    {
        if (n > 4096)
            throw PickleFailure("pickle-too-large", "pickle integer is implausibly long", at);
        const auto s = take(n);
        auto v = make(n <= 8 ? PickleValue::Type::Int : PickleValue::Type::BigInt);
        std::uint64_t u = 0;
        for (std::size_t i = 0; i < n && i < 8; ++i)
            u |= std::uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
        if (n > 0 && n < 8 && (static_cast<unsigned char>(s[n - 1]) & 0x80))
            u |= ~std::uint64_t(0) << (8 * n);
        v->integer = static_cast<std::int64_t>(u);
        // A 9-byte LONG1 holding SIZE_MAX (max_split_size) or an unsigned address keeps its low bits.
        return v;
    }
    PickleRef real()
    {
        const auto s = take(8);
        std::uint64_t u = 0;
        for (int i = 0; i < 8; ++i)
            u = (u << 8) | static_cast<unsigned char>(s[std::size_t(i)]); // big-endian
        auto v = make(PickleValue::Type::Float);
        v->real = std::bit_cast<double>(u);
        return v;
    }
    // The announced length is weighed before a byte is allocated: against the limit, against what
    // may still follow, and against the memory budget; then the text grows with the data read.
    PickleRef string(std::uint64_t n, PickleValue::Type t, std::size_t at)
    {
        if (n > m_limits.maxString)
            throw PickleFailure("pickle-too-large", "pickle string of " + std::to_string(n) + " bytes is larger than the "
                                     + mebibytes(m_limits.maxString) + " limit on one string",
                                 at);
        if (n > m_in.capLeft())
            throw PickleFailure("pickle-too-large", "pickle string of " + std::to_string(n) + " bytes goes past the "
                                     + mebibytes(m_in.maxBytes()) + " a pickle may hold once decompressed",
                                 at);
        if (n > m_in.sizeLeft())
            throw PickleFailure("pickle-truncated", "pickle ends early (truncated file): a string announces " + std::to_string(n)
                                     + " bytes but only " + std::to_string(m_in.sizeLeft()) + " remain",
                                 pos());
        auto v = make(t);
        spend(n, at);
        m_in.appendTo(v->text, std::size_t(n));
        return v;
    }

    void push(PickleRef v)
    {
        if (m_stack.size() >= m_limits.maxStack)
            throw PickleFailure("pickle-too-large", "pickle stack grows beyond the limit", pos());
        grow(m_stack, 1, pos());
        m_stack.push_back(std::move(v));
    }
    PickleRef pop(std::size_t at)
    {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            throw PickleFailure("pickle-corrupt", "pickle pops from an empty stack (corrupt file)", at);
        auto v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    PickleRef top(std::size_t at)
    {
        if (m_stack.empty())
            throw PickleFailure("pickle-corrupt", "pickle reads an empty stack (corrupt file)", at);
        return m_stack.back();
    }
    std::vector<PickleRef> popMark(std::size_t at)
    {
        if (m_marks.empty())
            throw PickleFailure("pickle-corrupt", "pickle uses a MARK that was never set (corrupt file)", at);
        const std::size_t mark = m_marks.back();
        m_marks.pop_back();
        std::vector<PickleRef> items(std::make_move_iterator(m_stack.begin() + std::ptrdiff_t(mark)),
                                     std::make_move_iterator(m_stack.end()));
        m_stack.resize(mark);
        return items;
    }
    PickleValue &container(PickleValue::Type t, std::size_t at)
    {
        if (m_stack.empty() || m_stack.back()->type != t)
            throw PickleFailure("pickle-corrupt", t == PickleValue::Type::Dict ? "pickle sets an item on a value that is not a dict"
                                                              : "pickle appends to a value that is not a list",
                                 at);
        return *m_stack.back();
    }
    void append(std::size_t at)
    {
        auto v = pop(at);
        PickleValue &list = container(PickleValue::Type::List, at);
        nest(list, v, at);
        grow(list.items, 1, at);
        list.items.push_back(std::move(v));
    }
    void appends(std::size_t at)
    {
        auto items = popMark(at);
        PickleValue &target = container(PickleValue::Type::List, at);
        for (const auto &v : items)
            nest(target, v, at);
        grow(target.items, items.size(), at);
        auto &list = target.items;
        list.insert(list.end(), std::make_move_iterator(items.begin()), std::make_move_iterator(items.end()));
    }
    void setItem(std::size_t at)
    {
        auto value = pop(at);
        auto key = pop(at);
        PickleValue &dict = container(PickleValue::Type::Dict, at);
        nest(dict, key, at);
        nest(dict, value, at);
        grow(dict.entries, 1, at);
        dict.entries.emplace_back(std::move(key), std::move(value));
    }
    void setItems(std::size_t at)
    {
        auto items = popMark(at);
        if (items.size() % 2)
            throw PickleFailure("pickle-corrupt", "pickle SETITEMS has an odd number of values", at);
        PickleValue &target = container(PickleValue::Type::Dict, at);
        for (const auto &v : items)
            nest(target, v, at);
        grow(target.entries, items.size() / 2, at);
        auto &dict = target.entries;
        for (std::size_t i = 0; i < items.size(); i += 2)
            dict.emplace_back(std::move(items[i]), std::move(items[i + 1]));
    }
    void tuple(int n, std::size_t at)
    {
        auto t = make(PickleValue::Type::Tuple);
        grow(t->items, std::size_t(n), at);
        t->items.resize(std::size_t(n));
        for (int i = n - 1; i >= 0; --i) {
            t->items[std::size_t(i)] = pop(at);
            nest(*t, t->items[std::size_t(i)], at);
        }
        push(std::move(t));
    }
    void tupleFromMark(std::size_t at)
    {
        auto t = make(PickleValue::Type::Tuple);
        t->items = popMark(at);
        spend(t->items.size() * sizeof(PickleRef), at);
        for (const auto &v : t->items)
            nest(*t, v, at);
        push(std::move(t));
    }
    void memoPut(std::size_t index, std::size_t at)
    {
        if (m_memo.size() >= m_limits.maxMemo)
            throw PickleFailure("pickle-too-large", "pickle memo grows beyond the limit", at);
        PickleRef value = top(at);
        auto [it, added] = m_memo.try_emplace(index);
        if (added)
            spend(kMemoEntryCost, at);
        it->second = std::move(value);
        if (index == m_memoNext)
            ++m_memoNext;
    }
    void memoGet(std::size_t index, std::size_t at)
    {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            throw PickleFailure("pickle-corrupt", "pickle refers to memo entry " + std::to_string(index) + " that was never stored", at);
        push(it->second);
    }
public:
    // After a truncation: every MARK still open belongs to the container below it (a dict's
    // SETITEMS or a list's APPENDS that never came), so each is closed with the items read so far,
    // innermost first. What sits on a MARK that is not under a dict or list (an unfinished tuple)
    // is dropped. The value at the bottom of the stack is what the pickle was building.
    PickleRef salvage()
    {
        // A dict or list made by the last opcodes and still empty was waiting for its MARK and items.
        if (!m_stack.empty() && m_stack.back() == m_lastContainer && m_lastContainer->items.empty()
            && m_lastContainer->entries.empty())
            m_lastContainer->partial = true;
        while (!m_marks.empty()) {
            const std::size_t mark = m_marks.back();
            m_marks.pop_back();
            std::vector<PickleRef> items(std::make_move_iterator(m_stack.begin() + std::ptrdiff_t(mark)),
                                         std::make_move_iterator(m_stack.end()));
            m_stack.resize(mark);
            if (m_stack.empty())
                break;
            PickleValue &target = *m_stack.back();
            if (target.type == PickleValue::Type::Dict) {
                for (std::size_t i = 0; i + 1 < items.size(); i += 2) {
                    nest(target, items[i], pos());
                    nest(target, items[i + 1], pos());
                    target.entries.emplace_back(std::move(items[i]), std::move(items[i + 1]));
                }
                target.partial = true;
            } else if (target.type == PickleValue::Type::List) {
                for (auto &v : items) {
                    nest(target, v, pos());
                    target.items.push_back(std::move(v));
                }
                target.partial = true;
            }
        }
        if (m_stack.empty())
            return nullptr;
        // A container the data ended in without a MARK (APPEND/SETITEM style) is unfinished too.
        if (m_stack.size() > 1 && (m_stack.front()->type == PickleValue::Type::Dict || m_stack.front()->type == PickleValue::Type::List))
            m_stack.front()->partial = true;
        return m_stack.front();
    }

private:
    PickleRef finish(std::size_t at)
    {
        if (m_stack.size() != 1 || !m_marks.empty())
            throw PickleFailure("pickle-corrupt", "pickle STOP with an unbalanced stack (corrupt file)", at);
        return m_stack.back();
    }

    // An unordered_map node (the key, the reference, the next pointer, the cached hash) and its bucket.
    static constexpr std::uint64_t kMemoEntryCost = 2 * sizeof(std::size_t) + sizeof(PickleRef) + 2 * sizeof(void *);

    PickleInput &m_in;
    RestrictedUnpickler::Limits m_limits;
    bool m_salvaging = false;
    std::uint64_t m_memory = 0; // estimated bytes of the values made so far
    std::size_t m_op = 0; // offset of the opcode being run
    PickleRef m_lastContainer; // the dict or list made last (salvage() needs to know if it was still empty)
    std::size_t m_values = 0;
    std::size_t m_memoNext = 0;
    std::vector<PickleRef> m_stack;
    std::vector<std::size_t> m_marks;
    std::unordered_map<std::size_t, PickleRef> m_memo;
    Document m_doc; // values made so far; cleared (cycles broken) if the load fails
};

} // namespace

PickleRef decodePickle(PickleInput &in, const RestrictedUnpickler::Limits &limits, RestrictedUnpickler::Error &error)
{
    try {
        PickleMachine m(in, limits);
        return m.adopt(m.run());
    } catch (const PickleFailure &f) {
        error = {f.code, f.what(), static_cast<std::int64_t>(f.offset)};
    } catch (const std::bad_alloc &) {
        error = {"pickle-out-of-memory", "pickle needs more memory than is available", -1};
    }
    return nullptr;
}

PickleRef decodePicklePartial(PickleInput &in, const RestrictedUnpickler::Limits &limits, RestrictedUnpickler::Error &error)
{
    try {
        PickleMachine m(in, limits, true);
        try {
            return m.adopt(m.run());
        } catch (const PickleFailure &f) {
            error = {f.code, f.what(), static_cast<std::int64_t>(f.offset)};
            if (std::string_view(f.code) != "pickle-truncated")
                return nullptr;
        }
        PickleRef root = m.salvage();
        return root ? m.adopt(std::move(root)) : nullptr;
    } catch (const PickleFailure &f) {
        error = {f.code, f.what(), static_cast<std::int64_t>(f.offset)};
    } catch (const std::bad_alloc &) {
        error = {"pickle-out-of-memory", "pickle needs more memory than is available", -1};
    }
    return nullptr;
}

} // namespace rs
