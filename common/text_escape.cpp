#include "common/text_escape.h"

#include <algorithm>
#include <cstdint>

namespace swprof {
namespace {

uint8_t byte_at(std::string_view text, size_t i) { return static_cast<uint8_t>(text[i]); }

// How many bytes at text[i] a terminal may show as they are (a printable
// character), or 0 when the byte at i must be escaped.
size_t printable_length(std::string_view text, size_t i) {
  const uint8_t b0 = byte_at(text, i);
  if (b0 < 0x20 || b0 == 0x7f) return 0;
  const size_t length = utf8_sequence_length(text, i);
  if (length == 2 && b0 == 0xc2 && byte_at(text, i + 1) < 0xa0) return 0;  // C1: U+0080-U+009F
  return length;
}

void append_hex_escape(std::string& out, uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out += "\\x";
  out += kDigits[b >> 4];
  out += kDigits[b & 15];
}

size_t longest_backquote_run(std::string_view text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return longest;
}

std::string code_span(const std::string& content) {
  if (content.empty()) return "` `";  // "``" would be two literal backquotes
  const std::string fence(longest_backquote_run(content) + 1, '`');
  // CommonMark strips one space from each end when both ends have one, and a
  // backquote next to the fence would lengthen it: pad with a space then.
  const bool pad = content.front() == '`' || content.back() == '`' ||
                   (content.front() == ' ' && content.back() == ' ' &&
                    content.find_first_not_of(' ') != std::string::npos);
  const char* space = pad ? " " : "";
  return fence + space + content + space + fence;
}

}  // namespace

size_t utf8_sequence_length(std::string_view text, size_t i) {
  const uint8_t b0 = byte_at(text, i);
  if (b0 < 0x80) return 1;
  size_t length = 0;
  uint8_t lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    length = 2;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    length = 3;
    if (b0 == 0xe0) lo = 0xa0;
    if (b0 == 0xed) hi = 0x9f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    length = 4;
    if (b0 == 0xf0) lo = 0x90;
    if (b0 == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte_at(text, i + 1) < lo || byte_at(text, i + 1) > hi) return 0;
  for (size_t k = 2; k < length; ++k)
    if ((byte_at(text, i + k) & 0xc0) != 0x80) return 0;
  return length;
}

bool is_terminal_safe(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t length = printable_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

std::string terminal_safe(std::string_view text) {
  if (is_terminal_safe(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 16);
  for (size_t i = 0; i < text.size();) {
    const size_t length = printable_length(text, i);
    if (length == 0) {
      // A C1 control is two bytes; each is escaped on its own.
      const size_t bytes = utf8_sequence_length(text, i) == 2 ? 2 : 1;
      for (size_t k = 0; k < bytes; ++k) append_hex_escape(out, byte_at(text, i + k));
      i += bytes;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string markdown_code(std::string_view text) { return code_span(terminal_safe(text)); }

std::string markdown_table_code(std::string_view text) {
  std::string content;
  for (char c : terminal_safe(text)) {
    if (c == '|') content += '\\';
    content += c;
  }
  return code_span(content);
}

std::string markdown_text(std::string_view text) {
  std::string out;
  for (char c : terminal_safe(text)) {
    if (std::string_view("\\`*_[]<>|!&~").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace swprof
