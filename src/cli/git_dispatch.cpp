// `corral commit` / `corral merge`: exec `corral-git`, installed next to `corral`. The git
// layer lives in its own binary so that libgit2 and its libraries (OpenSSL, Kerberos, ...)
// never load for `corral run` or `corral exec`.
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "cli/exit_status.hpp"
#include "cli/verbs.hpp"

namespace corral::cli {
namespace {

constexpr const char* kGitVerbs[] = {"commit", "merge"};

std::string sibling_binary(const char* name) {
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return name;
  std::string dir(self, static_cast<std::size_t>(n));
  return dir.substr(0, dir.rfind('/') + 1) + name;
}

}  // namespace

bool is_git_verb(int argc, char** argv) {
  if (argc < 2) return false;
  for (const char* verb : kGitVerbs)
    if (std::strcmp(argv[1], verb) == 0) return true;
  return false;
}

int exec_git_verb(char** argv) {
  std::string path = sibling_binary("corral-git");
  ::execv(path.c_str(), argv);
  fmt::print(stderr, "corral: {}: cannot run {}: {} (it is built and installed next to corral)\n",
             argv[1], path, std::strerror(errno));
  return exit_status::failure;
}

void add_git_verbs_help(CLI::App& app) {
  // Listed for `corral --help`; is_git_verb() sends them to corral-git before parsing.
  app.add_subcommand("commit", "Commit a copy-on-write workspace's changes to a new git branch");
  app.add_subcommand("merge", "Merge a sandbox branch into its repository (stash, conflicts)");
}

}  // namespace corral::cli
