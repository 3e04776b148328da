#include "flightrecorderimporter.h"

#include "flightrecorderreader.h"
#include "inputstream.h"
#include "pickle/restrictedunpickler.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <istream>
#include <streambuf>
#include <vector>

namespace rs {

namespace {

constexpr std::size_t kMaxDump = std::size_t(2) << 30;
// nlohmann's lexer keeps a string token twice and copies it into its error message, so a JSON
// string costs several times its length; a dump's longest strings are stack frames and names.
constexpr std::uint64_t kMaxJsonString = std::uint64_t(8) << 20;
// Flight-recorder values nest a handful of levels (dump → entries → entry → sizes → shape).
constexpr int kMaxJsonDepth = 64;

// A dict key as the pickle writes it: BINUNICODE (protocol 2, the C++ Pickler) or SHORT_BINUNICODE
// (protocol 4 and later), each with its length in front, so a word inside a longer string is no key.
bool hasPickleKey(std::string_view head, std::string_view key)
{
    std::string binunicode("X");
    for (int i = 0; i < 4; ++i)
        binunicode += static_cast<char>((key.size() >> (8 * i)) & 0xff);
    binunicode += key;
    std::string shortUnicode("\x8c");
    shortUnicode += static_cast<char>(key.size());
    shortUnicode += key;
    return head.find(binunicode) != std::string_view::npos || head.find(shortUnicode) != std::string_view::npos;
}

bool hasJsonKey(std::string_view head, std::string_view key)
{
    std::string quoted = "\"";
    quoted += key;
    quoted += "\":";
    if (head.find(quoted) != std::string_view::npos)
        return true;
    quoted.back() = ' ';
    return head.find(quoted) != std::string_view::npos;
}

// The keys a dump has, whichever encoding: entries with pg_config or version (a pickle always has
// all three), or pg_config with pg_status (a JSON dump of an empty ring buffer has no entries).
template <typename HasKey>
bool looksLikeDump(std::string_view head, HasKey has)
{
    const bool entries = has(head, "entries");
    const bool config = has(head, "pg_config");
    return (entries && (config || has(head, "version") || has(head, "collective_seq_id")))
        || (config && has(head, "pg_status"));
}

// The value tree straight from nlohmann's SAX events, with no JSON document in between, and with
// the unpickler's memory budget. Containers deeper than kMaxJsonDepth are kept empty. Object keys
// end sorted, a repeated key keeping its last value, as the JSON document used to give them, so
// the reader sees what it always saw.
class JsonTree final : public nlohmann::json_sax<nlohmann::json>
{
public:
    explicit JsonTree(std::uint64_t budget) : m_budget(budget) {}

    PickleRef root() const { return m_root; }
    bool overBudget() const { return m_overBudget; }
    /// The parser's complaint, when it stopped on one.
    const std::string &error() const { return m_error; }
    std::size_t errorByte() const { return m_errorByte; }

    bool null() override { return scalar(PickleValue::Type::None) != nullptr; }
    bool boolean(bool b) override { return set(scalar(PickleValue::Type::Bool), [b](PickleValue &v) { v.boolean = b; }); }
    bool number_integer(number_integer_t i) override
    {
        return set(scalar(PickleValue::Type::Int), [i](PickleValue &v) { v.integer = i; });
    }
    bool number_unsigned(number_unsigned_t u) override
    {
        return set(scalar(PickleValue::Type::Int), [u](PickleValue &v) { v.integer = static_cast<std::int64_t>(u); });
    }
    bool number_float(number_float_t d, const string_t &) override
    {
        return set(scalar(PickleValue::Type::Float), [d](PickleValue &v) { v.real = d; });
    }
    bool string(string_t &text) override
    {
        if (m_skip > 0)
            return true;
        if (!spend(text.size()))
            return false;
        return set(scalar(PickleValue::Type::String), [&text](PickleValue &v) { v.text = std::move(text); });
    }
    bool binary(binary_t &) override { return scalar(PickleValue::Type::None) != nullptr; }
    bool start_object(std::size_t) override { return open(PickleValue::Type::Dict); }
    bool key(string_t &text) override
    {
        if (m_skip > 0)
            return true;
        if (!spend(kValueCost + text.size()))
            return false;
        m_key = std::make_shared<PickleValue>();
        m_key->type = PickleValue::Type::String;
        m_key->text = std::move(text);
        return true;
    }
    bool end_object() override
    {
        if (m_skip > 0) {
            --m_skip;
            return true;
        }
        auto &entries = m_open.back()->entries;
        std::stable_sort(entries.begin(), entries.end(), [](const auto &a, const auto &b) { return a.first->text < b.first->text; });
        std::vector<std::pair<PickleRef, PickleRef>> unique;
        for (auto &e : entries) {
            if (!unique.empty() && unique.back().first->text == e.first->text)
                unique.back() = std::move(e);
            else
                unique.push_back(std::move(e));
        }
        entries = std::move(unique);
        m_open.pop_back();
        return true;
    }
    bool start_array(std::size_t) override { return open(PickleValue::Type::List); }
    bool end_array() override
    {
        if (m_skip > 0)
            --m_skip;
        else
            m_open.pop_back();
        return true;
    }
    bool parse_error(std::size_t position, const std::string &, const nlohmann::detail::exception &e) override
    {
        m_error = e.what();
        m_errorByte = position;
        return false;
    }

private:
    // As the unpickler counts: the value, make_shared's counts, the parent's slot.
    static constexpr std::uint64_t kValueCost = sizeof(PickleValue) + 16 + 2 * sizeof(PickleRef);

    bool spend(std::uint64_t bytes)
    {
        m_used += bytes;
        m_overBudget = m_used > m_budget;
        return !m_overBudget;
    }
    template <typename F>
    bool set(const PickleRef &v, F fill)
    {
        if (v)
            fill(*v);
        return v || m_skip > 0;
    }
    // Makes a value and hangs it where it belongs; nullptr when skipped or over budget.
    PickleRef scalar(PickleValue::Type t)
    {
        if (m_skip > 0 || !spend(kValueCost))
            return nullptr;
        auto v = std::make_shared<PickleValue>();
        v->type = t;
        if (m_open.empty()) {
            m_root = v;
        } else if (m_open.back()->type == PickleValue::Type::Dict) {
            m_open.back()->entries.emplace_back(std::move(m_key), v);
        } else {
            m_open.back()->items.push_back(v);
        }
        return v;
    }
    bool open(PickleValue::Type t)
    {
        if (m_skip > 0) {
            ++m_skip;
            return true;
        }
        const PickleRef v = scalar(t);
        if (!v)
            return false;
        if (m_open.size() < std::size_t(kMaxJsonDepth))
            m_open.push_back(v.get());
        else
            m_skip = 1;
        return true;
    }

    std::uint64_t m_budget;
    std::uint64_t m_used = 0;
    bool m_overBudget = false;
    PickleRef m_root;
    PickleRef m_key;                   // an object's key until its value comes
    std::vector<PickleValue *> m_open; // containers being filled, innermost last
    std::size_t m_skip = 0;            // containers open below the depth limit
    std::string m_error;
    std::size_t m_errorByte = 0;
};

// JSON text for nlohmann's parser straight from the stream, a chunk at a time, so the text is never
// held whole. It ends at the byte cap, or at a string longer than kMaxJsonString: the parser builds
// each string whole, so that is where a hostile file would make it allocate.
class StreamText final : public std::streambuf
{
public:
    StreamText(InputStream &in, ImportContext &ctx, std::uint64_t cap, std::uint64_t maxString)
        : m_in(in), m_ctx(ctx), m_cap(cap), m_maxString(maxString), m_buf(1 << 20)
    {
    }
    /// Bytes the parser has taken so far.
    std::uint64_t consumed() const { return m_read - std::uint64_t(egptr() - gptr()); }
    /// Why the text ended early ("" when it did not), and at which byte.
    const std::string &stopped() const { return m_stopped; }
    std::uint64_t stoppedAt() const { return m_stoppedAt; }

protected:
    int_type underflow() override
    {
        if (gptr() < egptr())
            return traits_type::to_int_type(*gptr());
        if (!m_stopped.empty() || m_ctx.isCancelled())
            return traits_type::eof();
        if (m_read >= m_cap) {
            char probe = 0;
            if (m_in.read(&probe, 1) == 1)
                stop("file is larger than " + std::to_string(m_cap >> 20) + " MiB once decompressed; not read past that", m_cap);
            return traits_type::eof();
        }
        std::size_t n = m_in.read(m_buf.data(), std::size_t(std::min<std::uint64_t>(m_buf.size(), m_cap - m_read)));
        m_ctx.reportProgress(m_in.compressedBytesRead(), m_in.compressedSize());
        n = scanStrings(n);
        m_read += n;
        if (n == 0)
            return traits_type::eof();
        setg(m_buf.data(), m_buf.data(), m_buf.data() + n);
        return traits_type::to_int_type(*gptr());
    }

private:
    // Follows string boundaries (quotes, backslash escapes) through the new bytes; returns how many
    // of them to hand on, fewer when a string grows past the limit.
    std::size_t scanStrings(std::size_t n)
    {
        for (std::size_t i = 0; i < n; ++i) {
            const char c = m_buf[i];
            if (!m_inString) {
                m_inString = c == '"';
                m_run = 0;
                continue;
            }
            if (m_escaped)
                m_escaped = false;
            else if (c == '\\')
                m_escaped = true;
            else if (c == '"')
                m_inString = false;
            if (m_inString && ++m_run > m_maxString) {
                stop("a JSON string is longer than " + std::to_string(m_maxString >> 20) + " MiB; no dump holds one that long",
                     m_read + i);
                return i;
            }
        }
        return n;
    }
    void stop(std::string why, std::uint64_t at)
    {
        m_stopped = std::move(why);
        m_stoppedAt = at;
    }

    InputStream &m_in;
    ImportContext &m_ctx;
    std::uint64_t m_cap;
    std::uint64_t m_maxString;
    std::uint64_t m_read = 0; // bytes handed to the parser
    bool m_inString = false;
    bool m_escaped = false;
    std::uint64_t m_run = 0;   // bytes of the string being read
    std::string m_stopped;
    std::uint64_t m_stoppedAt = 0;
    std::vector<char> m_buf;
};

bool isJson(std::string_view data)
{
    std::size_t i = data.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    while (i < data.size() && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        ++i;
    return i < data.size() && data[i] == '{';
}

bool isPickle(std::string_view data)
{
    return data.size() >= 3 && static_cast<unsigned char>(data[0]) == 0x80 && static_cast<unsigned char>(data[1]) >= 2
        && static_cast<unsigned char>(data[1]) <= 5;
}

} // namespace

int FlightRecorderImporter::sniff(std::string_view head, std::string_view) const
{
    if (isPickle(head)) {
        // Allocator snapshots are pickles too; their keys belong to SnapshotImporter.
        if (hasPickleKey(head, "segments") || hasPickleKey(head, "device_traces"))
            return 0;
        return looksLikeDump(head, hasPickleKey) ? 92 : 0;
    }
    if (isJson(head)) {
        if (head.find("\"traceEvents\"") != std::string_view::npos || head.find("\"schemaVersion\"") != std::string_view::npos)
            return 0;
        return looksLikeDump(head, hasJsonKey) ? 92 : 0;
    }
    return 0;
}

void FlightRecorderImporter::import(InputStream &in, SourceBuilder &out, ImportContext &ctx) const
{
    // Both encodings are decoded as they are read: the dump itself is never held whole.
    PickleRef root;
    bool truncated = false;
    if (isPickle(in.peek(3))) {
        RestrictedUnpickler::Limits limits;
        limits.maxBytes = kMaxDump;
        RestrictedUnpickler::Error failure;
        root = RestrictedUnpickler::loadPartial(RestrictedUnpickler::fromStream(in, ctx), limits, failure);
        if (ctx.isCancelled())
            return;
        if (!failure.code.empty()) {
            truncated = root != nullptr;
            out.error(failure.code,
                      truncated ? failure.message + "; the entries complete before that point are kept" : failure.message,
                      -1, failure.offset);
        }
    } else {
        const RestrictedUnpickler::Limits limits;
        StreamText text(in, ctx, kMaxDump, kMaxJsonString);
        std::istream stream(&text);
        JsonTree tree(limits.maxMemory);
        nlohmann::json::sax_parse(stream, &tree);
        if (ctx.isCancelled())
            return;
        if (!text.stopped().empty())
            out.error("fr-unreadable", text.stopped(), -1, static_cast<std::int64_t>(text.stoppedAt()));
        else if (tree.overBudget())
            out.error("fr-json-too-large", "decoding the JSON dump would take more than " + std::to_string(limits.maxMemory >> 20)
                          + " MiB of memory; no dump needs that much", -1, static_cast<std::int64_t>(text.consumed()));
        else if (!tree.error().empty())
            out.error("fr-json-invalid", "the JSON dump does not parse: " + tree.error(), -1, static_cast<std::int64_t>(tree.errorByte()));
        else
            root = tree.root();
    }
    if (root)
        FlightRecorderReader(out).read(*root, truncated);
}

} // namespace rs
