#include "compare/differential_flamegraph.h"

#include <cstdio>

#include "compare/differential_tree.h"
#include "output/flamegraph.h"

namespace swprof {

void write_differential_flamegraph(const ProfileDiff& diff, const Profile& base, const Profile& current,
                                   std::ostream& out) {
  const DifferentialTree tree = make_differential_tree(base.tree, current.tree, diff.options.ignore_modules);
  FlamegraphOptions options;
  set_differential(options, tree);
  options.title = "swprof diff: " + diff.base.source + " -> " + diff.current.source;
  char subtitle[256];
  snprintf(subtitle, sizeof subtitle,
           "widths: new (%llu samples); red: a larger share than in base (%llu samples), blue: a smaller one",
           static_cast<unsigned long long>(diff.current.samples), static_cast<unsigned long long>(diff.base.samples));
  options.subtitle = subtitle;
  write_flamegraph(tree.tree, options, out);
}

}  // namespace swprof
