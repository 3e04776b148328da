#include "restrictedunpickler.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

namespace rs {

const PickleValue *PickleValue::get(std::string_view key) const
{
    if (type != Type::Dict)
        return nullptr;
    for (const auto &[k, v] : entries)
        if (k && k->type == Type::String && k->text == key)
            return v.get();
    return nullptr;
}

std::int64_t PickleValue::intOr(std::string_view key, std::int64_t fallback) const
{
    const PickleValue *v = get(key);
    if (!v)
        return fallback;
    if (v->type == Type::Bool)
        return v->boolean ? 1 : 0;
    return v->isInt() ? v->integer : fallback;
}

std::string_view PickleValue::stringOr(std::string_view key) const
{
    const PickleValue *v = get(key);
    return v && v->type == Type::String ? std::string_view(v->text) : std::string_view();
}

namespace {

struct Failure : std::runtime_error {
    Failure(const char *id, const std::string &what, std::size_t at) : std::runtime_error(what), code(id), offset(at) {}
    const char *code;
    std::size_t offset;
};

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

class Machine
{
public:
    /// `salvaging`: a FRAME longer than the data is read on to where the data really ends (loadPartial).
    Machine(std::string_view data, const RestrictedUnpickler::Limits &limits, bool salvaging = false)
        : m_data(data), m_limits(limits), m_salvaging(salvaging)
    {
    }
    /// Hands the values over: the returned reference keeps the whole document alive.
    PickleRef adopt(PickleRef root)
    {
        auto doc = std::make_shared<Document>();
        doc->all = std::move(m_doc.all);
        return PickleRef(doc, root.get());
    }

    PickleRef run()
    {
        for (;;) {
            const std::size_t at = m_pos;
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
            case 0x8d: push(string(static_cast<std::size_t>(le(8, false)), PickleValue::Type::String, at)); break;
            case 'U': push(string(static_cast<unsigned char>(byte()), PickleValue::Type::String, at)); break; // SHORT_BINSTRING
            case 'T': push(string(static_cast<std::size_t>(le(4, false)), PickleValue::Type::String, at)); break; // BINSTRING
            case 'C': push(string(static_cast<unsigned char>(byte()), PickleValue::Type::Bytes, at)); break; // SHORT_BINBYTES
            case 'B': push(string(static_cast<std::size_t>(le(4, false)), PickleValue::Type::Bytes, at)); break; // BINBYTES
            case 0x8e: push(string(static_cast<std::size_t>(le(8, false)), PickleValue::Type::Bytes, at)); break; // BINBYTES8
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
                throw Failure("pickle-forbidden", std::string("pickle asks to ") + forbiddenWhat(op)
                                  + "; only plain data (dicts, lists, strings, numbers) is read, so the file is rejected",
                              at);
            default: {
                char buf[64];
                std::snprintf(buf, sizeof buf, "unsupported pickle opcode 0x%02x", op);
                throw Failure("pickle-unknown-opcode", buf, at);
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

    char byte()
    {
        if (m_pos >= m_data.size())
            throw Failure("pickle-truncated", "pickle ends early (truncated file)", m_pos);
        return m_data[m_pos++];
    }
    std::string_view take(std::size_t n)
    {
        if (n > m_data.size() - m_pos)
            throw Failure("pickle-truncated", "pickle ends early (truncated file)", m_pos);
        const auto s = m_data.substr(m_pos, n);
        m_pos += n;
        return s;
    }
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

    // FRAME only announces how many bytes follow, but a length past the end of the file means the
    // file was cut or is not what it claims; saying so beats failing later at a random opcode.
    void frame(std::size_t at)
    {
        const auto n = static_cast<std::uint64_t>(le(8, false));
        if (n > m_data.size() - m_pos && !m_salvaging)
            throw Failure("pickle-bad-frame",
                          "pickle FRAME announces " + std::to_string(n) + " bytes but only "
                              + std::to_string(m_data.size() - m_pos) + " remain (truncated or corrupt file)",
                          at);
    }
    void mark(std::size_t at)
    {
        if (m_marks.size() >= m_limits.maxDepth)
            throw Failure("pickle-too-deep", "pickle opens more than " + std::to_string(m_limits.maxDepth)
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
            throw Failure("pickle-too-deep", "pickle nests containers more than " + std::to_string(m_limits.maxDepth)
                                                 + " levels deep; no snapshot nests that deep",
                          at);
        parent.depth = std::max(parent.depth, d);
    }

    PickleRef make(PickleValue::Type t)
    {
        if (++m_values > m_limits.maxValues)
            throw Failure("pickle-too-large", "pickle holds more values than the limit allows", m_pos);
        auto v = std::make_shared<PickleValue>();
        v->type = t;
        v->offset = static_cast<std::int64_t>(m_op);
        m_doc.all.push_back(v);
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
            throw Failure("pickle-too-large", "pickle integer is implausibly long", at);
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
    PickleRef string(std::size_t n, PickleValue::Type t, std::size_t at)
    {
        if (n > m_limits.maxString)
            throw Failure("pickle-too-large", "pickle string is larger than the limit", at);
        auto v = make(t);
        v->text = std::string(take(n));
        return v;
    }

    void push(PickleRef v)
    {
        if (m_stack.size() >= m_limits.maxStack)
            throw Failure("pickle-too-large", "pickle stack grows beyond the limit", m_pos);
        m_stack.push_back(std::move(v));
    }
    PickleRef pop(std::size_t at)
    {
        if (m_stack.size() <= (m_marks.empty() ? 0 : m_marks.back()))
            throw Failure("pickle-corrupt", "pickle pops from an empty stack (corrupt file)", at);
        auto v = std::move(m_stack.back());
        m_stack.pop_back();
        return v;
    }
    PickleRef top(std::size_t at)
    {
        if (m_stack.empty())
            throw Failure("pickle-corrupt", "pickle reads an empty stack (corrupt file)", at);
        return m_stack.back();
    }
    std::vector<PickleRef> popMark(std::size_t at)
    {
        if (m_marks.empty())
            throw Failure("pickle-corrupt", "pickle uses a MARK that was never set (corrupt file)", at);
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
            throw Failure("pickle-corrupt", t == PickleValue::Type::Dict ? "pickle sets an item on a value that is not a dict"
                                                       : "pickle appends to a value that is not a list",
                          at);
        return *m_stack.back();
    }
    void append(std::size_t at)
    {
        auto v = pop(at);
        PickleValue &list = container(PickleValue::Type::List, at);
        nest(list, v, at);
        list.items.push_back(std::move(v));
    }
    void appends(std::size_t at)
    {
        auto items = popMark(at);
        PickleValue &target = container(PickleValue::Type::List, at);
        for (const auto &v : items)
            nest(target, v, at);
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
        dict.entries.emplace_back(std::move(key), std::move(value));
    }
    void setItems(std::size_t at)
    {
        auto items = popMark(at);
        if (items.size() % 2)
            throw Failure("pickle-corrupt", "pickle SETITEMS has an odd number of values", at);
        PickleValue &target = container(PickleValue::Type::Dict, at);
        for (const auto &v : items)
            nest(target, v, at);
        auto &dict = target.entries;
        for (std::size_t i = 0; i < items.size(); i += 2)
            dict.emplace_back(std::move(items[i]), std::move(items[i + 1]));
    }
    void tuple(int n, std::size_t at)
    {
        auto t = make(PickleValue::Type::Tuple);
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
        for (const auto &v : t->items)
            nest(*t, v, at);
        push(std::move(t));
    }
    void memoPut(std::size_t index, std::size_t at)
    {
        if (m_memo.size() >= m_limits.maxMemo)
            throw Failure("pickle-too-large", "pickle memo grows beyond the limit", at);
        m_memo[index] = top(at);
        if (index == m_memoNext)
            ++m_memoNext;
    }
    void memoGet(std::size_t index, std::size_t at)
    {
        auto it = m_memo.find(index);
        if (it == m_memo.end())
            throw Failure("pickle-corrupt", "pickle refers to memo entry " + std::to_string(index) + " that was never stored", at);
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
                    nest(target, items[i], m_pos);
                    nest(target, items[i + 1], m_pos);
                    target.entries.emplace_back(std::move(items[i]), std::move(items[i + 1]));
                }
                target.partial = true;
            } else if (target.type == PickleValue::Type::List) {
                for (auto &v : items) {
                    nest(target, v, m_pos);
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
            throw Failure("pickle-corrupt", "pickle STOP with an unbalanced stack (corrupt file)", at);
        return m_stack.back();
    }

    std::string_view m_data;
    RestrictedUnpickler::Limits m_limits;
    std::size_t m_pos = 0;
    bool m_salvaging = false;
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

PickleRef RestrictedUnpickler::load(std::string_view data, std::string *error, std::int64_t *errorOffset)
{
    Error e;
    PickleRef v = load(data, Limits(), e);
    if (!v) {
        if (error)
            *error = e.message;
        if (errorOffset)
            *errorOffset = e.offset;
    }
    return v;
}

PickleRef RestrictedUnpickler::load(std::string_view data, const Limits &limits, Error &error)
{
    try {
        Machine m(data, limits);
        return m.adopt(m.run());
    } catch (const Failure &f) {
        error = {f.code, f.what(), static_cast<std::int64_t>(f.offset)};
    } catch (const std::bad_alloc &) {
        error = {"pickle-out-of-memory", "pickle needs more memory than is available", -1};
    }
    return nullptr;
}

PickleRef RestrictedUnpickler::loadPartial(std::string_view data, const Limits &limits, Error &error)
{
    try {
        Machine m(data, limits, true);
        try {
            return m.adopt(m.run());
        } catch (const Failure &f) {
            error = {f.code, f.what(), static_cast<std::int64_t>(f.offset)};
            if (std::string_view(f.code) != "pickle-truncated")
                return nullptr;
        }
        PickleRef root = m.salvage();
        return root ? m.adopt(std::move(root)) : nullptr;
    } catch (const Failure &f) {
        error = {f.code, f.what(), static_cast<std::int64_t>(f.offset)};
    } catch (const std::bad_alloc &) {
        error = {"pickle-out-of-memory", "pickle needs more memory than is available", -1};
    }
    return nullptr;
}

} // namespace rs
