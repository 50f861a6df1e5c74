// The host side of a supervisor's start: configuration, clone, the ready handshake.
#include "sandbox/spawn.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <fmt/format.h>

#include "enforce/child_config.hpp"
#include "enforce/egress.hpp"
#include "enforce/messages.hpp"
#include "enforce/mount_plan.hpp"
#include "enforce/run_cgroup.hpp"
#include "linux/landlock.hpp"
#include "linux/probe.hpp"
#include "linux/proc_identity.hpp"
#include "linux/process.hpp"
#include "linux/seccomp.hpp"
#include "sandbox/egress_keeper.hpp"
#include "sandbox/sandbox_cgroup.hpp"
#include "sandbox/supervisor.hpp"
#include "workspace/run_layer.hpp"

namespace corral::sandbox {
namespace {

bool inside_or_equal(const std::string& path, const std::string& dir) {
  return path == dir || dir == "/" ||
         (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
          path[dir.size()] == '/');
}

// The home volume goes in before any mount beneath $HOME (they land on top of it: secrets
// stay masked) and after every mount above it.
void add_home_volume(MountPlan& plan, const std::string& source, const std::string& home) {
  MountOp op{MountOpKind::bind_rw, source, home, true, 0, false, "home volume"};
  for (size_t i = 1; i < plan.ops.size(); ++i) {
    if (inside_or_equal(plan.ops[i].target, home)) {
      plan.ops.insert(plan.ops.begin() + static_cast<long>(i), op);
      return;
    }
  }
  plan.ops.push_back(op);
}

// Binds the listening socket. sun_path holds 107 bytes; a longer state path is reached
// through /proc/self/fd of its directory.
Result<UniqueFd> listen_at(const Paths& paths) {
  unlink(paths.socket.c_str());
  UniqueFd sock(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock.valid()) return make_error(Errc::setup_failed, std::string("socket: ") + std::strerror(errno));
  UniqueFd dir;
  std::string path = paths.socket;
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    dir.reset(open(paths.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    path = fmt::format("/proc/self/fd/{}/supervisor.sock", dir.get());
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (bind(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(sock.get(), SOMAXCONN) != 0) {
    Error e = make_error(Errc::setup_failed, std::string("cannot listen: ") + std::strerror(errno));
    e.file = paths.socket;
    return e;
  }
  return sock;
}

struct SpawnReport {
  // 0 ready, 1 clone failed (err), 2 setup failed (msg), 3 no answer, 4 failed (text: while
  // taking the egress sockets over, or starting their proxy)
  std::int32_t kind;
  std::int32_t pid;
  std::int32_t err;
  std::int32_t keeper;  // the egress keeper's pid, 0 without an allowlist
  ChildMsg msg;
  char text[512];
};

void set_text(SpawnReport& rep, const std::string& s) {
  std::size_t n = std::min(s.size(), sizeof rep.text - 1);
  std::memcpy(rep.text, s.data(), n);
  rep.text[n] = '\0';
}

}  // namespace

Result<Spawned> spawn_supervisor(const SpawnRequest& req) {
  if (any_limit(req.policy.limits))
    if (auto r = check_sandbox_limits(req.name, req.policy.limits); !r) return std::move(r).error();
  Features features = probe_features();
  Requirements needs = check_requirements(features, req.policy);
  if (!needs.errors.empty()) {
    std::string msg = "this kernel cannot enforce the policy (run `corral doctor` for fixes):";
    for (const auto& e : needs.errors) msg += "\n  - " + e;
    return make_error(Errc::unsupported, msg);
  }

  ChildConfig cfg;
  cfg.uid = getuid();
  cfg.gid = getgid();
  cfg.hostname = req.name;
  cfg.private_network = req.policy.network.mode != NetMode::all;
  // A copy-on-write workspace's layer is sandboxes/NAME/workspace: created on the first start,
  // continued on every later one; the supervisor holds its lock for as long as it is mounted.
  std::optional<workspace::RunLayer> layer;
  if (req.policy.workspace_cow) {
    auto made = workspace::prepare_run_layer(req.policy.workspace, req.name, req.paths.dir + "/workspace");
    if (!made) return std::move(made).error();
    layer = std::move(*made);
  }
  auto root = state_root();
  cfg.plan = build_mount_plan(req.policy,
                              MountPlanOptions{cfg.private_network, layer ? layer->layer.dir : "",
                                               root ? *root : ""});
  if (!req.home.empty()) add_home_volume(cfg.plan, req.paths.home, req.home);
  // An allowlist: the child opens the proxy's sockets in its network namespace, and a keeper
  // process on the host serves them for as long as the supervisor lives (egress_keeper.hpp).
  auto egress = prepare_egress(req.policy);
  if (!egress) return std::move(egress).error();
  if (*egress) {
    std::map<std::string, std::string> unused;  // each exec gets the proxy variables itself
    configure_child_egress(**egress, cfg, unused);
  }
  cfg.landlock = landlock::build_ruleset(req.policy, features.landlock_abi);
  if (cfg.landlock.abi > 0 && !req.home.empty())
    cfg.landlock.rules.push_back({req.home, landlock::fs_rights_for_abi(cfg.landlock.abi), true});
  // Each command gets its own listener, which the supervisor answers: refused calls and
  // writes the view refuses are recorded per exec. (The supervisor itself has no filter.)
  SeccompOptions so;
  so.notify = features.seccomp_user_notif;
  so.watch_writes = true;
  so.watch_reads = req.policy.filesystem.watch_reads;
  so.profile = req.policy.process.seccomp_base == "strict" ? SeccompOptions::Profile::strict
                                                           : SeccompOptions::Profile::default_profile;
  so.allow_nested_userns = req.policy.process.allow_nested_userns;
  so.extra_blocked = req.policy.process.seccomp_block;
  // As in `corral run`: behind an allowlist, servers need network.allow_local_binding.
  if (req.policy.network.mode == NetMode::allowlist && !req.policy.network.allow_local_binding)
    so.extra_blocked.push_back("listen");
  auto seccomp = compile_seccomp_filter(so);
  if (!seccomp) return std::move(seccomp).error();
  cfg.seccomp = &*seccomp;
  cfg.cwd = req.policy.workspace;
  cfg.fallback_cwd = req.policy.workspace;
  finalize_child_config(cfg);

  auto listener = listen_at(req.paths);
  if (!listener) return std::move(listener).error();
  UniqueFd logs(open(req.paths.logs.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC));
  UniqueFd devnull(open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!logs.valid() || !devnull.valid())
    return make_error(Errc::io_error, fmt::format("cannot open {}: {}", req.paths.logs,
                                                  std::strerror(errno)));
  SupervisorContext ctx;
  ctx.listen_fd = listener->get();
  ctx.logs_dir_fd = logs.get();
  ctx.log_limit_bytes = req.log_limit_bytes;
  if (layer) ctx.layer_lock_fd = layer->lock.fd.get();
  ctx.fs_guard = fs_guard_for(cfg.plan, req.policy, unprotected_write_deny(req.policy),
                              root ? *root : "");
  ctx.commands_oom_first = req.policy.limits.memory_bytes.has_value();
  ctx.output_limit_bytes = req.policy.limits.output_bytes;
  cfg.persistent_main = supervisor_main;
  cfg.persistent_context = &ctx;
  for (int& fd : cfg.stdio_fds) fd = devnull.get();

  int sp[2], rp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) != 0 || pipe2(rp, O_CLOEXEC) != 0)
    return make_error(Errc::setup_failed, std::string("socketpair: ") + std::strerror(errno));
  UniqueFd parent_ctl(sp[0]), child_ctl(sp[1]), report_r(rp[0]), report_w(rp[1]);
  cfg.ctl_fd = child_ctl.get();
  cfg.parent_ctl_fd = parent_ctl.get();

  std::uint64_t flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS;
  if (cfg.private_network) flags |= CLONE_NEWNET;

  pid_t mid = fork();
  if (mid < 0) return make_error(Errc::setup_failed, std::string("fork: ") + std::strerror(errno));
  if (mid == 0) {
    // The intermediate: clones the supervisor, relays its first word, and exits, so the
    // supervisor is reparented away from the caller.
    SpawnReport rep;
    std::memset(&rep, 0, sizeof rep);
    CloneResult cr = clone_into_namespaces(flags, -1);
    if (cr.pid == 0) child_main(cfg);
    if (cr.pid < 0) {
      rep.kind = 1;
      rep.err = errno;
    } else {
      close(cfg.ctl_fd);
      ParentMsg go{1};
      ssize_t n = send(parent_ctl.get(), &go, sizeof go, MSG_NOSIGNAL);
      std::optional<net::EgressListeners> listeners;
      if (*egress) {
        auto got = receive_egress_listeners(**egress, parent_ctl.get(), cr.pidfd);
        if (got) listeners = std::move(*got);
        else set_text(rep, got.error().describe());
      }
      rep.pid = cr.pid;
      rep.kind = 4;
      if (!*egress || listeners) {
        do {
          n = recv(parent_ctl.get(), &rep.msg, sizeof rep.msg, 0);
        } while (n < 0 && errno == EINTR);
        if (n != static_cast<ssize_t>(sizeof rep.msg)) rep.kind = 3;
        else rep.kind = rep.msg.type == ChildMsgType::ready ? 0 : 2;
      }
      if (rep.kind == 0 && listeners) {
        auto keeper = start_egress_keeper(**egress, std::move(*listeners), cr.pidfd, logs.get());
        if (keeper) {
          rep.keeper = *keeper;
        } else {
          rep.kind = 4;
          set_text(rep, "the sandbox's egress proxy could not start: " + keeper.error().describe());
        }
      }
      if (rep.kind != 0) {
        kill(cr.pid, SIGKILL);
        int st;
        waitpid(cr.pid, &st, 0);
      }
    }
    ssize_t w = write(report_w.get(), &rep, sizeof rep);
    (void)w;
    _exit(0);
  }
  report_w.reset();
  child_ctl.reset();
  SpawnReport rep;
  std::memset(&rep, 0, sizeof rep);
  ssize_t n;
  do {
    n = read(report_r.get(), &rep, sizeof rep);
  } while (n < 0 && errno == EINTR);
  int st;
  while (waitpid(mid, &st, 0) < 0 && errno == EINTR) {
  }
  if (n != static_cast<ssize_t>(sizeof rep))
    return make_error(Errc::could_not_start, "the sandbox's starter died before reporting");
  if (rep.kind == 1)
    return make_error(Errc::could_not_start,
                      fmt::format("cannot create the sandbox's namespaces (clone3): {}; run "
                                  "`corral doctor`", std::strerror(rep.err)));
  if (rep.kind == 2) {
    std::string where = setup_step_name(rep.msg.step);
    if ((rep.msg.step == SetupStep::mount_op || rep.msg.step == SetupStep::clone_sources) &&
        rep.msg.op_index < cfg.plan.ops.size())
      where += fmt::format(" ({} {})", mount_op_kind_name(cfg.plan.ops[rep.msg.op_index].kind),
                           cfg.plan.ops[rep.msg.op_index].target);
    return make_error(Errc::could_not_start, fmt::format("sandbox setup failed while {}: {}",
                                                         where, std::strerror(rep.msg.err)));
  }
  if (rep.kind == 3)
    return make_error(Errc::could_not_start, "the sandbox's supervisor died during setup");
  if (rep.kind == 4) return make_error(Errc::could_not_start, rep.text);
  Spawned out;
  out.supervisor = {rep.pid, process_start_time(rep.pid)};
  if (rep.keeper > 0) out.egress_keeper = {rep.keeper, process_start_time(rep.keeper)};
  if (out.supervisor.start_time == 0)
    return make_error(Errc::could_not_start, "the sandbox's supervisor died right after setup");
  // Limits: the supervisor moves into its cgroup before it takes any request, so every command
  // it forks is inside.
  if (any_limit(req.policy.limits)) {
    auto cg = limit_sandbox(req.name, rep.pid, req.policy.limits);
    if (!cg) {
      kill(rep.pid, SIGKILL);
      return std::move(cg).error();
    }
    out.cgroup = std::move(*cg);
  }
  return out;
}

}  // namespace corral::sandbox
