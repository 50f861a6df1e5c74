// Matches Landlock's audit records to the run's domain and turns them into violations.
#include "enforce/landlock_denials.hpp"

#include <seccomp.h>

#include <chrono>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "enforce/violations.hpp"

namespace corral {
namespace {

// ACCESS records held before the beacon: its own come right before its SYSCALL record.
constexpr std::size_t kRecentBeforeBeacon = 256;

// "1796069581.876:3" -> the record's time.
std::string time_of(const std::string& serial) {
  char* end = nullptr;
  double secs = std::strtod(serial.c_str(), &end);
  if (end == serial.c_str()) return now_rfc3339();
  auto ms = std::chrono::milliseconds(static_cast<std::int64_t>(secs * 1000.0));
  return rfc3339(std::chrono::system_clock::time_point(ms));
}

std::string syscall_name(const audit::Record& sc) {
  auto nr = audit::field(sc.body, "syscall");
  auto arch = audit::field(sc.body, "arch");
  if (!nr) return "";
  std::uint32_t a = arch ? static_cast<std::uint32_t>(std::strtoul(arch->c_str(), nullptr, 16))
                         : seccomp_arch_native();
  char* name = seccomp_syscall_resolve_num_arch(a, std::atoi(nr->c_str()));
  std::string out = name ? name : "syscall_" + *nr;
  std::free(name);
  return out;
}

}  // namespace

void LandlockDenials::add(const audit::Record& r) {
  if (r.type == audit::kLandlockAccess) {
    auto domain = audit::field(r.body, "domain");
    if (!domain) return;
    if (!domain_) {
      recent_.push_back({r.serial, *domain, r.body});
      if (recent_.size() > kRecentBeforeBeacon) recent_.pop_front();
      return;
    }
    if (*domain != *domain_) return;  // another sandbox's, or a domain the command stacked
    if (kept_.size() >= kMaxTrappedViolations) {
      ++dropped_;
      return;
    }
    kept_.push_back({r.serial, *domain, r.body});
    return;
  }
  if (r.type != audit::kSyscall) return;
  auto pid = audit::field(r.body, "pid");
  if (!domain_) {
    // The beacon: the init's own refused write.
    if (!pid || std::atol(pid->c_str()) != static_cast<long>(init_pid_)) return;
    for (const Access& a : recent_)
      if (a.serial == r.serial) domain_ = a.domain;
    if (domain_) {
      beacon_serial_ = r.serial;
      recent_.clear();
    }
    return;
  }
  // The event's SYSCALL record follows its ACCESS records: which call, by which program.
  if (!kept_.empty() && kept_.back().serial == r.serial && !calls_.count(r.serial))
    calls_[r.serial] = Call{syscall_name(r), audit::field(r.body, "comm", true).value_or("")};
}

std::vector<Violation> LandlockDenials::violations() const {
  std::vector<Violation> out;
  for (const Access& a : kept_) {
    Violation v;
    v.kind = "landlock";
    v.time = time_of(a.serial);
    const std::string blockers = audit::field(a.body, "blockers").value_or("?");
    if (auto path = audit::field(a.body, "path", /*may_be_hex=*/true)) {
      v.subject = *path;
    } else {
      // Not a file: a scope or network refusal; its own fields name the target.
      std::string_view rest(a.body);
      auto at = rest.find("blockers=");
      at = at == std::string_view::npos ? std::string_view::npos : rest.find(' ', at);
      v.subject = at == std::string_view::npos ? blockers : std::string(rest.substr(at + 1));
    }
    v.detail = fmt::format("{} refused by Landlock (EACCES)", blockers);
    if (auto c = calls_.find(a.serial); c != calls_.end()) {
      if (!c->second.name.empty()) v.detail += " in " + c->second.name;
      if (!c->second.comm.empty()) v.detail += " by " + c->second.comm;
    }
    out.push_back(printable_violation(std::move(v)));
  }
  if (dropped_ > 0)
    out.push_back({"truncated", now_rfc3339(), "landlock",
                   fmt::format("{} more Landlock denials not listed", dropped_)});
  return out;
}

}  // namespace corral
