#include "flightrecorderimporter.h"

#include "flightrecorderreader.h"
#include "pickle/restrictedunpickler.h"
#include "snapshot/snapshotimporter.h"

#include <nlohmann/json.hpp>

namespace rs {

namespace {

constexpr std::size_t kMaxDump = std::size_t(2) << 30;
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

PickleRef fromJson(const nlohmann::json &j, int depth)
{
    auto v = std::make_shared<PickleValue>();
    using T = nlohmann::json::value_t;
    switch (j.type()) {
    case T::null:
    case T::discarded:
    case T::binary: v->type = PickleValue::Type::None; break;
    case T::boolean:
        v->type = PickleValue::Type::Bool;
        v->boolean = j.get<bool>();
        break;
    case T::number_integer:
        v->type = PickleValue::Type::Int;
        v->integer = j.get<std::int64_t>();
        break;
    case T::number_unsigned:
        v->type = PickleValue::Type::Int;
        v->integer = static_cast<std::int64_t>(j.get<std::uint64_t>());
        break;
    case T::number_float:
        v->type = PickleValue::Type::Float;
        v->real = j.get<double>();
        break;
    case T::string:
        v->type = PickleValue::Type::String;
        v->text = j.get<std::string>();
        break;
    case T::array:
        v->type = PickleValue::Type::List;
        if (depth < kMaxJsonDepth)
            for (const auto &x : j)
                v->items.push_back(fromJson(x, depth + 1));
        break;
    case T::object:
        v->type = PickleValue::Type::Dict;
        if (depth < kMaxJsonDepth)
            for (auto it = j.begin(); it != j.end(); ++it) {
                auto key = std::make_shared<PickleValue>();
                key->type = PickleValue::Type::String;
                key->text = it.key();
                v->entries.emplace_back(std::move(key), fromJson(it.value(), depth + 1));
            }
        break;
    }
    return v;
}

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
    std::string data;
    std::string error;
    if (!readWhole(in, ctx, data, kMaxDump, &error)) {
        out.error("fr-unreadable", error, -1, in.position());
        return;
    }
    if (ctx.isCancelled())
        return;
    PickleRef root;
    bool truncated = false;
    if (isPickle(data)) {
        RestrictedUnpickler::Error failure;
        root = RestrictedUnpickler::loadPartial(data, RestrictedUnpickler::Limits(), failure);
        if (!failure.code.empty()) {
            truncated = root != nullptr;
            out.error(failure.code,
                      truncated ? failure.message + "; the entries complete before that point are kept" : failure.message,
                      -1, failure.offset);
        }
    } else {
        try {
            root = fromJson(nlohmann::json::parse(data), 0);
        } catch (const nlohmann::json::parse_error &e) {
            out.error("fr-json-invalid", std::string("the JSON dump does not parse: ") + e.what(), -1,
                      static_cast<std::int64_t>(e.byte));
        }
    }
    data.clear();
    data.shrink_to_fit();
    if (root)
        FlightRecorderReader(out).read(*root, truncated);
}

} // namespace rs
