#include "restrictedunpickler.h"

#include "importcontext.h"
#include "inputstream.h"
#include "picklemachine.h"

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

RestrictedUnpickler::Source RestrictedUnpickler::fromStream(InputStream &in, ImportContext &ctx)
{
    Source s;
    s.read = [&in](char *dst, std::size_t n) { return in.read(dst, n); };
    // Only an uncompressed file tells how much can follow; a compressed one may inflate to anything.
    if (in.compression() == Compression::None && in.compressedSize() >= in.position())
        s.sizeBound = static_cast<std::uint64_t>(in.compressedSize() - in.position());
    s.storedBytes = [&in] { return static_cast<std::uint64_t>(std::max<std::int64_t>(in.compressedBytesRead(), 0)); };
    s.poll = [&in, &ctx] {
        ctx.reportProgress(in.compressedBytesRead(), in.compressedSize());
        return !ctx.isCancelled();
    };
    return s;
}

PickleRef RestrictedUnpickler::load(std::string_view data, const Limits &limits, Error &error)
{
    PickleInput in(data, limits.maxBytes);
    return decodePickle(in, limits, error);
}

PickleRef RestrictedUnpickler::load(const Source &source, const Limits &limits, Error &error)
{
    PickleInput in(source, limits.maxBytes);
    return decodePickle(in, limits, error);
}

PickleRef RestrictedUnpickler::loadPartial(std::string_view data, const Limits &limits, Error &error)
{
    PickleInput in(data, limits.maxBytes);
    return decodePicklePartial(in, limits, error);
}

PickleRef RestrictedUnpickler::loadPartial(const Source &source, const Limits &limits, Error &error)
{
    PickleInput in(source, limits.maxBytes);
    return decodePicklePartial(in, limits, error);
}

} // namespace rs
