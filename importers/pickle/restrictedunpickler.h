#pragma once
// A pickle reader for data-only pickles (CUDA allocator snapshots, flight-recorder dumps). It
// implements the opcodes such files use (protocols 2–5: containers, ints of any width, floats,
// strings, memo) and never resolves a global, builds an object or calls anything: a pickle that
// asks for one is rejected with the opcode and its byte offset. Limits bound what a hostile file
// can make it allocate.
//
// The pickle is pulled from its source in chunks of about 1 MiB (an InputStream, or bytes already in
// memory), never held whole: only the decoded values stay. Every length a pickle announces (strings,
// bytes, FRAME, LONG4) is weighed against the limits and against what the source can still hold
// before anything is allocated, and a string is read in pieces, so a cut file that promises a huge
// one costs only the bytes it really has. Offsets are decompressed byte offsets from the start.

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rs {

class ImportContext;
class InputStream;
struct PickleValue;
using PickleRef = std::shared_ptr<PickleValue>;

/// A decoded value. Containers hold shared references because the memo may share them.
struct PickleValue {
    enum class Type : std::uint8_t { None, Bool, Int, BigInt, Float, String, Bytes, List, Tuple, Dict };
    // The small members first, so that they share one word: snapshots decode millions of values.
    Type type = Type::None;
    bool partial = false;        ///< a container that loadPartial() closed early because the data ended inside it
    bool boolean = false;        ///< Type::Bool
    std::uint32_t depth = 0;     ///< containers nested below this one (0 for scalars and empty containers)
    std::int64_t offset = -1;    ///< byte offset of the opcode that made the value (-1 when not from a pickle)
    std::int64_t integer = 0;    ///< Type::Int; Type::BigInt keeps the low 64 bits here too
    double real = 0;             ///< Type::Float
    std::string text;            ///< Type::String / Type::Bytes
    std::vector<PickleRef> items;                        ///< List / Tuple
    std::vector<std::pair<PickleRef, PickleRef>> entries; ///< Dict, in insertion order

    bool isInt() const { return type == Type::Int || type == Type::BigInt || type == Type::Bool; }
    bool isList() const { return type == Type::List || type == Type::Tuple; }
    /// The value of string key `key` in a dict, or nullptr.
    const PickleValue *get(std::string_view key) const;
    /// Integer value of `key` (ints and bools), or `fallback`.
    std::int64_t intOr(std::string_view key, std::int64_t fallback) const;
    /// String value of `key`, or "".
    std::string_view stringOr(std::string_view key) const;
};

class RestrictedUnpickler
{
public:
    struct Limits {
        std::size_t maxValues = 200'000'000; ///< values created in total
        std::size_t maxString = 256u << 20;  ///< bytes in one string
        std::size_t maxMemo = 100'000'000;   ///< memo entries
        std::size_t maxStack = 10'000'000;   ///< values on the stack at once
        std::size_t maxDepth = 1000;         ///< containers nested in each other (snapshots need < 12)
        /// Decompressed bytes read at most; a pickle that goes on past them is pickle-too-large.
        std::uint64_t maxBytes = std::numeric_limits<std::uint64_t>::max();
        /// Memory the decoded values may take, as counted while they are made (value records, string
        /// bytes, container capacity, memo entries): what bounds a small file of many tiny values.
        /// This much is always allowed; past it, a budget in proportion to the input (below).
        std::uint64_t maxMemory = std::uint64_t(1) << 30;
        /// Past maxMemory, decoded values may take this many bytes per decompressed byte read…
        /// (real snapshots take 9-17: a 500 MB snapshot decodes to about 5 GB, as in Python)
        std::uint64_t memoryPerByte = 16;
        /// …and this many per stored (compressed) byte read, so a decompression bomb stays at
        /// maxMemory (real snapshots compress less than 20:1).
        std::uint64_t memoryPerStoredByte = 320;
    };

    /// Where a load pulls its bytes from. `read` fills up to n bytes and returns how many (0: the
    /// end). `sizeBound` is the most bytes the source can hold from its start (exact for bytes in
    /// memory, the file size for an uncompressed file): a FRAME or string announcing more fails at
    /// once. `poll` runs after each chunk (progress); returning false cancels (pickle-cancelled).
    struct Source {
        std::function<std::size_t(char *dst, std::size_t n)> read;
        std::uint64_t sizeBound = std::numeric_limits<std::uint64_t>::max();
        std::function<bool()> poll;
        /// Bytes of the file consumed so far (compressed bytes for .gz/.zst); null: as many as read.
        std::function<std::uint64_t()> storedBytes;
    };
    /// A source over `in` from its current position: progress goes to `ctx`, and its cancel flag stops the load.
    static Source fromStream(InputStream &in, ImportContext &ctx);

    /// Why a load failed: a stable kebab-case code (pickle-truncated, pickle-bad-frame,
    /// pickle-forbidden, pickle-unknown-opcode, pickle-corrupt, pickle-too-deep, pickle-too-large,
    /// pickle-out-of-memory, pickle-cancelled), a sentence, and the byte offset of the opcode at fault (-1 if none).
    struct Error {
        std::string code;
        std::string message;
        std::int64_t offset = -1;
    };

    /// Decodes `data`. On failure returns nullptr and sets `error` to a sentence with the byte offset.
    static PickleRef load(std::string_view data, std::string *error, std::int64_t *errorOffset = nullptr);
    static PickleRef load(std::string_view data, const Limits &limits, Error &error);
    static PickleRef load(const Source &source, const Limits &limits, Error &error);
    /// Like load(), but a pickle that ends early (pickle-truncated) still yields what was read: the
    /// containers still open are closed where the data ends and marked `partial` (a dict drops a key
    /// left without its value), and `error` says where it ended. A protocol-4 FRAME that announces more
    /// bytes than remain is read up to the end instead of failing as pickle-bad-frame. Other failures
    /// return nullptr.
    static PickleRef loadPartial(std::string_view data, const Limits &limits, Error &error);
    static PickleRef loadPartial(const Source &source, const Limits &limits, Error &error);
};

} // namespace rs
