// Small shared pieces of the cgroup module: name checks, control-file parsers, error texts.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <string>

#include "linux/cgroup_detail.hpp"
#include "linux/probe_detail.hpp"

namespace corral::cgroup {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 128 || name == "." || name == "..") return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}
}  // namespace

std::optional<std::uint64_t> parse_u64(std::string_view text) {
  text = trim(text);
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> keyed_u64(std::string_view text, std::string_view key) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ' ')
      return parse_u64(line.substr(key.size() + 1));
    start = end + 1;
  }
  return std::nullopt;
}

std::vector<pid_t> parse_pids(std::string_view text) {
  std::vector<pid_t> pids;
  for (const std::string& w : split_words(text))
    if (auto v = parse_u64(w); v && *v > 0) pids.push_back(static_cast<pid_t>(*v));
  return pids;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find_first_of(" \t\n", start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) words.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

std::string errno_text(int err) { return probe::errno_name(err) + " (" + std::strerror(err) + ")"; }

Error fs_error(Errc code, const std::string& what, const std::string& path, int err) {
  Error e = make_error(code, what + " " + path + ": " + errno_text(err));
  e.file = path;
  return e;
}

Result<void> write_limit(CgroupFs& fs, const std::string& path, const std::string& value,
                         const char* key) {
  int err = fs.write_file(path, value);
  if (err == 0) return {};
  Error e = fs_error(Errc::setup_failed,
                     "cannot set " + std::string(key) + " = " + value + ": write", path, err);
  e.key = key;
  return e;
}

Result<std::uint64_t> cpu_quota_us(double cpus) {
  // The kernel refuses quotas under 1ms; a quota that large in CPUs is surely a typo.
  if (!std::isfinite(cpus) || cpus <= 0 || cpus > 100000) {
    Error e = make_error(Errc::invalid_input, "cpus must be a positive number of CPUs");
    e.key = "limits.cpus";
    return e;
  }
  auto quota = static_cast<std::uint64_t>(std::llround(cpus * static_cast<double>(kCpuPeriodUs)));
  if (quota < 1000) {
    Error e =
        make_error(Errc::invalid_input, "cpus must be at least 0.01 (the kernel's 1 ms quota)");
    e.key = "limits.cpus";
    return e;
  }
  return quota;
}

Result<std::optional<std::uint64_t>> read_u64(CgroupFs& fs, const std::string& path) {
  std::string text;
  int err = fs.read_file(path, text);
  if (err == ENOENT) return std::optional<std::uint64_t>();
  if (err != 0) return fs_error(Errc::io_error, "cannot read", path, err);
  return parse_u64(text);
}

Result<std::optional<std::uint64_t>> read_keyed(CgroupFs& fs, const std::string& path,
                                                std::string_view key) {
  std::string text;
  int err = fs.read_file(path, text);
  if (err == ENOENT) return std::optional<std::uint64_t>();
  if (err != 0) return fs_error(Errc::io_error, "cannot read", path, err);
  return keyed_u64(text, key);
}

Result<void> pids_stats(CgroupFs& fs, const std::string& leaf, CgroupStats& out) {
  auto max = read_keyed(fs, leaf + "/pids.events", "max");
  if (!max) return std::move(max).error();
  out.pids_max_events = max->value_or(0);
  out.pids_limit_hit = out.pids_max_events > 0;
  return {};
}

void sleep_ms(int ms) {
  timespec ts{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

}  // namespace corral::cgroup
