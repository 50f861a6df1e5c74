// One-shot runs: prepare the child's configuration, clone it into new namespaces, supervise it
// (signals, time limit, output), and turn what happened into a RunRecord.
#include "enforce/run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <cstring>
#include <fmt/format.h>

#include "common/state_root.hpp"
#include "enforce/child_config.hpp"
#include "enforce/egress.hpp"
#include "enforce/env.hpp"
#include "enforce/messages.hpp"
#include "enforce/run_cgroup.hpp"
#include "enforce/violations.hpp"
#include "linux/fd_passing.hpp"
#include "linux/probe.hpp"
#include "linux/seccomp.hpp"
#include "linux/process.hpp"
#include "policy/show.hpp"

namespace corral {
namespace {

Error setup_error(Errc code, std::string message) { return make_error(code, std::move(message)); }

std::string relative_to_root(const std::string& path) {
  if (path == "/") return ".";
  return path.substr(1);
}

// Refuses what this build cannot enforce yet, rather than pretending to.
Result<void> check_enforceable(const EffectivePolicy& policy, const std::string& layer) {
  std::vector<std::string> missing;
  if (policy.workspace_cow && layer.empty())
    missing.push_back("a copy-on-write workspace without a layer directory (set "
                      "RunRequest::workspace_layer; see workspace/run_layer.hpp)");
  if (missing.empty()) return {};
  std::string msg = "this policy asks for what corral cannot enforce yet, so nothing was run:";
  for (const auto& m : missing) msg += "\n  - " + m;
  return setup_error(Errc::unsupported, msg);
}

Result<Features> check_kernel(const EffectivePolicy& policy) {
  Features features = probe_features();
  Requirements req = check_requirements(features, policy);
  if (req.errors.empty()) return features;
  std::string msg = "this kernel cannot enforce the policy (run `corral doctor` for fixes):";
  for (const auto& e : req.errors) msg += "\n  - " + e;
  return setup_error(Errc::unsupported, msg);
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

std::int64_t ms_of(const timeval& tv) {
  return static_cast<std::int64_t>(tv.tv_sec) * 1000 + tv.tv_usec / 1000;
}

}  // namespace

void finalize_child_config(ChildConfig& c) {
  c.rel_targets.clear();
  for (const auto& op : c.plan.ops) c.rel_targets.push_back(relative_to_root(op.target));
  c.rel_readonly_last.clear();
  for (const auto& t : c.plan.remount_readonly_last) c.rel_readonly_last.push_back(relative_to_root(t));
  c.source_fds.assign(c.plan.ops.size(), -1);
  c.argv = pointers_to(c.argv_storage);
  c.envp = pointers_to(c.env_storage);
}

std::string new_run_id() {
  unsigned char bytes[8];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) {
    auto t = std::chrono::steady_clock::now().time_since_epoch().count();
    std::memcpy(bytes, &t, sizeof bytes);
  }
  std::string id = "run-";
  for (unsigned char b : bytes) id += fmt::format("{:02x}", b);
  return id;
}

Result<std::unique_ptr<Execution>> start_run(RunRequest request) {
  if (request.argv.empty()) return setup_error(Errc::invalid_input, "no command given");
  if (auto r = check_enforceable(request.policy, request.workspace_layer); !r)
    return std::move(r).error();
  auto features = check_kernel(request.policy);
  if (!features) return std::move(features).error();

  std::unique_ptr<Execution> exe(new Execution());
  RunRecord& rec = exe->record_;
  rec.id = request.id.empty() ? new_run_id() : request.id;
  rec.argv = request.argv;
  rec.policy_hash = policy_hash(request.policy);
  // Refusals corral cannot see (seccomp, limit and read-only-write violations are recorded).
  rec.not_observed = {reads_not_observed(request.policy.filesystem.watch_reads),
                      kEaccesWritesNotObserved};
  // With an allowlist every refusal passes through the run's proxy; otherwise a refused
  // connect is just "network unreachable" inside.
  if (request.policy.network.mode != NetMode::allowlist) {
    rec.not_observed.push_back("network");
  } else {
    rec.not_observed.push_back("network: connects straight to an address fail (no route) and "
                               "are not recorded; neither are connects to allowed names on "
                               "ports no rule gives them");
  }
  auto egress = prepare_egress(request.policy);
  if (!egress) return std::move(egress).error();
  if (!request.policy.workspace_cow)
    rec.not_observed.push_back("writes: not recorded for a plain writable workspace "
                               "(writes_exact is false); --workspace PATH:cow lists them exactly");
  std::vector<std::string> absent_deny = unprotected_write_deny(request.policy);
  for (const auto& p : absent_deny)
    rec.not_enforced.push_back(
        "filesystem.write_deny " + p + ": does not exist yet, so no mount protects it; " +
        (features->seccomp_user_notif
             ? "corral's seccomp monitor refuses writes that reach it (EROFS) by the path a "
               "call names, which a thread racing the check could change"
             : "this kernel has no SECCOMP_RET_USER_NOTIF, so it is not protected if created"));

  exe->watch_landlock_denials(features->landlock_abi);

  std::string no_cgroup_why;
  auto cgroup = make_run_cgroup(request.policy.limits, rec.id, &no_cgroup_why);
  if (!cgroup) return std::move(cgroup).error();
  exe->cgroup_ = std::move(*cgroup);
  if (!exe->cgroup_) rec.not_observed.push_back(no_cgroup_why);
  exe->limits_ = request.policy.limits;

  ChildConfig cfg;
  cfg.uid = getuid();
  cfg.gid = getgid();
  cfg.private_network = request.policy.network.mode != NetMode::all;
  auto state_root = corral_state_root();
  if (!state_root) return std::move(state_root).error();  // e.g. a relative CORRAL_HOME
  cfg.plan = build_mount_plan(request.policy,
                              MountPlanOptions{cfg.private_network, request.workspace_layer,
                                               state_root ? *state_root : ""});
  cfg.landlock = landlock::build_ruleset(request.policy, features->landlock_abi);
  for (const auto& rule : cfg.landlock.rules) exe->landlock_paths_.push_back(rule.path);
  if (features->landlock_abi == 0)
    rec.not_enforced.push_back("landlock: unavailable on this kernel; only the mount view "
                               "guards the filesystem");
  else if (features->landlock_abi < 6)
    rec.not_enforced.push_back("landlock scopes (abstract unix sockets, signals): need ABI 6, "
                               "this kernel has " + std::to_string(features->landlock_abi));
  for (const auto& op : cfg.plan.ops)
    exe->op_descriptions_.push_back(fmt::format("{} {}", mount_op_kind_name(op.kind), op.target));
  // The filter is compiled here (cached per process) and only loaded by the child.
  SeccompOptions seccomp_opts;
  seccomp_opts.notify = features->seccomp_user_notif;
  seccomp_opts.profile = request.policy.process.seccomp_base == "strict"
                             ? SeccompOptions::Profile::strict
                             : SeccompOptions::Profile::default_profile;
  seccomp_opts.allow_nested_userns = request.policy.process.allow_nested_userns;
  seccomp_opts.extra_blocked = request.policy.process.seccomp_block;
  seccomp_opts.watch_writes = true;
  seccomp_opts.watch_reads = request.policy.filesystem.watch_reads;
  // With an allowlist, servers inside need network.allow_local_binding: without it listen()
  // is refused (and recorded). The bridge's own sockets are opened before the filter.
  if (request.policy.network.mode == NetMode::allowlist &&
      !request.policy.network.allow_local_binding)
    seccomp_opts.extra_blocked.push_back("listen");
  auto seccomp = compile_seccomp_filter(seccomp_opts);
  if (!seccomp) return std::move(seccomp).error();
  cfg.seccomp = &*seccomp;
  cfg.seccomp_listener = seccomp->needs_listener;
  exe->watched_nrs_ = seccomp->watched_nrs;
  if (!seccomp_opts.notify) {
    rec.not_observed.push_back("seccomp: refused calls fail with EPERM but this kernel cannot "
                               "report them (no SECCOMP_RET_USER_NOTIF)");
    rec.not_observed.push_back("filesystem writes: writes to read-only paths fail with EROFS "
                               "but this kernel cannot report them (no SECCOMP_RET_USER_NOTIF)");
  }

  if (exe->audit_) {
    cfg.landlock_beacon = true;
    cfg.audit_fd = exe->audit_->fd();
  }
  cfg.argv_storage = request.argv;
  const auto host_env = request.host_env.empty() ? current_environment() : request.host_env;
  auto overlay = request.env_overlay;
  if (*egress) {
    configure_child_egress(**egress, cfg, overlay);
    for (std::size_t i = exe->op_descriptions_.size(); i < cfg.plan.ops.size(); ++i)
      exe->op_descriptions_.push_back(
          fmt::format("{} {}", mount_op_kind_name(cfg.plan.ops[i].kind), cfg.plan.ops[i].target));
    for (const auto& name : (*egress)->plan.not_covered)
      rec.not_enforced.push_back("network.allow " + name +
                                 ": reachable through the proxy only (no transparent mode for "
                                 "addresses, localhost or past the name limit)");
  }
  exe->fs_guard_ = fs_guard_for(cfg.plan, request.policy, std::move(absent_deny),
                                state_root ? *state_root : "");
  cfg.env_storage = build_child_env(request.policy.env, host_env, overlay);
  cfg.cwd = request.cwd.empty() ? request.policy.workspace : request.cwd;
  cfg.fallback_cwd = request.policy.workspace;
  const char* trace = getenv("CORRAL_TRACE_SETUP");
  cfg.trace = trace && *trace == '1';
  finalize_child_config(cfg);

  int sp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0)
    return setup_error(Errc::setup_failed, std::string("socketpair: ") + std::strerror(errno));
  exe->ctl_.reset(sp[0]);
  UniqueFd child_ctl(sp[1]);
  cfg.ctl_fd = child_ctl.get();
  cfg.parent_ctl_fd = exe->ctl_.get();

  UniqueFd child_in, child_out, child_err;
  if (request.stdio == StdioMode::pipe) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
      return setup_error(Errc::setup_failed, std::string("pipe: ") + std::strerror(errno));
    exe->out_.reset(out[0]);
    child_out.reset(out[1]);
    exe->err_.reset(err[0]);
    child_err.reset(err[1]);
    if (!request.inherit_stdin) {
      child_in.reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
      cfg.stdio_fds[0] = child_in.get();
    }
    cfg.stdio_fds[1] = child_out.get();
    cfg.stdio_fds[2] = child_err.get();
  }

  std::uint64_t flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
  if (cfg.private_network) flags |= CLONE_NEWNET;
  exe->started_ = std::chrono::steady_clock::now();
  if (request.policy.limits.timeout) exe->deadline_ = exe->started_ + *request.policy.limits.timeout;

  const int cgroup_fd = exe->cgroup_ ? exe->cgroup_->clone_into_fd() : -1;
  CloneResult cr = clone_into_namespaces(flags, cgroup_fd);
  if (cr.pid == 0) child_main(cfg);  // never returns
  if (cr.pid < 0)
    return setup_error(Errc::setup_failed,
                       std::string("cannot create the sandbox's namespaces (clone3): ") +
                           std::strerror(errno) + "; run `corral doctor`");
  exe->pid_ = cr.pid;
  exe->pidfd_.reset(cr.pidfd);
  if (exe->audit_) exe->landlock_denials_.emplace(cr.pid);
  // The child waits for `go` before it enters its cgroup namespace: join the run's cgroup first.
  if (exe->cgroup_ && cgroup_fd < 0) {
    if (auto r = exe->cgroup_->attach(cr.pid); !r) {
      exe->cancel();
      return std::move(r).error();
    }
  }

  ParentMsg go{1};
  if (send(exe->ctl_.get(), &go, sizeof go, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof go)) {
    // The child died before we could release it; wait() reports what it said.
  }
  if (*egress) {
    auto proxy = start_egress_proxy(**egress, exe->ctl_.get(), exe->pidfd_.get());
    if (!proxy) return std::move(proxy).error();  // ~Execution kills and reaps the child
    exe->egress_ = std::move(*proxy);
  }
  return exe;
}

// Landlock ABI 7 logs its refusals to the kernel audit log (landlock.cpp asks for the command's
// too): listen there when this process may and the host's audit is on. Where it cannot, the
// record says why; corral never switches audit on itself (that is the host's policy).
void Execution::watch_landlock_denials(int landlock_abi) {
  RunRecord& rec = record_;
  if (landlock_abi <= 0) return;  // no Landlock: nothing it could refuse
  if (landlock_abi < 7) {
    rec.not_observed.push_back("landlock denials: logging them needs Landlock ABI 7, this kernel "
                               "has " + std::to_string(landlock_abi));
    return;
  }
  auto listener = audit::Listener::open();
  if (!listener) {
    rec.not_observed.push_back("landlock denials: " + listener.error().message);
    return;
  }
  auto st = audit::status();
  if (!st) {
    rec.not_observed.push_back("landlock denials: cannot read the audit status: " +
                               st.error().message);
    return;
  }
  if (!st->enabled) {
    rec.not_observed.push_back("landlock denials: the kernel audit subsystem is off (`auditctl "
                               "-e 1` turns it on; corral leaves that to the host)");
    return;
  }
  audit_ = std::move(*listener);
  audit_lost_at_start_ = st->lost;
  for (auto& line : rec.not_observed)
    if (line == kEaccesWritesNotObserved) line = kModeWritesNotObserved;
  rec.not_observed.push_back("landlock denials by a domain the command stacks on its own: the "
                             "kernel logs them under that domain (or not at all)");
}

void Execution::collect_landlock_denials() {
  if (!audit_ || !landlock_denials_) return;
  // The kernel hands records to listeners in the order they were logged: once a marker logged
  // now comes back, every denial of the (finished) sandbox has been read.
  const std::string token = "corral run " + record_.id + " ended";
  std::vector<audit::Record> records;
  bool complete = static_cast<bool>(audit_->send_marker(token)) &&
                  audit_->read_until_marker(token, std::chrono::milliseconds(500), records);
  for (const auto& r : records) landlock_denials_->add(r);
  for (auto& v : landlock_denials_->violations()) record_.violations.push_back(std::move(v));
  if (!landlock_denials_->identified())
    record_.not_observed.push_back(
        "landlock denials: the sandbox's Landlock domain was not found in the audit log (its "
        "init's beacon event came without a SYSCALL record naming the init, e.g. because a "
        "`-a task,never` audit rule turns syscall records off); none are recorded");
  if (!complete)
    record_.not_observed.push_back(
        "landlock denials: the audit log did not confirm that it delivered every record (its "
        "socket overflowed, or corral's marker record did not come back); some may be missing");
  if (auto st = audit::status(); st && st->lost > audit_lost_at_start_)
    record_.not_observed.push_back(fmt::format(
        "landlock denials: the kernel audit log dropped {} records during this run (backlog or "
        "rate limit); denials among them are missing",
        st->lost - audit_lost_at_start_));
  audit_.reset();
  landlock_denials_.reset();
}

Execution::~Execution() {
  if (!finished_ && pidfd_.valid()) {
    cancel();
    int status;
    waitpid(pid_, &status, 0);
  }
  release_cgroup();
}

void Execution::release_cgroup() {
  if (!cgroup_) return;
  (void)cgroup_->kill_all();
  (void)cgroup_->remove();
  cgroup_.reset();
}

void Execution::signal(int sig) {
  if (pidfd_.valid() && !finished_) pidfd_signal(pidfd_.get(), sig);
}

void Execution::cancel() {
  if (pidfd_.valid() && !finished_) {
    record_.cancelled = true;
    pidfd_signal(pidfd_.get(), SIGKILL);
  }
}

Result<RunRecord> Execution::wait(const WaitOptions& options) {
  if (finished_) return record_;
  std::optional<ChildMsg> setup_failure, exec_failure, exited;
  bool ctl_open = true;
  std::unique_ptr<SeccompMonitor> monitor;
  auto take_messages = [&] {
    ChildMsg msg;
    while (ctl_open) {
      int passed_fd = -1;
      ssize_t n = recv_with_fd(ctl_.get(), &msg, sizeof msg, &passed_fd, MSG_DONTWAIT);
      if (passed_fd >= 0) {
        if (msg.type == ChildMsgType::seccomp_listener && !monitor)
          monitor = std::make_unique<SeccompMonitor>(passed_fd, watched_nrs_, fs_guard_);
        else
          close(passed_fd);
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) return;
      if (n != static_cast<ssize_t>(sizeof msg)) {
        ctl_open = false;  // EOF: init is gone (or sent garbage)
        return;
      }
      if (msg.type == ChildMsgType::setup_failed) setup_failure = msg;
      if (msg.type == ChildMsgType::exec_failed) exec_failure = msg;
      if (msg.type == ChildMsgType::exited) exited = msg;
    }
  };

  bool pump = static_cast<bool>(options.on_stdout) || static_cast<bool>(options.on_stderr);
  bool out_open = pump && out_.valid(), err_open = pump && err_.valid();
  bool child_gone = false;
  std::uint64_t output_seen = 0;
  int status = 0;
  rusage usage{};
  std::vector<char> buf(pump ? 1 << 16 : 0);

  while (!child_gone || out_open || err_open) {
    pollfd fds[7];
    int n = 0;
    int i_pid = -1, i_ctl = -1, i_sig = -1, i_out = -1, i_err = -1, i_sec = -1, i_aud = -1;
    if (monitor) { fds[n] = {monitor->fd(), POLLIN, 0}; i_sec = n++; }
    if (audit_) { fds[n] = {audit_->fd(), POLLIN, 0}; i_aud = n++; }
    if (!child_gone) {
      fds[n] = {pidfd_.get(), POLLIN, 0}; i_pid = n++;
      if (ctl_open) { fds[n] = {ctl_.get(), POLLIN, 0}; i_ctl = n++; }
      if (options.signal_fd >= 0) { fds[n] = {options.signal_fd, POLLIN, 0}; i_sig = n++; }
    }
    if (out_open) { fds[n] = {out_.get(), POLLIN, 0}; i_out = n++; }
    if (err_open) { fds[n] = {err_.get(), POLLIN, 0}; i_err = n++; }

    int timeout_ms = -1;
    if (deadline_ && !child_gone && !record_.timed_out) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *deadline_ - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        record_.timed_out = true;
        record_.violations.push_back({"limit", now_rfc3339(), "timeout",
                                      fmt::format("time limit of {} ms reached; the sandbox was killed",
                                                  limits_.timeout ? limits_.timeout->count() : 0)});
        pidfd_signal(pidfd_.get(), SIGKILL);  // init's death takes the whole namespace
        continue;
      }
      timeout_ms = static_cast<int>(std::min<long long>(left, 1 << 30));
    }
    int r = poll(fds, static_cast<nfds_t>(n), timeout_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return setup_error(Errc::internal, std::string("poll: ") + std::strerror(errno));
    }
    if (i_ctl >= 0 && fds[i_ctl].revents) take_messages();
    if (i_aud >= 0 && fds[i_aud].revents) {
      std::vector<audit::Record> records;
      audit_->read_available(records);
      for (const auto& r : records) landlock_denials_->add(r);
    }
    if (i_sec >= 0 && fds[i_sec].revents) {
      // Answer every waiting call before anything else: the caller is blocked on us.
      // At most a batch per turn: the deadline and the output come round again in between.
      bool drained = false;
      for (int k = 0; k < kSeccompEventsPerWake; ++k) {
        auto ev = monitor->handle_one();
        if (!ev) {
          drained = true;
          break;
        }
        if (auto v = violation_of(*ev); v && trapped_cap_.admit())
          record_.violations.push_back(std::move(*v));
      }
      if (drained && (fds[i_sec].revents & (POLLHUP | POLLERR))) monitor.reset();
    }
    if (i_sig >= 0 && (fds[i_sig].revents & POLLIN)) {
      signalfd_siginfo si;
      if (read(options.signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        // A terminal already delivered it to the command (same process group).
        if (si.ssi_code != SI_KERNEL) pidfd_signal(pidfd_.get(), static_cast<int>(si.ssi_signo));
      }
    }
    auto drain = [&](int idx, UniqueFd& fd, bool& open, const auto& sink) {
      if (idx < 0 || !fds[idx].revents) return;
      ssize_t got = read(fd.get(), buf.data(), buf.size());
      if (got > 0 && limits_.output_bytes && !record_.output_truncated) {
        // Output past the limit is cut there; the sandbox is killed and the record says so.
        std::uint64_t room = *limits_.output_bytes - output_seen;
        if (static_cast<std::uint64_t>(got) > room) {
          if (room > 0 && sink) sink(buf.data(), static_cast<size_t>(room));
          output_seen += room;
          record_.output_truncated = true;
          record_.violations.push_back({"limit", now_rfc3339(), "output",
                                        fmt::format("output limit of {} bytes reached; the rest "
                                                    "was cut and the sandbox killed",
                                                    *limits_.output_bytes)});
          if (!child_gone) pidfd_signal(pidfd_.get(), SIGKILL);
          got = 0;
          return;
        }
        output_seen += static_cast<std::uint64_t>(got);
      }
      if (record_.output_truncated && got > 0) return;  // discard what still drains
      if (got > 0) {
        if (sink) sink(buf.data(), static_cast<size_t>(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        open = false;
      }
    };
    drain(i_out, out_, out_open, options.on_stdout);
    drain(i_err, err_, err_open, options.on_stderr);
    if (i_pid >= 0 && (fds[i_pid].revents & POLLIN)) {
      while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
      }
      child_gone = true;
      take_messages();
    }
  }
  finished_ = true;
  monitor.reset();
  if (auto t = trapped_cap_.summary()) record_.violations.push_back(std::move(*t));
  collect_landlock_denials();
  if (egress_) {
    egress_->stop();  // the sandbox is gone: nothing can connect any more
    record_egress(egress_->report(), record_);
    egress_.reset();
  }

  auto end = std::chrono::steady_clock::now();
  record_.duration_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(end - started_).count();
  record_.cpu_ms = ms_of(usage.ru_utime) + ms_of(usage.ru_stime);
  record_.peak_memory_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  if (cgroup_) record_cgroup_stats(*cgroup_, limits_, record_);
  release_cgroup();

  if (setup_failure) {
    const ChildMsg& m = *setup_failure;
    std::string where = setup_step_name(m.step);
    if ((m.step == SetupStep::mount_op || m.step == SetupStep::clone_sources) &&
        m.op_index < op_descriptions_.size())
      where += " (" + op_descriptions_[m.op_index] + ")";
    if (m.step == SetupStep::landlock && m.op_index > 0 && m.op_index <= landlock_paths_.size())
      where += " (rule for " + landlock_paths_[m.op_index - 1] + ")";
    return setup_error(Errc::setup_failed,
                       fmt::format("sandbox setup failed while {}: {}", where, std::strerror(m.err)));
  }
  if (exec_failure) {
    int e = exec_failure->err;
    record_.exit_code = e == ENOENT ? 127 : 126;
    record_.error = e == ENOENT
                        ? fmt::format("{}: command not found", record_.argv[0])
                        : fmt::format("{}: cannot execute: {}", record_.argv[0], std::strerror(e));
    return record_;
  }
  if (record_.timed_out) {
    record_.exit_code = 124;
    record_.signal = SIGKILL;
  } else if (exited) {
    int ws = exited->wait_status;
    if (WIFEXITED(ws)) {
      record_.exit_code = WEXITSTATUS(ws);
    } else if (WIFSIGNALED(ws)) {
      record_.signal = WTERMSIG(ws);
      record_.exit_code = 128 + WTERMSIG(ws);
    }
  } else if (WIFSIGNALED(status)) {
    // init itself was killed (cancel, or from outside): the command died with it.
    record_.signal = WTERMSIG(status);
    record_.exit_code = 128 + WTERMSIG(status);
  } else {
    // init exited without a report: it failed before it could send one.
    return setup_error(Errc::setup_failed,
                       fmt::format("sandbox init exited with status {} before starting the command",
                                   WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  }
  return record_;
}

Result<CapturedRun> run_and_capture(RunRequest request) {
  request.stdio = StdioMode::pipe;
  auto started = start_run(std::move(request));
  if (!started) return std::move(started).error();
  CapturedRun out;
  Execution::WaitOptions opts;
  opts.on_stdout = [&](const char* p, size_t n) { out.stdout_data.append(p, n); };
  opts.on_stderr = [&](const char* p, size_t n) { out.stderr_data.append(p, n); };
  auto rec = (*started)->wait(opts);
  if (!rec) return std::move(rec).error();
  out.record = std::move(*rec);
  return out;
}

}  // namespace corral
