#pragma once
// Escaping for names that come from profiled programs (function, module,
// file and thread names, commands, paths: any bytes) before they reach a
// person: a terminal, or a pull-request comment rendered as GitHub markdown.
//
// Valid UTF-8 without control characters passes through unchanged, so
// ordinary names (non-ASCII identifiers included) look as they always did.

#include <string>
#include <string_view>

namespace swprof {

// Length of the well-formed UTF-8 sequence at text[i] (1 to 4), or 0 when
// the byte there starts none (RFC 3629: no overlongs, no surrogates, nothing
// above U+10FFFF). i < text.size().
size_t utf8_sequence_length(std::string_view text, size_t i);

// True when terminal_safe(text) would change nothing.
bool is_terminal_safe(std::string_view text);

// One line of text that a terminal shows as it is: every C0 control byte
// (0x00-0x1f, tab and newline included), DEL (0x7f), every C1 control
// (U+0080-U+009F, bytes c2 80-c2 9f) and every byte that is not part of
// valid UTF-8 is written as "\xNN", one per byte, lower-case hex. So no
// escape sequence (clear the screen, set the window title, ...) and no line
// break can come out of a name. A backslash itself is left alone.
std::string terminal_safe(std::string_view text);

// A markdown code span that renders `text` literally (CommonMark 6.1): its
// fence is one backquote longer than the longest run of backquotes in the
// text, padded with a space when the text starts or ends with a backquote
// (or with a space), control bytes made terminal_safe. Inside a code span
// no markdown, HTML, image or link is interpreted.
std::string markdown_code(std::string_view text);

// markdown_code for a cell of a GitHub table: '|' would end the cell even
// inside a code span, so it is written "\|", which the table parser turns
// back into '|' before the span is read.
std::string markdown_table_code(std::string_view text);

// Plain markdown text that renders literally: control bytes made
// terminal_safe, then a backslash before each of \ ` * _ [ ] < > | ! & ~
// (the characters that start emphasis, code, links, images, HTML, entities,
// strikethrough or table cells). Other punctuation stays as it is. GitHub may
// still turn a bare URL or an @name into a link; put anything that a
// profiled program controls in markdown_code instead.
std::string markdown_text(std::string_view text);

}  // namespace swprof
