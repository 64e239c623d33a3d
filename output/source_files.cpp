#include "output/source_files.h"

#include "common/error.h"
#include "common/regular_file.h"

namespace swprof {
namespace {

// `from` starts `path` at a folder boundary ("/src" starts "/src/a.c", not
// "/srcs/a.c").
bool starts_folder(const std::string& path, const std::string& from) {
  if (path.compare(0, from.size(), from) != 0) return false;
  return path.size() == from.size() || from.back() == '/' || path[from.size()] == '/';
}

std::string joined(const std::string& dir, const std::string& tail) {
  if (dir.empty()) return tail;
  return dir.back() == '/' ? dir + tail : dir + "/" + tail;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    size_t stop = end;
    if (stop > at && text[stop - 1] == '\r') --stop;
    lines.emplace_back(text, at, stop - at);
    at = end + 1;
  }
  return lines;
}

}  // namespace

PrefixMap parse_prefix_map(const std::string& text, const char* option) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(std::string(option) + " '" + text + "': expected OLD=NEW, e.g. /build/src=/home/me/src");
  return PrefixMap{text.substr(0, eq), text.substr(eq + 1)};
}

std::vector<std::string> SourceFiles::candidates(const std::string& path) const {
  std::vector<std::string> out;
  for (const PrefixMap& m : search_.prefix_maps)
    if (starts_folder(path, m.from)) {
      out.push_back(m.to + path.substr(m.from.size()));
      break;
    }
  out.push_back(path);
  const size_t first = path.find_first_not_of('/');
  const std::string relative = first == std::string::npos ? std::string() : path.substr(first);
  for (const std::string& dir : search_.dirs)
    for (size_t at = 0; at < relative.size();) {
      out.push_back(joined(dir, relative.substr(at)));
      const size_t slash = relative.find('/', at);
      if (slash == std::string::npos) break;
      at = slash + 1;
    }
  return out;
}

const std::vector<std::string>* SourceFiles::lines(const std::string& path) {
  if (path.empty()) return nullptr;
  auto [it, added] = files_.try_emplace(path);
  Entry& e = it->second;
  if (added)
    for (const std::string& candidate : candidates(path)) {
      auto text = read_regular_file(candidate, kMaxBytes);
      if (!text) continue;
      e.found = candidate;
      e.lines = split_lines(*text.value);
      e.ok = true;
      break;
    }
  return e.ok ? &e.lines : nullptr;
}

std::string SourceFiles::found(const std::string& path) const {
  const auto it = files_.find(path);
  return it == files_.end() ? std::string() : it->second.found;
}

}  // namespace swprof
