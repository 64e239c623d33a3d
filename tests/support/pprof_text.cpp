#include "support/pprof_text.h"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace swprof::testing {

namespace {

// The bytes of a gzip stream, inflated by zlib.
std::string gunzip(const std::string& gzipped) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);  // gzip wrapper only
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gzipped.data()));
  z.avail_in = static_cast<uInt>(gzipped.size());
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
  }
  inflateEnd(&z);
  REQUIRE(status == Z_STREAM_END);
  CHECK(z.avail_in == 0);  // nothing after the gzip stream
  return out;
}

}  // namespace

perftools::profiles::Profile read_pprof(const std::string& gzipped) {
  perftools::profiles::Profile p;
  REQUIRE(p.ParseFromString(gunzip(gzipped)));
  return p;
}

namespace {

namespace pb = perftools::profiles;

std::string quoted(const pb::Profile& p, int64_t index) {
  REQUIRE(index >= 0);
  REQUIRE(index < p.string_table_size());
  return '"' + p.string_table(static_cast<int>(index)) + '"';
}

std::string value_type(const pb::Profile& p, const pb::ValueType& v) {
  return pprof_string(p, v.type()) + "/" + pprof_string(p, v.unit());
}

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

void write_header(const pb::Profile& p, std::ostream& out) {
  REQUIRE(p.string_table_size() > 0);
  REQUIRE(p.string_table(0).empty());
  out << "sample_type";
  for (const auto& t : p.sample_type()) out << ' ' << value_type(p, t);
  out << " default " << quoted(p, p.default_sample_type()) << '\n';
  out << "period " << p.period() << ' ' << value_type(p, p.period_type()) << '\n';
  out << "time_nanos " << p.time_nanos() << " duration_nanos " << p.duration_nanos() << '\n';
  out << "drop_frames " << quoted(p, p.drop_frames()) << " keep_frames " << quoted(p, p.keep_frames()) << '\n';
  for (int64_t c : p.comment()) out << "comment " << quoted(p, c) << '\n';
}

void write_tables(const pb::Profile& p, std::ostream& out, std::set<uint64_t>& mappings, std::set<uint64_t>& functions,
                  std::set<uint64_t>& locations) {
  for (const auto& m : p.mapping()) {
    REQUIRE(mappings.insert(m.id()).second);
    out << "mapping " << m.id() << " [" << hex(m.memory_start()) << ", " << hex(m.memory_limit()) << ") offset "
        << hex(m.file_offset()) << ' ' << quoted(p, m.filename()) << " build_id " << quoted(p, m.build_id())
        << (m.has_functions() ? " functions" : "") << (m.has_filenames() ? " filenames" : "")
        << (m.has_line_numbers() ? " lines" : "") << (m.has_inline_frames() ? " inline" : "") << '\n';
  }
  std::map<uint64_t, int64_t> function_names;
  for (const auto& f : p.function()) {
    REQUIRE(functions.insert(f.id()).second);
    function_names[f.id()] = f.name();
    out << "function " << f.id() << ' ' << quoted(p, f.name()) << " system_name " << quoted(p, f.system_name())
        << " file " << quoted(p, f.filename()) << " start_line " << f.start_line() << '\n';
  }
  for (const auto& l : p.location()) {
    REQUIRE(locations.insert(l.id()).second);
    REQUIRE((l.mapping_id() == 0 || mappings.count(l.mapping_id())));
    out << "location " << l.id() << " mapping " << l.mapping_id() << " address " << hex(l.address())
        << (l.is_folded() ? " folded" : "") << " lines";
    for (const auto& line : l.line()) {
      REQUIRE(functions.count(line.function_id()));
      out << ' ' << line.function_id() << ':' << quoted(p, function_names[line.function_id()]) << ':' << line.line();
    }
    out << '\n';
  }
}

void write_samples(const pb::Profile& p, std::ostream& out, const std::set<uint64_t>& locations) {
  for (const auto& s : p.sample()) {
    REQUIRE(s.value_size() == p.sample_type_size());
    out << "sample";
    for (int64_t v : s.value()) out << ' ' << v;
    out << " locations";
    for (uint64_t id : s.location_id()) {
      REQUIRE(locations.count(id));
      out << ' ' << id;
    }
    if (s.label_size()) out << " labels";
    for (const auto& l : s.label()) {
      out << ' ' << pprof_string(p, l.key()) << '=';
      if (l.str()) out << quoted(p, l.str());
      else out << l.num() << (l.num_unit() ? " " + quoted(p, l.num_unit()) : "");
    }
    out << '\n';
  }
}

}  // namespace

std::string pprof_text(const std::string& gzipped) {
  const pb::Profile p = read_pprof(gzipped);
  std::ostringstream out;
  std::set<uint64_t> mappings, functions, locations;
  write_header(p, out);
  write_tables(p, out, mappings, functions, locations);
  write_samples(p, out, locations);
  return out.str();
}

std::string pprof_string(const perftools::profiles::Profile& p, int64_t index) {
  return index >= 0 && index < p.string_table_size() ? p.string_table(static_cast<int>(index)) : "";
}

std::vector<std::string> pprof_stack(const perftools::profiles::Profile& p, const perftools::profiles::Sample& s) {
  std::map<uint64_t, const perftools::profiles::Location*> locations;
  std::map<uint64_t, std::string> functions;
  for (const auto& l : p.location()) locations[l.id()] = &l;
  for (const auto& f : p.function()) functions[f.id()] = pprof_string(p, f.name());
  std::vector<std::string> names;
  for (uint64_t id : s.location_id()) {
    REQUIRE(locations.count(id));
    for (const auto& line : locations[id]->line()) names.push_back(functions.at(line.function_id()));
  }
  return names;
}

}  // namespace swprof::testing
