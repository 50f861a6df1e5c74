// `corral shell NAME`: an interactive login shell in a running sandbox (exec -t of bash -l, or
// sh -l where there is no bash).
#include <unistd.h>

#include <memory>

#include "cli/verbs.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {

int exec_in_sandbox(const std::string& name, sandbox::ExecOptions& o, bool quiet);  // exec.cpp

void add_shell_verb(CLI::App& app, VerbAction& action) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand("shell", "Open an interactive login shell in a sandbox");
  sub->add_option("name", *name, "The sandbox")->required();
  sub->callback([name, &action] {
    action = [name] {
      sandbox::ExecOptions o;
      // The sandbox sees the host's root read-only, so what exists here exists inside.
      o.argv = access("/bin/bash", X_OK) == 0 ? std::vector<std::string>{"/bin/bash", "-l"}
                                              : std::vector<std::string>{"/bin/sh", "-l"};
      o.tty = true;
      o.keep_stdin = true;
      return exec_in_sandbox(*name, o, false);
    };
  });
}

}  // namespace corral::cli
