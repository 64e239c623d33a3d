#pragma once
// Escaping for text that the flame graph page embeds: HTML text and attribute
// values, and JSON string literals placed inside a <script> element.
//
// Both kinds replace bytes that are not valid UTF-8 with U+FFFD, so names read
// from a profiled binary (any bytes) always give a well-formed page.

#include <string>
#include <string_view>

namespace swprof {

// & < > " ' as character references; safe in text and quoted attributes.
void append_html_escaped(std::string& out, std::string_view text);
std::string html_escape(std::string_view text);

// A JSON string literal, quotes included, that is also inert inside a
// <script> element: besides the JSON escapes (" \ and control characters) it
// writes < > & as \u003c \u003e \u0026, so no "</script", "<!--" or
// "<script" can appear, and U+2028 / U+2029 as \u2028 / \u2029, which older
// JavaScript parsers treat as line ends.
void append_script_json_string(std::string& out, std::string_view text);
std::string script_json_string(std::string_view text);

// The text with every byte that is not valid UTF-8 replaced by U+FFFD (what
// the functions above write for it).
std::string valid_utf8(std::string_view text);

// How many UTF-16 code units (JavaScript string length) valid UTF-8 text has.
size_t utf16_length(std::string_view valid_text);

}  // namespace swprof
