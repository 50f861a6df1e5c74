// resolve_policy(): turns a Policy as written into the EffectivePolicy the enforcer applies:
// "~" and "." expanded, paths absolute and canonical, globs expanded, lists deduped and sorted.
#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "policy/load.hpp"
#include "policy/path_glob.hpp"

namespace corral {
namespace paths = policy_paths;

namespace {

Error keyed(Errc code, std::string key, std::string message) {
  Error e = make_error(code, std::move(message));
  e.key = std::move(key);
  return e;
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// "~" and "~/x" are below `home`, absolute paths stay, anything else is below `base`.
std::string join_path(const std::string& pattern, const std::string& home,
                      const std::string& base) {
  if (pattern == "~") return home;
  if (pattern.rfind("~/", 0) == 0) return home + pattern.substr(1);
  if (pattern[0] == '/') return pattern;
  return base + "/" + pattern;
}

// What to do with an entry that names nothing on the host.
enum class Missing {
  drop,  // nothing to hide or bind: read_deny, read_allow, read_only
  keep,  // protect it should it appear later: write_deny
  fail,  // the caller expects to write there: write_allow
};

class Resolver {
 public:
  Resolver(const PolicyContext& ctx, std::string workspace)
      : ctx_(ctx), workspace_(std::move(workspace)) {}

  // `pattern` made absolute and normalized. For glob patterns the home/workspace prefix is
  // escaped so only the pattern's own metacharacters count.
  std::string absolute(const std::string& pattern, bool glob) const {
    if (!glob) return paths::normalize(join_path(pattern, ctx_.home, workspace_));
    return paths::normalize(
        join_path(pattern, paths::glob_escape(ctx_.home), paths::glob_escape(workspace_)));
  }

  Result<std::vector<std::string>> resolve_list(const std::vector<std::string>& patterns,
                                                const std::string& key, Missing missing) const {
    std::vector<std::string> out;
    for (const std::string& pattern : patterns) {
      const bool glob = is_glob_pattern(pattern);
      const std::string abs = absolute(pattern, glob);
      if (glob) {
        // A glob names what exists now; nothing is kept or required for a pattern that
        // matches nothing.
        auto matches = paths::expand_glob(abs);
        if (!matches) return keyed(Errc::invalid_input, key, matches.error().message);
        for (const std::string& m : *matches) {
          if (auto real = paths::canonical_existing(m)) out.push_back(*real);
        }
        continue;
      }
      if (auto real = paths::canonical_existing(abs)) {
        out.push_back(*real);
      } else if (missing == Missing::keep) {
        out.push_back(paths::canonical_maybe_missing(abs));
      } else if (missing == Missing::fail) {
        return keyed(Errc::not_found, key,
                     "\"" + abs + "\" does not exist" +
                         (abs == pattern ? std::string() : " (from \"" + pattern + "\")") +
                         "; create it first or remove the entry");
      }  // else Missing::drop: nothing to hide or bind (a dangling symlink counts as missing)
    }
    sort_unique(out);
    return out;
  }

 private:
  const PolicyContext& ctx_;
  std::string workspace_;
};

Result<std::string> resolve_workspace(const Policy& p, const PolicyContext& ctx) {
  // The workspace named by a policy or flag is relative to the caller's cwd.
  std::string ws = p.workspace.empty() ? ctx.cwd : join_path(p.workspace, ctx.home, ctx.cwd);
  ws = paths::normalize(ws);
  struct stat st {};
  if (::stat(ws.c_str(), &st) != 0)
    return keyed(Errc::not_found, "workspace",
                 "workspace directory \"" + ws +
                     "\" does not exist; create it or choose another with --workspace");
  if (!S_ISDIR(st.st_mode))
    return keyed(Errc::invalid_input, "workspace", "workspace \"" + ws + "\" is not a directory");
  auto real = paths::canonical_existing(ws);
  if (!real) return keyed(Errc::not_found, "workspace", "cannot resolve workspace \"" + ws + "\"");
  return *real;
}

// A writable path inside a read-denied one would be a hole or a confusing empty directory;
// refuse unless read_allow re-opens it.
Result<void> check_writable_not_denied(const EffectivePolicy& e) {
  for (const std::string& w : e.filesystem.write_allow) {
    for (const std::string& d : e.filesystem.read_deny) {
      if (!paths::is_within(w, d)) continue;
      bool reopened = std::any_of(
          e.filesystem.read_allow.begin(), e.filesystem.read_allow.end(),
          [&](const std::string& a) { return paths::is_within(w, a) && paths::is_within(a, d); });
      if (reopened) continue;
      bool is_ws = w == e.workspace;
      return keyed(Errc::invalid_input, is_ws ? "workspace" : "filesystem.write_allow",
                   (is_ws ? "the workspace \"" : "writable path \"") + w +
                       "\" is inside the read-denied path \"" + d +
                       "\"; use another directory or add it to filesystem.read_allow");
    }
  }
  return {};
}

std::vector<std::string> lowercase_sorted(std::vector<std::string> hosts) {
  for (auto& h : hosts)
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  sort_unique(hosts);
  return hosts;
}

}  // namespace

Result<EffectivePolicy> resolve_policy(const Policy& policy, const PolicyContext& ctx) {
  if (ctx.home.empty() || ctx.home[0] != '/')
    return keyed(Errc::invalid_input, "HOME",
                 "the home directory \"" + ctx.home + "\" is not an absolute path; set HOME");
  if (ctx.cwd.empty() || ctx.cwd[0] != '/')
    return keyed(Errc::internal, "", "the working directory is not an absolute path");
  if (auto r = validate_policy(policy); !r) return r.error();

  EffectivePolicy e;
  auto ws = resolve_workspace(policy, ctx);
  if (!ws) return ws.error();
  e.workspace = *ws;
  e.workspace_cow = policy.workspace_cow;

  Resolver resolver(ctx, e.workspace);
  const auto& in = policy.filesystem;
  auto& out = e.filesystem;
  struct Step {
    const std::vector<std::string>& from;
    std::vector<std::string>& to;
    const char* key;
    Missing missing;
  };
  for (const Step& s :
       {Step{in.read_deny, out.read_deny, "filesystem.read_deny", Missing::drop},
        Step{in.read_allow, out.read_allow, "filesystem.read_allow", Missing::drop},
        Step{in.write_allow, out.write_allow, "filesystem.write_allow", Missing::fail},
        Step{in.write_deny, out.write_deny, "filesystem.write_deny", Missing::keep},
        Step{in.read_only, out.read_only, "filesystem.read_only", Missing::drop}}) {
    auto list = resolver.resolve_list(s.from, s.key, s.missing);
    if (!list) return list.error();
    s.to = std::move(*list);
  }
  for (const std::string& pattern : in.write_deny) {
    if (is_glob_pattern(pattern)) continue;
    const std::string named = resolver.absolute(pattern, false);
    if (std::find(out.write_deny.begin(), out.write_deny.end(), named) == out.write_deny.end())
      out.write_deny_names.push_back(named);
  }
  sort_unique(out.write_deny_names);
  out.watch_reads = in.watch_reads;
  out.write_allow.push_back(e.workspace);  // "." is always writable, listed or not
  sort_unique(out.write_allow);
  if (auto r = check_writable_not_denied(e); !r) return r.error();

  e.network = policy.network;
  e.network.allow = lowercase_sorted(policy.network.allow);
  e.network.deny = lowercase_sorted(policy.network.deny);
  e.env = policy.env;
  sort_unique(e.env.pass);
  e.limits = policy.limits;

  // The profile file is read now, so the hash covers what it blocks, not just its name.
  e.process.allow_nested_userns = policy.process.allow_nested_userns;
  if (is_builtin_seccomp_profile(policy.process.seccomp)) {
    e.process.seccomp = policy.process.seccomp;
    e.process.seccomp_base = policy.process.seccomp;
  } else {
    e.process.seccomp = paths::normalize(join_path(policy.process.seccomp, ctx.home, ctx.cwd));
    auto profile = load_seccomp_profile_file(e.process.seccomp);
    if (!profile) {
      Error err = profile.error();
      if (err.key.empty()) err.key = "process.seccomp";
      return err;
    }
    e.process.seccomp_base = profile->base;
    e.process.seccomp_block = std::move(profile->block);
    sort_unique(e.process.seccomp_block);
  }
  return e;
}

}  // namespace corral
