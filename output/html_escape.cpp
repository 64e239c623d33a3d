#include "output/html_escape.h"

#include "common/text_escape.h"

#include <algorithm>
#include <cstdint>

namespace swprof {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Calls ascii(c) for every ASCII byte and multi(sequence) for every other
// valid UTF-8 sequence, with U+FFFD standing in for invalid bytes.
template <typename Ascii, typename Multi>
void for_each_utf8(std::string_view text, Ascii ascii, Multi multi) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      multi(kReplacement);
      ++i;
    } else if (length == 1) {
      ascii(text[i]);
      ++i;
    } else {
      multi(text.substr(i, length));
      i += length;
    }
  }
}

}  // namespace

void append_html_escaped(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size());
  for_each_utf8(
      text,
      [&out](char c) {
        switch (c) {
          case '&': out += "&amp;"; break;
          case '<': out += "&lt;"; break;
          case '>': out += "&gt;"; break;
          case '"': out += "&quot;"; break;
          case '\'': out += "&#39;"; break;
          default: out += c;
        }
      },
      [&out](std::string_view sequence) { out += sequence; });
}

std::string html_escape(std::string_view text) {
  std::string out;
  append_html_escaped(out, text);
  return out;
}

namespace {

// Bytes a script-safe JSON string holds as they are.
bool plain_json_byte(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b >= 0x20 && b < 0x80 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&';
}

void append_unicode_escape(std::string& out, unsigned code) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xF];
}

// Writes the character at text[i], which is not a plain byte; returns the
// index after it.
size_t append_json_special(std::string& out, std::string_view text, size_t i) {
  const char c = text[i];
  const size_t length = utf8_sequence_length(text, i);
  if (length == 0) {
    out += kReplacement;
    return i + 1;
  }
  if (length > 1) {
    const std::string_view sequence = text.substr(i, length);
    if (sequence == "\xE2\x80\xA8")
      append_unicode_escape(out, 0x2028);
    else if (sequence == "\xE2\x80\xA9")
      append_unicode_escape(out, 0x2029);
    else
      out += sequence;
    return i + length;
  }
  switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default: append_unicode_escape(out, static_cast<unsigned char>(c));  // < > & and control characters
  }
  return i + 1;
}

}  // namespace

void append_script_json_string(std::string& out, std::string_view text) {
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    while (end < text.size() && plain_json_byte(text[end])) ++end;
    out.append(text.data() + i, end - i);
    if (end == text.size()) break;
    i = append_json_special(out, text, end);
  }
  out += '"';
}

std::string script_json_string(std::string_view text) {
  std::string out;
  append_script_json_string(out, text);
  return out;
}

std::string valid_utf8(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; }))
    return std::string(text);
  std::string out;
  out.reserve(text.size());
  for_each_utf8(text, [&out](char c) { out += c; }, [&out](std::string_view sequence) { out += sequence; });
  return out;
}

size_t utf16_length(std::string_view valid_text) {
  size_t units = 0;
  for (unsigned char c : valid_text) {
    if ((c & 0xC0) != 0x80) ++units;  // a character starts here
    if (c >= 0xF0) ++units;           // outside the BMP: a surrogate pair
  }
  return units;
}

}  // namespace swprof
