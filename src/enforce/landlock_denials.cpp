// Matches Landlock's audit records to the run's domain and turns them into violations.
#include "enforce/landlock_denials.hpp"

#include <seccomp.h>

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

#include "enforce/violations.hpp"

namespace corral {
namespace {

// Records of domains not named yet are held this long at most (a domain's first record comes
// in the same event as its first denial, so the wait is short); beyond it they are dropped.
constexpr std::size_t kMaxPending = 4096;

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

void LandlockDenials::keep(Access a) {
  if (kept_.size() >= kMaxTrappedViolations) {
    ++dropped_;
    return;
  }
  kept_.push_back(std::move(a));
}

void LandlockDenials::add(const audit::Record& r) {
  if (r.type == audit::kLandlockDomain) {
    auto domain = audit::field(r.body, "domain");
    auto status = audit::field(r.body, "status");
    auto pid = audit::field(r.body, "pid");
    if (!domain || !status || *status != "allocated" || !pid) return;
    bool mine = std::atol(pid->c_str()) == static_cast<long>(init_pid_);
    (mine ? ours_ : foreign_).insert(*domain);
    auto it = pending_.find(*domain);
    if (it == pending_.end()) return;
    pending_count_ -= it->second.size();
    if (mine)
      for (auto& a : it->second) keep(std::move(a));
    pending_.erase(it);
    return;
  }
  if (r.type == audit::kLandlockAccess) {
    auto domain = audit::field(r.body, "domain");
    if (!domain || foreign_.count(*domain)) return;
    Access a{r.serial, *domain, r.body};
    if (ours_.count(*domain)) {
      keep(std::move(a));
    } else if (pending_count_ < kMaxPending) {
      pending_[*domain].push_back(std::move(a));
      ++pending_count_;
    }
    return;
  }
  if (r.type == audit::kSyscall) {
    // The event's SYSCALL record follows its Landlock records: which call, by which program.
    bool wanted = !kept_.empty() && kept_.back().serial == r.serial;
    for (const auto& [d, list] : pending_)
      if (!list.empty() && list.back().serial == r.serial) wanted = true;
    if (wanted && syscalls_.size() < kMaxTrappedViolations) syscalls_.emplace(r.serial, r);
  }
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
    if (auto sc = syscalls_.find(a.serial); sc != syscalls_.end()) {
      std::string call = syscall_name(sc->second);
      auto comm = audit::field(sc->second.body, "comm", /*may_be_hex=*/true);
      if (!call.empty()) v.detail += " in " + call;
      if (comm) v.detail += " by " + *comm;
    }
    out.push_back(std::move(v));
  }
  if (dropped_ > 0)
    out.push_back({"truncated", now_rfc3339(), "landlock",
                   fmt::format("{} more Landlock denials not listed", dropped_)});
  return out;
}

}  // namespace corral
