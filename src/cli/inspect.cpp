// `corral inspect NAME [--json]`: state, workspaces, policy and its hash, pids, memory, times.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

void add_inspect_verb(CLI::App& app, VerbAction& action) {
  struct Opts {
    std::string name;
    bool json = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("inspect", "Show a sandbox in detail");
  sub->add_option("name", o->name, "The sandbox")->required();
  sub->add_flag("--json", o->json, "As JSON");
  sub->callback([o, &action] {
    action = [o] {
      auto in = sandbox::inspect(o->name);
      if (!in) return report_sandbox_error(in.error());
      if (o->json) {
        fmt::print("{}\n", sandbox::inspection_to_json(*in).dump(2));
        return exit_status::success;
      }
      const auto& s = in->state;
      fmt::print("name:        {}\nstate:       {}\n", s.name, sandbox::status_name(s.status));
      if (!s.error.empty()) fmt::print("error:       {}\n", s.error);
      for (const auto& w : s.workspaces) fmt::print("workspace:   {} ({})\n", w.path, w.mode);
      fmt::print("home:        {} (volume)\npolicy:      {}\n", s.home, s.policy_hash);
      fmt::print("created:     {}\nstarted:     {}\n", s.created_at, s.started_at);
      if (!s.stopped_at.empty()) fmt::print("stopped:     {}\n", s.stopped_at);
      std::string pids;
      for (int p : in->pids) pids += (pids.empty() ? "" : " ") + std::to_string(p);
      fmt::print("pids:        {}\nmemory:      {} KiB resident\n", pids.empty() ? "-" : pids,
                 in->resident_bytes / 1024);
      if (s.egress_keeper.pid > 0)
        fmt::print("egress:      allowlist proxy in process {} (outside the sandbox)\n",
                   s.egress_keeper.pid);
      if (in->cgroup_usage.is_object()) {
        const auto& u = in->cgroup_usage;
        fmt::print("cgroup:      {} KiB now, {} KiB peak, {} OOM kill(s), {} task(s), {} ms CPU\n",
                   u["memory_bytes"].get<std::uint64_t>() / 1024,
                   u["peak_memory_bytes"].get<std::uint64_t>() / 1024,
                   u["oom_kills"].get<std::uint64_t>(), u["pids"].get<std::uint64_t>(),
                   u["cpu_ms"].get<std::uint64_t>());
      }
      fmt::print("jobs:        {}\n", in->jobs.size());
      fmt::print("violations:  {}{}\n", in->violations,
                 in->violations ? " (logs/violations.jsonl)" : "");
      for (const auto& n : in->not_observed) fmt::print("not observed: {}\n", n);
      return exit_status::success;
    };
  });
}

}  // namespace corral::cli
