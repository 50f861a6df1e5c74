// Turning trapped calls into violations (see violations.hpp).
#include "enforce/violations.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <map>

#include <fmt/format.h>

#include "policy/show.hpp"

namespace corral {
namespace {

Violation seccomp_violation(const SeccompEvent& ev) {
  Violation v;
  v.kind = "seccomp";
  v.time = rfc3339(ev.time);
  v.subject = ev.syscall;
  if (ev.syscall == "ioctl") {
    unsigned request = static_cast<unsigned>(ev.args[1]);
    v.subject += request == 0x5412 ? "(TIOCSTI)" : request == 0x541C ? "(TIOCLINUX)"
                                                 : fmt::format("(0x{:x})", request);
  }
  v.detail = fmt::format("refused with EPERM (pid {}, args 0x{:x}, 0x{:x}, 0x{:x})", ev.pid,
                         ev.args[0], ev.args[1], ev.args[2]);
  return v;
}

// A filesystem violation about the watched call's path: "OP: WHAT (pid N)".
Violation filesystem_violation(const SeccompEvent& ev, const std::string& what) {
  return {"filesystem", rfc3339(ev.time), ev.write->path,
          fmt::format("{}: {} (pid {})", ev.write->op, what, ev.pid), std::nullopt};
}

// A write-type call that the filesystem view refuses (the kernel fails it itself), or that
// reaches an absent write_deny path (corral's monitor fails it).
Violation write_violation(const SeccompEvent& ev) {
  if (!ev.write->unmoors.empty())
    return filesystem_violation(
        ev, fmt::format("moves, replaces or removes the way to {} (a write_deny path or corral's "
                        "state directory), which could then be re-created without its "
                        "protection; refused by corral with EROFS",
                        ev.write->unmoors));
  if (!ev.write->absent_deny.empty())
    return filesystem_violation(
        ev, fmt::format("under write_deny {}, which did not exist when the sandbox started (no "
                        "mount protects it), refused by corral with EROFS",
                        ev.write->absent_deny));
  const std::string& e = ev.write->error;
  return filesystem_violation(
      ev, e == "EXDEV"   ? "a hard link to a file outside the writable paths, refused with EXDEV"
          : e == "EBUSY" ? "of a path bound read-only over itself (write_deny), refused with EBUSY"
                         : "a write to a read-only path, refused with EROFS");
}

// An open of a read_deny path (watch_reads): the mask makes it fail or read nothing.
Violation read_violation(const SeccompEvent& ev) {
  return filesystem_violation(
      ev, fmt::format("a read of read_deny {}, which the sandbox sees masked (EACCES, not found, "
                      "or empty)", ev.write->read_deny));
}

std::optional<Violation> raw_violation_of(const SeccompEvent& ev) {
  if (ev.refused) return seccomp_violation(ev);
  if (!ev.write) return std::nullopt;
  if (ev.write->refused) return write_violation(ev);
  if (!ev.write->read_deny.empty()) return read_violation(ev);
  return std::nullopt;  // a write that lands where it may
}

}  // namespace

// The path comes from the caller's memory: any bytes, any length. The record gets valid UTF-8
// (stray bytes as "\xNN") of bounded size, so a hostile name can neither break the JSON
// (nlohmann throws on invalid UTF-8) nor bloat a message.
Violation printable_violation(Violation v) {
  constexpr std::size_t kMaxSubject = 512;
  if (v.subject.size() > kMaxSubject) v.subject = v.subject.substr(0, kMaxSubject) + "...";
  v.subject = json_text(v.subject);
  v.detail = json_text(v.detail);
  return v;
}

std::optional<Violation> violation_of(const SeccompEvent& ev) {
  auto v = raw_violation_of(ev);
  if (!v) return v;
  return printable_violation(std::move(*v));
}


std::optional<Violation> ViolationCap::summary() const {
  if (dropped_ == 0) return std::nullopt;
  return Violation{"truncated", now_rfc3339(), "violations",
                   fmt::format("{} more refused calls and writes were not kept (the first {} are)",
                               dropped_, kMaxTrappedViolations),
                   std::nullopt};
}

nlohmann::ordered_json violation_to_json(const Violation& v) {
  nlohmann::ordered_json jv = {{"kind", v.kind}, {"time", v.time},
                               {"subject", json_text(v.subject)}, {"detail", json_text(v.detail)}};
  if (v.port) {  // network: the host and port, named as such
    jv["host"] = v.subject;
    jv["port"] = *v.port;
  }
  return jv;
}

std::optional<Violation> violation_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  auto str = [&](const char* key) -> std::optional<std::string> {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return std::nullopt;
    return it->get<std::string>();
  };
  auto kind = str("kind"), time = str("time"), subject = str("subject"), detail = str("detail");
  if (!kind || !time || !subject || !detail) return std::nullopt;
  Violation v{*kind, *time, *subject, *detail, std::nullopt};
  if (auto it = j.find("port"); it != j.end() && it->is_number_unsigned() &&
                                it->get<std::uint64_t>() <= 65535)
    v.port = static_cast<std::uint16_t>(it->get<std::uint64_t>());
  return v;
}

std::string violation_summary(const std::vector<Violation>& violations) {
  std::map<std::string, int> counts;
  for (const auto& v : violations) ++counts[v.kind + " " + v.subject];
  std::string list;
  for (const auto& [what, n] : counts)
    list += fmt::format("{}{}{}", list.empty() ? "" : ", ", what,
                        n > 1 ? fmt::format(" x{}", n) : "");
  return list;
}

void append_violation_line(int dir_fd, const nlohmann::ordered_json& entry) {
  if (dir_fd < 0) return;
  std::string line =
      entry.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
  int fd = openat(dir_fd, "violations.jsonl",
                  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return;
  ssize_t n = write(fd, line.data(), line.size());
  (void)n;
  close(fd);
}

}  // namespace corral
