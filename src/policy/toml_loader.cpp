// Reads a TOML policy file (DESIGN.md's format) into a Policy: lists are appended, scalars
// replaced. Every error names the file, the line and the dotted key it is about.
#include <seccomp.h>
#include <toml++/toml.h>

#include <functional>
#include <initializer_list>

#include "policy/file_io.hpp"
#include "policy/load.hpp"

namespace corral {
namespace {

const char* type_phrase(toml::node_type t) {
  switch (t) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    case toml::node_type::none: break;
  }
  return "nothing";
}

using StringCheck = std::function<Result<void>(const std::string&)>;

class TomlLoader {
 public:
  TomlLoader(Policy& policy, const std::string& origin) : p_(policy), origin_(origin) {}

  Result<void> load(const toml::table& root) {
    for (auto&& [k, v] : root) {
      const std::string name(k.str());
      Result<void> r;
      if (name == "filesystem") {
        r = load_filesystem(k, v);
      } else if (name == "network") {
        r = load_network(k, v);
      } else if (name == "env") {
        r = load_env(k, v);
      } else if (name == "limits") {
        r = load_limits(k, v);
      } else if (name == "process") {
        r = load_process(k, v);
      } else if (name == "workspace") {
        r = load_workspace(v);
      } else {
        r = unknown(k, "", {"workspace", "filesystem", "network", "env", "limits", "process"});
      }
      if (!r) return r;
    }
    return {};
  }

 protected:
  Error error_at(const toml::source_region& where, std::string key, std::string message) const {
    Error e = make_error(Errc::invalid_input, std::move(message));
    e.file = origin_;
    e.line = static_cast<int>(where.begin.line);
    e.key = std::move(key);
    return e;
  }

  // Re-homes an error from a shared parser (message only) onto this file's key and line.
  Error error_at(const toml::node& where, std::string key, const Error& cause) const {
    return error_at(where.source(), std::move(key), cause.message);
  }

  Error wrong_type(const toml::node& v, std::string key, const char* expected) const {
    return error_at(v.source(), std::move(key),
                    std::string("expected ") + expected + ", got " + type_phrase(v.type()));
  }

  Error unknown(const toml::key& k, const std::string& table,
                std::initializer_list<const char*> known) const {
    std::string list;
    for (const char* name : known) list += (list.empty() ? "" : ", ") + std::string(name);
    std::string where = table.empty() ? "at the top level" : "in [" + table + "]";
    return error_at(k.source(),
                    table.empty() ? std::string(k.str()) : table + "." + std::string(k.str()),
                    "unknown key " + where + "; expected one of: " + list);
  }

  Result<const toml::table*> table_of(const toml::key& k, const toml::node& v) const {
    if (const toml::table* t = v.as_table()) return t;
    return wrong_type(v, std::string(k.str()), "a table");
  }

  // An array of strings, each passing `check`; appended to `out`.
  Result<void> read_strings(const toml::node& v, const std::string& key, const StringCheck& check,
                            std::vector<std::string>& out) const {
    const toml::array* arr = v.as_array();
    if (!arr) return wrong_type(v, key, "an array of strings");
    for (std::size_t i = 0; i < arr->size(); ++i) {
      const toml::node& item = (*arr)[i];
      std::string item_key = key + "[" + std::to_string(i) + "]";
      const auto* s = item.as_string();
      if (!s) return wrong_type(item, item_key, "a string");
      if (auto r = check(s->get()); !r) return error_at(item, item_key, r.error());
      out.push_back(s->get());
    }
    return {};
  }

  Result<void> load_workspace(const toml::node& v) {
    const auto* s = v.as_string();
    if (!s) return wrong_type(v, "workspace", "a string");
    if (auto r = validate_path_pattern(s->get()); !r) return error_at(v, "workspace", r.error());
    if (is_glob_pattern(s->get()))
      return error_at(v.source(), "workspace",
                      "the workspace must be one directory, not a glob pattern");
    p_.workspace = s->get();
    return {};
  }

  Result<void> load_filesystem(const toml::key& tk, const toml::node& tv) {
    auto t = table_of(tk, tv);
    if (!t) return t.error();
    auto& fs = p_.filesystem;
    for (auto&& [k, v] : **t) {
      const std::string name(k.str());
      if (name == "watch_reads") {
        const auto* b = v.as_boolean();
        if (!b) return wrong_type(v, "filesystem.watch_reads", "a boolean");
        fs.watch_reads = b->get();
        continue;
      }
      std::vector<std::string>* list = name == "read_deny"     ? &fs.read_deny
                                       : name == "read_allow"  ? &fs.read_allow
                                       : name == "write_allow" ? &fs.write_allow
                                       : name == "write_deny"  ? &fs.write_deny
                                       : name == "read_only"   ? &fs.read_only
                                                               : nullptr;
      if (!list)
        return unknown(k, "filesystem",
                       {"read_deny", "read_allow", "write_allow", "write_deny", "read_only",
                        "watch_reads"});
      if (auto r = read_strings(v, "filesystem." + name, validate_path_pattern, *list); !r)
        return r;
    }
    return {};
  }

  Result<void> load_network(const toml::key& tk, const toml::node& tv) {
    auto t = table_of(tk, tv);
    if (!t) return t.error();
    auto& net = p_.network;
    for (auto&& [k, v] : **t) {
      const std::string name(k.str());
      const std::string key = "network." + name;
      if (name == "mode") {
        const auto* s = v.as_string();
        if (!s) return wrong_type(v, key, "a string (none, allowlist or all)");
        auto mode = parse_net_mode(s->get());
        if (!mode) return error_at(v, key, mode.error());
        net.mode = *mode;
      } else if (name == "allow" || name == "deny") {
        auto& list = name == "allow" ? net.allow : net.deny;
        if (auto r = read_strings(v, key, validate_host_pattern, list); !r) return r;
      } else if (name == "allow_local_binding") {
        const auto* b = v.as_boolean();
        if (!b) return wrong_type(v, key, "a boolean");
        net.allow_local_binding = b->get();
      } else {
        return unknown(k, "network", {"mode", "allow", "deny", "allow_local_binding"});
      }
    }
    return {};
  }

  Result<void> load_env(const toml::key& tk, const toml::node& tv) {
    auto t = table_of(tk, tv);
    if (!t) return t.error();
    for (auto&& [k, v] : **t) {
      const std::string name(k.str());
      if (name == "pass") {
        if (auto r = read_strings(v, "env.pass", validate_env_name, p_.env.pass); !r) return r;
      } else if (name == "set") {
        const toml::table* set = v.as_table();
        if (!set) return wrong_type(v, "env.set", "a table of NAME = \"value\"");
        for (auto&& [var, value] : *set) {
          const std::string var_name(var.str());
          const std::string key = "env.set." + var_name;
          if (auto r = validate_env_name(var_name); !r)
            return error_at(var.source(), key, r.error().message);
          if (var_name.back() == '*')
            return error_at(var.source(), key, "a prefix pattern cannot be set; name one variable");
          const auto* s = value.as_string();
          if (!s) return wrong_type(value, key, "a string (quote numbers: CI = \"1\")");
          if (s->get().find('\0') != std::string::npos)
            return error_at(value.source(), key, "the value contains a NUL byte");
          p_.env.set[var_name] = s->get();
        }
      } else {
        return unknown(k, "env", {"pass", "set"});
      }
    }
    return {};
  }

  // A size: a string with a unit ("2GiB") or an integer byte count.
  Result<std::uint64_t> read_size(const toml::node& v, const std::string& key) const {
    if (const auto* s = v.as_string()) {
      auto n = parse_size(s->get());
      if (!n) return error_at(v, key, n.error());
      return *n;
    }
    if (const auto* i = v.as_integer()) {
      if (i->get() <= 0) return error_at(v.source(), key, "a size must be greater than zero");
      return static_cast<std::uint64_t>(i->get());
    }
    return wrong_type(v, key, "a size such as \"2GiB\" or an integer byte count");
  }

  Result<void> load_limits(const toml::key& tk, const toml::node& tv) {
    auto t = table_of(tk, tv);
    if (!t) return t.error();
    auto& lim = p_.limits;
    for (auto&& [k, v] : **t) {
      const std::string name(k.str());
      const std::string key = "limits." + name;
      if (name == "memory" || name == "output") {
        auto n = read_size(v, key);
        if (!n) return n.error();
        (name == "memory" ? lim.memory_bytes : lim.output_bytes) = *n;
      } else if (name == "pids") {
        const auto* i = v.as_integer();
        if (!i) return wrong_type(v, key, "a positive integer");
        auto n = check_pids(i->get());
        if (!n) return error_at(v, key, n.error());
        lim.pids = *n;
      } else if (name == "cpus") {
        std::optional<double> value;
        if (const auto* f = v.as_floating_point()) value = f->get();
        if (const auto* i = v.as_integer()) value = static_cast<double>(i->get());
        if (!value) return wrong_type(v, key, "a number of CPUs such as 1.5");
        auto n = check_cpus(*value);
        if (!n) return error_at(v, key, n.error());
        lim.cpus = *n;
      } else if (name == "timeout") {
        const auto* s = v.as_string();
        if (!s) return wrong_type(v, key, "a duration string such as \"10m\" or \"1.5s\"");
        auto d = parse_duration(s->get());
        if (!d) return error_at(v, key, d.error());
        lim.timeout = *d;
      } else {
        return unknown(k, "limits", {"memory", "pids", "cpus", "timeout", "output"});
      }
    }
    return {};
  }

  Result<void> load_process(const toml::key& tk, const toml::node& tv) {
    auto t = table_of(tk, tv);
    if (!t) return t.error();
    for (auto&& [k, v] : **t) {
      const std::string name(k.str());
      const std::string key = "process." + name;
      if (name == "seccomp") {
        const auto* s = v.as_string();
        if (!s) return wrong_type(v, key, "a string (default, strict or a profile file's path)");
        std::string value = s->get();
        if (value.empty() || value.find('\0') != std::string::npos)
          return error_at(v.source(), key,
                          "expected default, strict or the path of a seccomp profile file");
        // A relative profile path is relative to this policy file, wherever corral runs.
        if (!is_builtin_seccomp_profile(value) && value[0] != '/' && value[0] != '~') {
          std::size_t slash = origin_.rfind('/');
          if (slash != std::string::npos) value = origin_.substr(0, slash + 1) + value;
        }
        p_.process.seccomp = std::move(value);
      } else if (name == "allow_nested_userns") {
        const auto* b = v.as_boolean();
        if (!b) return wrong_type(v, key, "a boolean");
        p_.process.allow_nested_userns = b->get();
      } else {
        return unknown(k, "process", {"seccomp", "allow_nested_userns"});
      }
    }
    return {};
  }

  Policy& p_;
  const std::string& origin_;
};

class ProfileLoader : public TomlLoader {
 public:
  ProfileLoader(Policy& unused, const std::string& origin) : TomlLoader(unused, origin) {}

  Result<SeccompProfile> load_profile(const toml::table& root) {
    SeccompProfile prof;
    for (auto&& [k, v] : root) {
      const std::string name(k.str());
      if (name == "base") {
        const auto* s = v.as_string();
        if (!s) return wrong_type(v, name, "a string (default or strict)");
        if (!is_builtin_seccomp_profile(s->get()))
          return error_at(v.source(), name,
                          "unknown base profile \"" + s->get() + "\"; expected default or strict");
        prof.base = s->get();
      } else if (name == "block") {
        auto known = [](const std::string& syscall) -> Result<void> {
          if (syscall.find('\0') == std::string::npos &&
              seccomp_syscall_resolve_name(syscall.c_str()) != __NR_SCMP_ERROR)
            return {};
          return make_error(Errc::invalid_input, "unknown syscall \"" + syscall + "\"");
        };
        if (auto r = read_strings(v, name, known, prof.block); !r) return r.error();
      } else {
        return unknown(k, "", {"base", "block"});
      }
    }
    return prof;
  }
};

Result<toml::table> parse_toml(const std::string& text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    Error err =
        make_error(Errc::invalid_input, "TOML syntax error: " + std::string(e.description()));
    err.file = origin;
    err.line = static_cast<int>(e.source().begin.line);
    return err;
  }
}

}  // namespace

bool is_builtin_seccomp_profile(const std::string& value) {
  return value == "default" || value == "strict";
}

Result<SeccompProfile> parse_seccomp_profile_toml(const std::string& text,
                                                  const std::string& origin) {
  auto root = parse_toml(text, origin);
  if (!root) return root.error();
  Policy unused;
  ProfileLoader loader(unused, origin);
  return loader.load_profile(*root);
}

Result<SeccompProfile> load_seccomp_profile_file(const std::string& path) {
  auto text = policy_io::read_text_file(path, "seccomp profile file");
  if (!text) return text.error();
  return parse_seccomp_profile_toml(*text, path);
}

Result<void> merge_policy_toml(Policy& policy, const std::string& text, const std::string& origin) {
  auto root = parse_toml(text, origin);
  if (!root) return root.error();
  // Load into a copy so a file with an error leaves `policy` untouched.
  Policy merged = policy;
  TomlLoader loader(merged, origin);
  if (auto r = loader.load(*root); !r) return r;
  policy = std::move(merged);
  return {};
}

Result<void> merge_policy_file(Policy& policy, const std::string& path) {
  auto text = policy_io::read_text_file(path, "policy file");
  if (!text) return text.error();
  return merge_policy_toml(policy, *text, path);
}

}  // namespace corral
