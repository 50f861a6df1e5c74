// `corral create NAME [--workspace PATH[:ro]]... [--policy FILE] [policy flags]`: a persistent
// named sandbox with its own home volume, running until stopped.
#include <fmt/format.h>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "policy/load.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {
namespace {

struct CreateOptions {
  std::string name;
  PolicyFlags policy;
  std::string log_limit;
};

int create_sandbox(const CreateOptions& o) {
  if (auto r = sandbox::validate_name(o.name); !r) return report_sandbox_error(r.error());
  auto ctx = policy_context_from_environment();
  if (!ctx) return report_sandbox_error(ctx.error());
  std::vector<std::string> notes;
  auto policy = build_effective_policy(o.policy, *ctx, notes);
  for (const auto& n : notes) fmt::print(stderr, "corral: note: {}\n", n);
  if (!policy) return report_sandbox_error(policy.error());
  sandbox::CreateRequest req;
  req.name = o.name;
  req.workspaces = workspaces_from_flags(o.policy.workspaces, policy->workspace, *ctx);
  req.policy = std::move(*policy);
  req.inputs = inputs_to_json(o.policy, *ctx);
  req.home = ctx->home;
  if (!o.log_limit.empty()) {
    auto size = parse_size(o.log_limit);
    if (!size) {
      Error e = size.error();
      e.key = "--log-limit";
      return report_sandbox_error(e);
    }
    req.log_limit_bytes = *size;
  }
  auto s = sandbox::create(req);
  if (!s) return report_sandbox_error(s.error());
  fmt::print("{}\n", s->name);
  return exit_status::success;
}

}  // namespace

void add_create_verb(CLI::App& app, VerbAction& action) {
  auto opts = std::make_shared<CreateOptions>();
  CLI::App* sub = app.add_subcommand("create", "Create a persistent named sandbox and start it");
  sub->add_option("name", opts->name, "The sandbox's name ([A-Za-z0-9_.-], up to 63)")->required();
  add_policy_flags(sub, opts->policy);
  sub->add_option("--log-limit", opts->log_limit,
                  "Background output kept on disk per stream (default 8MiB)");
  sub->callback([opts, &action] { action = [opts] { return create_sandbox(*opts); }; });
}

}  // namespace corral::cli
