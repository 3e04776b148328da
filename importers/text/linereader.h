#pragma once
// Streams a text input line by line with 1-based line numbers and byte offsets, for the text
// formats (memory_summary, nvidia-smi, NCCL and job logs). Handles \n and \r\n, a last line
// without a newline, NUL bytes (kept), and over-long lines (cut, reported once by the caller).

#include "importcontext.h"
#include "inputstream.h"
#include "sourcebuilder.h"

#include <string>
#include <string_view>
#include <vector>

namespace rs {

class LineReader
{
public:
    /// Lines longer than this are cut; truncated() tells the caller.
    static constexpr std::size_t kMaxLine = 1 << 20;

    LineReader(InputStream &in, ImportContext &ctx) : m_in(in), m_ctx(ctx) {}

    /// The next line without its terminator; false at the end of the stream or when cancelled.
    bool next(std::string_view &line);
    /// 1-based number of the line last returned.
    std::int64_t lineNumber() const { return m_lineNo; }
    /// Byte offset (decompressed) of the start of the line last returned.
    std::int64_t offset() const { return m_lineOffset; }
    /// True when the line last returned was longer than kMaxLine and was cut.
    bool truncated() const { return m_truncated; }

    /// Feeds every line of `in` to `parser.feed(line, lineNumber)`, reporting cut lines to `out`,
    /// then calls `parser.finish()`: the whole import loop of a line-oriented format.
    template <typename Parser>
    static void feedAll(InputStream &in, ImportContext &ctx, SourceBuilder &out, Parser &parser)
    {
        LineReader reader(in, ctx);
        std::string_view line;
        while (reader.next(line)) {
            if (reader.truncated())
                out.warning("line-too-long", "line longer than 1 MiB was cut", reader.lineNumber(), reader.offset());
            parser.feed(line, reader.lineNumber());
        }
        parser.finish();
    }

private:
    bool fill();

    InputStream &m_in;
    ImportContext &m_ctx;
    // Starts small (most inputs are small logs) and doubles for a long line up to kMaxBuffer.
    static constexpr std::size_t kMaxBuffer = 1 << 20;
    std::vector<char> m_buf = std::vector<char>(64 << 10);
    std::size_t m_begin = 0;
    std::size_t m_end = 0;
    std::int64_t m_bufOffset = 0; // stream offset of m_buf[0]
    std::int64_t m_lineNo = 0;
    std::int64_t m_lineOffset = 0;
    bool m_eof = false;
    bool m_truncated = false;
    std::string m_long; // assembly area for lines that do not fit the buffer
};

} // namespace rs
