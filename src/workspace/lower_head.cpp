// Resolves .git/HEAD by hand: "ref: refs/heads/x" -> loose ref file or packed-refs line.
#include "workspace/lower_head.hpp"

#include <fstream>
#include <sstream>

namespace corral::workspace {
namespace {

std::optional<std::string> first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

bool is_hex_id(const std::string& s) {
  if (s.size() != 40 && s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::optional<std::string> resolve_ref(const std::string& gitdir, const std::string& common,
                                       const std::string& ref, int depth) {
  if (depth > 5) return std::nullopt;
  for (const std::string& base : {gitdir, common}) {
    if (auto line = first_line(base + "/" + ref)) {
      if (is_hex_id(*line)) return line;
      if (line->rfind("ref: ", 0) == 0) return resolve_ref(gitdir, common, line->substr(5), depth + 1);
    }
  }
  std::ifstream packed(common + "/packed-refs");
  std::string line;
  while (std::getline(packed, line)) {
    if (line.empty() || line[0] == '#' || line[0] == '^') continue;
    auto sp = line.find(' ');
    if (sp != std::string::npos && line.substr(sp + 1) == ref && is_hex_id(line.substr(0, sp)))
      return line.substr(0, sp);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> read_git_head(const std::string& dir) {
  std::string gitdir = dir + "/.git";
  if (auto pointer = first_line(gitdir); pointer && pointer->rfind("gitdir: ", 0) == 0) {
    gitdir = pointer->substr(8);
    if (!gitdir.empty() && gitdir[0] != '/') gitdir = dir + "/" + gitdir;
  }
  std::string common = gitdir;
  if (auto c = first_line(gitdir + "/commondir"))
    common = (*c)[0] == '/' ? *c : gitdir + "/" + *c;
  auto head = first_line(gitdir + "/HEAD");
  if (!head) return std::nullopt;
  if (is_hex_id(*head)) return head;
  if (head->rfind("ref: ", 0) == 0) return resolve_ref(gitdir, common, head->substr(5), 0);
  return std::nullopt;
}

}  // namespace corral::workspace
