// Presents an EffectivePolicy: the canonical JSON (what is hashed), its SHA-256, and a
// human-readable summary for `corral policy show`.
#include "policy/show.hpp"

#include <fmt/format.h>

#include "common/sha256.hpp"

namespace corral {
namespace {

using nlohmann::ordered_json;

// Length of the valid UTF-8 sequence at s[i], or 0 when the byte there starts none.
std::size_t utf8_sequence(const std::string& s, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  std::size_t len = c < 0x80           ? 1
                    : (c >> 5) == 0x6  ? 2
                    : (c >> 4) == 0xE  ? 3
                    : (c >> 3) == 0x1E ? 4
                                       : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  std::uint32_t cp = len == 1 ? c : c & (0xFF >> (len + 1));
  for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  static constexpr std::uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_len[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}


ordered_json string_array(const std::vector<std::string>& items) {
  ordered_json arr = ordered_json::array();
  for (const auto& s : items) arr.push_back(json_text(s));
  return arr;
}

template <typename T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

std::string format_size(std::uint64_t bytes) {
  static constexpr std::pair<std::uint64_t, const char*> units[] = {
      {1ULL << 40, "TiB"}, {1ULL << 30, "GiB"}, {1ULL << 20, "MiB"}, {1ULL << 10, "KiB"}};
  for (auto [size, name] : units)
    if (bytes % size == 0) return fmt::format("{}{} ({} bytes)", bytes / size, name, bytes);
  return fmt::format("{} bytes", bytes);
}

std::string format_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms % 3600000 == 0) return fmt::format("{}h", ms / 3600000);
  if (ms % 60000 == 0) return fmt::format("{}m", ms / 60000);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

void append_list(std::string& out, const char* name, const std::vector<std::string>& items) {
  out += fmt::format("  {}:", name);
  if (items.empty()) out += " (none)";
  out += "\n";
  for (const auto& s : items) out += fmt::format("    {}\n", s);
}

}  // namespace

// Paths are bytes; JSON strings are UTF-8. Stray bytes become "\xNN" text.
std::string json_text(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = utf8_sequence(s, i);
    if (len == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      out.append(s, i, len);
      i += len;
    }
  }
  return out;
}

ordered_json policy_to_json(const EffectivePolicy& p) {
  ordered_json j;
  j["workspace"] = json_text(p.workspace);
  if (p.workspace_cow) j["workspace_cow"] = true;  // absent when false: old hashes stay valid

  ordered_json fs;
  fs["read_deny"] = string_array(p.filesystem.read_deny);
  fs["read_allow"] = string_array(p.filesystem.read_allow);
  fs["write_allow"] = string_array(p.filesystem.write_allow);
  fs["write_deny"] = string_array(p.filesystem.write_deny);
  // Absent when empty (the usual case): old hashes stay valid.
  if (!p.filesystem.write_deny_names.empty())
    fs["write_deny_names"] = string_array(p.filesystem.write_deny_names);
  fs["read_only"] = string_array(p.filesystem.read_only);
  if (p.filesystem.watch_reads) fs["watch_reads"] = true;  // absent when false: old hashes stay
  j["filesystem"] = std::move(fs);

  ordered_json net;
  net["mode"] = net_mode_name(p.network.mode);
  net["allow"] = string_array(p.network.allow);
  net["deny"] = string_array(p.network.deny);
  net["allow_local_binding"] = p.network.allow_local_binding;
  j["network"] = std::move(net);

  ordered_json env;
  env["pass"] = string_array(p.env.pass);
  ordered_json set = ordered_json::object();
  for (const auto& [name, value] : p.env.set) set[json_text(name)] = json_text(value);  // sorted
  env["set"] = std::move(set);
  j["env"] = std::move(env);

  ordered_json lim;
  lim["memory_bytes"] = or_null(p.limits.memory_bytes);
  lim["pids"] = or_null(p.limits.pids);
  lim["cpus"] = or_null(p.limits.cpus);
  lim["timeout_ms"] =
      p.limits.timeout ? ordered_json(p.limits.timeout->count()) : ordered_json(nullptr);
  lim["output_bytes"] = or_null(p.limits.output_bytes);
  j["limits"] = std::move(lim);

  ordered_json proc;
  proc["seccomp"] = json_text(p.process.seccomp);
  proc["base"] = p.process.seccomp_base;
  proc["allow_nested_userns"] = p.process.allow_nested_userns;
  proc["block"] = string_array(p.process.seccomp_block);
  j["process"] = std::move(proc);
  return j;
}

std::string policy_hash(const EffectivePolicy& policy) {
  return "sha256:" + sha256_hex(policy_to_json(policy).dump());
}

std::string policy_to_text(const EffectivePolicy& p) {
  std::string out = fmt::format("workspace: {}\n", p.workspace);

  out += "filesystem:\n";
  append_list(out, "read_deny", p.filesystem.read_deny);
  append_list(out, "read_allow", p.filesystem.read_allow);
  append_list(out, "write_allow", p.filesystem.write_allow);
  append_list(out, "write_deny", p.filesystem.write_deny);
  append_list(out, "read_only", p.filesystem.read_only);
  out += fmt::format("  watch_reads: {}\n", p.filesystem.watch_reads);

  out += fmt::format("network:\n  mode: {}\n", net_mode_name(p.network.mode));
  append_list(out, "allow", p.network.allow);
  append_list(out, "deny", p.network.deny);
  out += fmt::format("  allow_local_binding: {}\n", p.network.allow_local_binding);

  out += "env:\n";
  append_list(out, "pass", p.env.pass);
  std::vector<std::string> set;
  for (const auto& [name, value] : p.env.set) set.push_back(name + "=" + value);
  append_list(out, "set", set);

  const auto& lim = p.limits;
  out += "limits:\n";
  out += fmt::format("  memory: {}\n",
                     lim.memory_bytes ? format_size(*lim.memory_bytes) : "unlimited");
  out += fmt::format("  pids: {}\n", lim.pids ? std::to_string(*lim.pids) : "unlimited");
  out += fmt::format("  cpus: {}\n", lim.cpus ? fmt::format("{}", *lim.cpus) : "unlimited");
  out += fmt::format("  timeout: {}\n", lim.timeout ? format_duration(*lim.timeout) : "none");
  out += fmt::format("  output: {}\n",
                     lim.output_bytes ? format_size(*lim.output_bytes) : "unlimited");

  out += "process:\n";
  out += fmt::format("  seccomp: {}", p.process.seccomp);
  if (p.process.seccomp != p.process.seccomp_base)
    out += fmt::format(" (base {})", p.process.seccomp_base);
  out += "\n";
  append_list(out, "block", p.process.seccomp_block);
  out += fmt::format("  allow_nested_userns: {}\n", p.process.allow_nested_userns);
  return out;
}

}  // namespace corral
