// Resolution of `--layer DIR` / NAME for the workspace verbs.
#include "cli/layer_target.hpp"

#include <sys/stat.h>

#include <fmt/format.h>

#include "cli/exit_status.hpp"
#include "workspace/run_layer.hpp"

namespace corral::cli {

void add_layer_target(CLI::App* sub, LayerTarget& target, const std::string& usage) {
  sub->add_option("--layer", target.layer_dir,
                  "A workspace layer directory (e.g. the one `corral run --workspace P:cow` kept)");
  sub->add_option("args", target.positionals, usage);
}

Result<workspace::Layer> open_target(const LayerTarget& target, std::size_t want,
                                     std::vector<std::string>& args_out) {
  const bool by_layer = !target.layer_dir.empty();
  const std::size_t expected = want + (by_layer ? 0 : 1);
  if (target.positionals.size() != expected) {
    return make_error(Errc::invalid_input,
                      fmt::format("expected {} argument(s){}, got {}", expected,
                                  by_layer ? " after --layer DIR" : " (a sandbox NAME first, or --layer DIR)",
                                  target.positionals.size()));
  }
  std::string dir = target.layer_dir;
  std::size_t first = 0;
  if (!by_layer) {
    const std::string& name = target.positionals[0];
    if (auto r = workspace::validate_tag(name, "sandbox name"); !r) return std::move(r).error();
    dir = workspace::state_home() + "/sandboxes/" + name + "/workspace";
    struct stat st;
    if (stat(dir.c_str(), &st) != 0)
      return make_error(Errc::not_found, "no sandbox named \"" + name + "\" with a copy-on-write "
                        "workspace (looked in " + dir + "); for a run's layer use --layer DIR");
    first = 1;
  }
  args_out.assign(target.positionals.begin() + static_cast<std::ptrdiff_t>(first), target.positionals.end());
  return workspace::open_layer(dir);
}

int report_error(const char* verb, const Error& e) {
  fmt::print(stderr, "corral: {}: {}\n", verb, e.describe());
  switch (e.code) {
    case Errc::invalid_input:
    case Errc::not_found: return exit_status::usage;
    default: return exit_status::failure;
  }
}

}  // namespace corral::cli
