#pragma once
// `swprof annotate`: where inside a function its samples are. For each
// function asked for (a name pattern, or the hottest few), its source lines
// and its machine code, each with the samples whose leaf was there.
//
// The samples come from a profile built with per-address counts
// (ProfileOptions::addresses, profile/address_counts.h); the code is read
// from the binary the samples were unwound and symbolized with (from disk,
// the recording's archive or an image the recording carries), between the
// bounds of its ELF symbol (binary/function_bounds.h); each instruction's
// source line and inline chain comes from the binary's DWARF, and the lines'
// text from the source files DWARF names (output/source_files.h).
//
// An instruction's samples count once at each depth of its inline chain:
// at depth 0, at the line of the annotated function it belongs to (for
// code inlined into the function, the line of the call it was inlined at);
// at depth 1, at the line of the function inlined there; and so on. So the
// depth-0 lines add up to the function's samples, and the lines of an
// inlined function show where inside it the time went.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "binary/x86_disassembler.h"
#include "output/source_files.h"
#include "profile/profile.h"
#include "symbolize/symbolizer.h"

namespace swprof {

struct AnnotateOptions {
  // A function-name pattern (RE2, searched anywhere in the name, as
  // --include's); empty: the hottest functions by self samples. A function
  // is selected when its name matches, or the name of a function inlined
  // into it at a sampled address does.
  std::string function;
  // A frame of the profile's CallTree (a function a view has selected):
  // that function alone, in whichever binary; the pattern is then not used.
  std::optional<uint32_t> frame;
  // At most this many functions, the hottest first (also of those a pattern
  // selects).
  size_t top = 5;
  // How each binary's DWARF is found: the options the profile was
  // symbolized with. The archive the profile was built with (Profile::archive)
  // is used when none is given, else the recording's is opened.
  SymbolizerOptions symbols;
  SourceSearch sources;
  AsmSyntax syntax = AsmSyntax::kAtt;
};

// A function at a source line.
struct SourcePosition {
  std::string function;
  std::string file;  // as DWARF names it
  uint32_t line = 0;
  bool operator==(const SourcePosition&) const = default;
};

struct AnnotatedInstruction {
  uint64_t address = 0;  // ELF virtual address in the binary
  uint8_t size = 0;
  std::string text;      // "divq %rcx"; a direct call or jump names its target: "call 0x1130 <helper>"
  uint64_t samples = 0;  // samples whose leaf was this instruction
  uint64_t weight = 0;
  // Its inline chain, outermost first: [0] the annotated function at its
  // own line (for inlined code, the line of the call), [1] the function
  // inlined there at its line, ... Empty without line information.
  std::vector<SourcePosition> where;
};

// One source line of the function, or of a function inlined into it.
struct AnnotatedLine {
  uint32_t depth = 0;    // 0: the annotated function's own line; 1: of a function inlined into it; ...
  SourcePosition at;
  uint64_t samples = 0;  // of the instructions at this line at this depth
  uint64_t weight = 0;
  bool code = true;      // instructions are at this line (false: a line shown for context)
  std::string source;    // the line's text, tabs expanded; empty when the file was not found
};

struct AnnotatedFunction {
  std::string function;  // as reports name it
  std::string module;
  std::string file;      // its source file, empty when unknown
  uint32_t line = 0;     // its declaration line, 0 when unknown
  std::string path;      // the binary's file as recorded; empty for code outside binaries (kernel, JIT)
  std::string build_id;  // hex
  std::vector<std::pair<uint64_t, uint64_t>> ranges;  // [start, end) ELF addresses of the code shown
  uint64_t samples = 0;  // whose leaf was in the function (in its code, or code inlined into it)
  uint64_t weight = 0;
  // Depth 0 first (the function's own file first, by line), then each
  // inlined function's lines.
  std::vector<AnnotatedLine> lines;
  std::vector<AnnotatedInstruction> instructions;  // by address
  std::vector<std::string> notes;  // what could not be shown, and why ("no line information: ...")
};

struct Annotation {
  uint64_t samples = 0;  // of the profile: shares are of these
  uint64_t weight = 0;
  size_t matched = 0;    // functions with samples that were selected (more than shown beyond `top`)
  std::vector<AnnotatedFunction> functions;  // the hottest first
};

// The functions of `profile` (built with per-address counts: throws Error
// otherwise) that `options` select, annotated. Throws Error for a bad
// pattern, and when the pattern selects no function with samples.
Annotation annotate(const Profile& profile, const AnnotateOptions& options);

}  // namespace swprof
