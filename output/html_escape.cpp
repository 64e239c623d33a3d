#include "output/html_escape.h"

#include <cstdint>

namespace swprof {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence starting at text[i] (1 to 4), or 0 when
// it is not one (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t length = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

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

void append_script_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto unicode_escape = [&out](unsigned code) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code >> shift) & 0xF];
  };
  out.reserve(out.size() + text.size() + 2);
  out += '"';
  for_each_utf8(
      text,
      [&](char c) {
        switch (c) {
          case '"': out += "\\\""; break;
          case '\\': out += "\\\\"; break;
          case '\n': out += "\\n"; break;
          case '\t': out += "\\t"; break;
          case '\r': out += "\\r"; break;
          case '<':
          case '>':
          case '&': unicode_escape(static_cast<unsigned char>(c)); break;
          default:
            if (static_cast<unsigned char>(c) < 0x20)
              unicode_escape(static_cast<unsigned char>(c));
            else
              out += c;
        }
      },
      [&](std::string_view sequence) {
        if (sequence == "\xE2\x80\xA8")
          unicode_escape(0x2028);
        else if (sequence == "\xE2\x80\xA9")
          unicode_escape(0x2029);
        else
          out += sequence;
      });
  out += '"';
}

std::string script_json_string(std::string_view text) {
  std::string out;
  append_script_json_string(out, text);
  return out;
}

std::string valid_utf8(std::string_view text) {
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
