#pragma once
// The outputs of `swprof annotate` (docs/annotate.md): text for a person,
// JSON for tools.

#include <ostream>

#include "output/annotate.h"

namespace swprof {

// The recording's header, a note on skid, then each function: its samples,
// its source lines and its instructions with theirs. Every name, path and
// source line is escaped for a terminal.
void write_annotation_text(const Profile& profile, const Annotation& annotation, std::ostream& out);

// One function of `annotation` as write_annotation_text shows it: its
// heading and notes, its source lines and its instructions (for a view that
// shows one function at a time; shares are of the profile's samples, or of
// its time when `by_time`).
void write_annotated_function_text(const Annotation& annotation, const AnnotatedFunction& function, bool by_time,
                                   std::ostream& out);

// An array of the functions, each with its lines and instructions.
void write_annotation_json(const Annotation& annotation, std::ostream& out);

}  // namespace swprof
