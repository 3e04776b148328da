#pragma once
// Reads the JSON of a profiler memory-timeline export from an InputStream a megabyte at a time and
// hands its brackets and values to MemoryTimelineParser, keeping nothing else: strings are skipped
// as they stream by and numbers are converted where they lie. Written for this one format instead
// of using nlohmann's SAX parser because that one gathers every token whole (a 2 GiB string would
// take 2 GiB), stops the file at the first number out of double range, and reads at a fraction
// of the speed.
//
// The grammar is JSON's, plus the NaN, Infinity and -Infinity that Python's json module writes:
// those reach the parser as non-finite numbers (a warning for their row there, not the end of the
// file). Numbers past the double range are infinite, below it zero. A syntax error, a token longer
// than kMaxToken or a stop by the parser ends the reading with an error at its byte offset; what
// was read before it is kept. Progress is reported and the cancel flag polled after each chunk.

#include "importcontext.h"
#include "inputstream.h"
#include "memorytimelineparser.h"

#include <cstdint>
#include <string>

namespace rs {

class TimelineJsonReader
{
public:
    static constexpr std::size_t kChunk = std::size_t(1) << 20;
    /// No number or literal in a timeline comes near this.
    static constexpr std::size_t kMaxToken = 4096;

    TimelineJsonReader(InputStream &in, ImportContext &ctx, MemoryTimelineParser &parser, SourceBuilder &out);

    /// Reads to the end of the data, the first error, or a cancel.
    void read();
    bool cancelled() const { return m_cancelled; }

private:
    enum class Expect : std::uint8_t { Value, ValueOrClose, Key, KeyOrClose, Colon, CommaOrClose, End };

    bool feed(const char *p, std::size_t n);
    bool structure(char c, std::int64_t offset);
    bool token(std::string_view text, std::int64_t offset);
    void afterValue();
    bool fail(const std::string &message, std::int64_t offset);
    bool tooLong(std::int64_t offset);

    InputStream &m_in;
    ImportContext &m_ctx;
    MemoryTimelineParser &m_parser;
    SourceBuilder &m_out;
    std::string m_open; // the brackets open, innermost last ('[' or '{')
    Expect m_expect = Expect::Value;
    std::int64_t m_base = 0; // offset of the chunk being fed
    // A string or token that continues into the next chunk.
    bool m_inString = false;
    bool m_stringIsKey = false;
    bool m_escape = false;
    bool m_inToken = false;
    std::string m_token;
    std::int64_t m_tokenAt = 0;
    bool m_cancelled = false;
};

} // namespace rs
