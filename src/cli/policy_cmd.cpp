// `corral policy check FILE...` and `corral policy show [--json] [policy flags]`.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/exit_status.hpp"
#include "cli/policy_flags.hpp"
#include "cli/verbs.hpp"
#include "policy/load.hpp"
#include "policy/show.hpp"

namespace corral::cli {
namespace {

// Bad input (the caller can fix it) is a usage error; corral's own failures are failures.
int exit_for(const Error& e) {
  switch (e.code) {
    case Errc::invalid_input:
    case Errc::not_found:
    case Errc::io_error: return exit_status::usage;
    default: return exit_status::failure;
  }
}

int report(const Error& e) {
  std::cerr << "corral: " << e.describe() << "\n";
  return exit_for(e);
}

// Parses and validates each file over the defaults, then resolves it here to print the hash
// `corral policy show --policy FILE` (and a run with it) would report from this directory.
int check_files(const std::vector<std::string>& files) {
  auto ctx = policy_context_from_environment();
  if (!ctx) return report(ctx.error());
  int rc = exit_status::success;
  for (const std::string& file : files) {
    Policy policy = default_policy();
    Result<void> loaded = merge_policy_file(policy, file);
    // resolve_policy() validates the merged policy first (cross-field rules have no line).
    Result<EffectivePolicy> effective =
        loaded ? resolve_policy(policy, *ctx) : Result<EffectivePolicy>(loaded.error());
    if (!effective) {
      Error e = effective.error();
      if (e.file.empty()) e.file = file;
      rc = std::max(rc, report(e));
      continue;
    }
    std::cout << file << ": ok (" << policy_hash(*effective) << ")\n";
  }
  return rc;
}

int show(const PolicyFlags& flags, bool as_json) {
  std::vector<std::string> notes;
  auto effective = build_effective_policy(flags, notes);
  for (const auto& note : notes) std::cerr << "corral: " << note << "\n";
  if (!effective) return report(effective.error());
  if (as_json) {
    auto j = policy_to_json(*effective);
    j["hash"] = policy_hash(*effective);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << policy_to_text(*effective) << "hash: " << policy_hash(*effective) << "\n";
  }
  return exit_status::success;
}

}  // namespace

void add_policy_verb(CLI::App& app, VerbAction& action) {
  CLI::App* policy = app.add_subcommand("policy", "Check policy files and show effective policies");
  policy->require_subcommand(1);

  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* check = policy->add_subcommand(
      "check", "Parse and validate TOML policy files; print each one's policy hash");
  check->add_option("FILE", *files, "TOML policy file")->required();
  check->callback([&action, files] { action = [files] { return check_files(*files); }; });

  auto flags = std::make_shared<PolicyFlags>();
  auto as_json = std::make_shared<bool>(false);
  CLI::App* show_cmd = policy->add_subcommand(
      "show", "Print the effective policy (defaults, files, srt settings, flags) and its hash");
  show_cmd->add_flag("--json", *as_json, "print canonical JSON with a \"hash\" field");
  add_policy_flags(show_cmd, *flags);
  show_cmd->callback(
      [&action, flags, as_json] { action = [flags, as_json] { return show(*flags, *as_json); }; });
}

}  // namespace corral::cli
