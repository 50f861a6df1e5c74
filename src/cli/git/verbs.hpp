// The git verbs, built into `corral-git` (not `corral`: libgit2 and its libraries would cost
// every `corral run` start-up). `corral commit` / `corral merge` exec that binary.
#pragma once

#include "cli/verbs.hpp"

namespace corral::cli {

void add_commit_verb(CLI::App& app, VerbAction& action);
void add_merge_verb(CLI::App& app, VerbAction& action);

}  // namespace corral::cli
