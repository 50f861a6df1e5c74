// `corral gc`: removes what crashed runs left behind (their cgroups; their processes and mounts
// die with their namespaces).
#include <fmt/format.h>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"
#include "enforce/run_cgroup.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_gc_verb(CLI::App& app, VerbAction& action) {
  CLI::App* sub = app.add_subcommand("gc", "Remove what crashed runs left behind");
  sub->callback([&action] {
    action = [] {
      // Sandboxes whose supervisor (or creator) died: marked failed, their jobs killed.
      for (const auto& name : sandbox::reap_failed())
        fmt::print("sandbox {}: marked failed (its supervisor is gone; `corral start {}` "
                   "recovers it)\n", name, name);
      // No grace period: unlike the reap at each run's start, gc is asked for explicitly.
      auto removed = reap_orphan_cgroups(std::chrono::seconds(0));
      if (!removed) {
        fmt::print(stderr, "corral: gc: {}\n", removed.error().describe());
        return exit_status::failure;
      }
      for (const auto& path : *removed) fmt::print("removed cgroup {}\n", path);
      fmt::print("gc: {} leftover cgroup(s) removed\n", removed->size());
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
