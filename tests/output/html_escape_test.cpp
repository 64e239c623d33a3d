#include "output/html_escape.h"

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

using swprof::html_escape;
using swprof::script_json_string;

TEST_CASE("html escape: markup characters become references", "[escape]") {
  CHECK(html_escape("plain text") == "plain text");
  CHECK(html_escape("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)&gt;");
  CHECK(html_escape("a & b \"c\" 'd'") == "a &amp; b &quot;c&quot; &#39;d&#39;");
  CHECK(html_escape("caf\xC3\xA9 \xE2\x9C\x93") == "caf\xC3\xA9 \xE2\x9C\x93");
}

TEST_CASE("html escape: invalid UTF-8 becomes U+FFFD", "[escape]") {
  CHECK(html_escape("a\xFFz") == "a\xEF\xBF\xBDz");
  CHECK(html_escape("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");        // overlong '/'
  CHECK(html_escape("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  CHECK(html_escape("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");        // cut short
}

TEST_CASE("script json string: inert inside <script>, same value as JSON", "[escape]") {
  const std::string nasty = "</script><script>alert(2)</script> <!-- & \"q\" \\ \n\t\x01 \xE2\x80\xA8\xE2\x80\xA9 \xF0\x9F\x94\xA5";
  const std::string encoded = script_json_string(nasty);
  CHECK(encoded.find('<') == std::string::npos);
  CHECK(encoded.find('>') == std::string::npos);
  CHECK(encoded.find('&') == std::string::npos);
  CHECK(encoded.find("\xE2\x80\xA8") == std::string::npos);
  CHECK(encoded.find("\xE2\x80\xA9") == std::string::npos);
  CHECK(encoded.find('\n') == std::string::npos);
  CHECK(encoded.find("\\u003c/script\\u003e") != std::string::npos);
  CHECK(encoded.find("\\u2028\\u2029") != std::string::npos);
  CHECK(nlohmann::json::parse(encoded).get<std::string>() == nasty);
}

TEST_CASE("script json string: invalid UTF-8 becomes U+FFFD", "[escape]") {
  const std::string encoded = script_json_string("bad\xFF\xFE end");
  CHECK(nlohmann::json::parse(encoded).get<std::string>() == "bad\xEF\xBF\xBD\xEF\xBF\xBD end");
}
