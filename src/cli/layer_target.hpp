// How the workspace verbs (diff, checkpoint, rollback, checkpoints, fork, apply) name a layer:
// `--layer DIR` (any layer directory, e.g. the one `corral run --workspace P:cow` kept) or a
// sandbox NAME (its layer is $CORRAL_HOME/sandboxes/NAME/workspace).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/layer.hpp"

namespace corral::cli {

struct LayerTarget {
  std::string layer_dir;                // --layer DIR
  std::vector<std::string> positionals; // [NAME] then the verb's own arguments
};

// Adds --layer and the positionals to `sub`; `usage` names the positionals for --help.
void add_layer_target(CLI::App* sub, LayerTarget& target, const std::string& usage);

// Splits the positionals into the layer and `want` arguments for the verb, then opens the
// layer. Errc::invalid_input on a wrong count, Errc::not_found for an unknown sandbox/layer.
Result<workspace::Layer> open_target(const LayerTarget& target, std::size_t want,
                                     std::vector<std::string>& args_out);

// Prints "corral: VERB: message" and returns the exit status for `e` (2 for input errors).
int report_error(const char* verb, const Error& e);

}  // namespace corral::cli
