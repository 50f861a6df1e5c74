// Path normalization, symlink resolution and glob expansion against the host file system,
// used by resolve_policy(). glob(3) does each segment; "**" walks directories itself.
#include "policy/path_glob.hpp"

#include <glob.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <set>

namespace corral::policy_paths {
namespace fs = std::filesystem;

std::string normalize(const std::string& absolute_path) {
  std::string out = fs::path(absolute_path).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string glob_escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::optional<std::string> canonical_existing(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (!resolved) return std::nullopt;
  std::string out(resolved);
  std::free(resolved);
  return out;
}

std::string canonical_maybe_missing(const std::string& path) {
  if (auto real = canonical_existing(path)) return *real;
  // Walk up to the deepest ancestor that resolves, then re-append the missing tail.
  std::string head = path;
  std::string tail;
  while (head.size() > 1) {
    std::size_t slash = head.rfind('/');
    std::string name = head.substr(slash + 1);
    tail = tail.empty() ? name : name + "/" + tail;
    head = slash == 0 ? "/" : head.substr(0, slash);
    if (auto real = canonical_existing(head)) return normalize(*real + "/" + tail);
  }
  return path;
}

bool is_within(const std::string& path, const std::string& ancestor) {
  if (ancestor == "/") return true;
  return path == ancestor ||
         (path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
          path[ancestor.size()] == '/');
}

namespace {

Error too_broad(const std::string& pattern) {
  return make_error(
      Errc::invalid_input,
      "pattern \"" + pattern + "\" reaches too many directories to expand; make it narrower");
}

// Plain glob(3): no "**". Missing paths and unreadable directories simply do not match.
std::vector<std::string> glob_simple(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (::glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  }
  ::globfree(&g);
  return out;
}

bool is_directory_no_follow(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// `dir` and every directory below it (symlinks not followed), or every entry below it.
Result<void> walk(const std::string& dir, bool entries_too, std::size_t max_paths,
                  const std::string& pattern, std::vector<std::string>& out) {
  if (!entries_too) out.push_back(dir);
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  std::size_t dirs = 1;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    bool is_dir = it->is_directory(type_ec) && !it->is_symlink(type_ec);
    if (is_dir && ++dirs > max_paths) return too_broad(pattern);
    if (is_dir || entries_too) out.push_back(it->path().string());
    if (out.size() > max_paths) return too_broad(pattern);
  }
  return {};
}

}  // namespace

Result<std::vector<std::string>> expand_glob(const std::string& pattern, std::size_t max_paths) {
  // Split at the first "**" component: prefix/**/rest. (Built by construction, not assigned:
  // GCC 12 warns falsely (-Wrestrict) on assigning a literal to a string under ASan.)
  std::size_t at = std::string::npos;  // index of the "**" component
  const bool ends_with_globstar =
      pattern.size() >= 3 && pattern.compare(pattern.size() - 3, 3, "/**") == 0;
  if (pattern == "/**" || pattern.rfind("/**/", 0) == 0) {
    at = 1;
  } else if (std::size_t slash = pattern.find("/**/"); slash != std::string::npos) {
    at = slash + 1;
  } else if (ends_with_globstar) {
    at = pattern.size() - 2;
  }
  if (at == std::string::npos) return glob_simple(pattern);
  const std::string prefix = at == 1 ? std::string(1, '/') : pattern.substr(0, at - 1);
  const std::string rest = at + 3 < pattern.size() ? pattern.substr(at + 3) : std::string();

  std::set<std::string> found;
  for (const std::string& base : glob_simple(prefix)) {
    if (!is_directory_no_follow(base)) continue;
    std::vector<std::string> below;
    if (auto r = walk(base, rest.empty(), max_paths, pattern, below); !r) return r.error();
    if (rest.empty()) {
      found.insert(below.begin(), below.end());
      continue;
    }
    for (const std::string& dir : below) {
      std::string sub = (dir == "/" ? "" : glob_escape(dir)) + "/" + rest;
      auto matches = expand_glob(sub, max_paths);
      if (!matches) return matches.error();
      found.insert(matches->begin(), matches->end());
      if (found.size() > max_paths) return too_broad(pattern);
    }
  }
  return std::vector<std::string>(found.begin(), found.end());
}

}  // namespace corral::policy_paths
