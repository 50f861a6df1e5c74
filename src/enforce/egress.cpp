// Wiring of the egress proxy into a run: plan, child-side sockets, hand-over, report.
#include "enforce/egress.hpp"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "enforce/messages.hpp"

namespace corral {

Result<std::unique_ptr<EgressSetup>> prepare_egress(const EffectivePolicy& policy) {
  if (policy.network.mode != NetMode::allowlist) return std::unique_ptr<EgressSetup>();
  auto rules = net::HostRules::from_policy(policy.network);
  if (!rules) return rules.error();
  auto setup = std::make_unique<EgressSetup>();
  setup->rules = std::move(*rules);
  setup->plan = net::make_bridge_plan(setup->rules);
  setup->child_fds.assign(setup->plan.specs.size(), -1);
  setup->child_control.assign(CMSG_SPACE(sizeof(int) * setup->plan.specs.size()), 0);
  return setup;
}

void configure_child_egress(EgressSetup& setup, ChildConfig& c,
                            std::map<std::string, std::string>& env_overlay) {
  c.egress_specs = &setup.plan.specs;
  c.egress_fds = setup.child_fds.data();
  c.egress_control = setup.child_control.data();
  c.egress_control_len = setup.child_control.size();
  for (const auto& [k, v] : net::proxy_environment()) env_overlay.emplace(k, v);
  // Name lookups inside go to the sandbox's DNS responder, which answers allowed names only.
  for (auto [target, content] : {std::pair{"/etc/resolv.conf", net::sandbox_resolv_conf()},
                                 std::pair{"/etc/hosts", net::sandbox_hosts_file()}}) {
    MountOp op;
    op.kind = MountOpKind::file_content;
    op.source = content;
    op.target = target;
    op.is_dir = false;
    op.optional = true;  // no such file on the host: glibc's default is 127.0.0.1 anyway
    op.reason = "network allowlist: the sandbox's own resolver";
    c.plan.ops.push_back(op);
  }
}

int send_egress_listeners(const ChildConfig& c) {
  const std::size_t n = c.egress_specs->size();
  if (int e = net::open_bridge_sockets(*c.egress_specs, c.egress_fds)) return e;
  ChildMsg msg;
  std::memset(&msg, 0, sizeof msg);
  msg.type = ChildMsgType::egress_listeners;
  msg.op_index = static_cast<std::uint32_t>(n);
  iovec iov{&msg, sizeof msg};
  std::memset(c.egress_control, 0, c.egress_control_len);
  msghdr mh;
  std::memset(&mh, 0, sizeof mh);
  mh.msg_iov = &iov;
  mh.msg_iovlen = 1;
  mh.msg_control = c.egress_control;
  mh.msg_controllen = CMSG_SPACE(sizeof(int) * n);
  cmsghdr* cm = CMSG_FIRSTHDR(&mh);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int) * n);
  std::memcpy(CMSG_DATA(cm), c.egress_fds, sizeof(int) * n);
  ssize_t sent = sendmsg(c.ctl_fd, &mh, MSG_NOSIGNAL);
  int err = sent == static_cast<ssize_t>(sizeof msg) ? 0 : (sent < 0 ? errno : EIO);
  // The sandbox keeps no copy: only the parent's proxy may accept on them.
  for (std::size_t i = 0; i < n; ++i) close(c.egress_fds[i]);
  return err;
}

Result<net::EgressListeners> receive_egress_listeners(const EgressSetup& setup, int ctl_fd,
                                                      int pidfd) {
  const std::size_t n = setup.plan.specs.size();
  ChildMsg msg;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * n));
  std::vector<UniqueFd> fds;
  while (true) {
    pollfd p[2] = {{ctl_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return make_error(Errc::setup_failed, std::string("poll: ") + std::strerror(errno));
    }
    if (!(p[0].revents & POLLIN))
      return make_error(Errc::setup_failed, "the sandbox exited before opening its egress bridge");
    iovec iov{&msg, sizeof msg};
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control.data();
    mh.msg_controllen = control.size();
    ssize_t got = recvmsg(ctl_fd, &mh, MSG_CMSG_CLOEXEC);
    if (got < 0 && errno == EINTR) continue;
    for (cmsghdr* cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
      if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
      std::size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (std::size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
        fds.emplace_back(fd);
      }
    }
    if (got != static_cast<ssize_t>(sizeof msg))
      return make_error(Errc::setup_failed, "the sandbox exited before opening its egress bridge");
    if (msg.type == ChildMsgType::setup_failed)
      return make_error(Errc::setup_failed,
                        fmt::format("sandbox setup failed while {}: {}", setup_step_name(msg.step),
                                    std::strerror(msg.err)));
    if (msg.type == ChildMsgType::egress_listeners) break;
  }
  if (fds.size() != n)
    return make_error(
        Errc::setup_failed,
        fmt::format("egress bridge: {} of {} sockets arrived (truncated message)", fds.size(), n));
  return net::assemble_listeners(setup.plan, std::move(fds));
}

Result<std::unique_ptr<net::EgressProxy>> start_egress_proxy(EgressSetup& setup, int ctl_fd,
                                                             int pidfd) {
  auto listeners = receive_egress_listeners(setup, ctl_fd, pidfd);
  if (!listeners) return std::move(listeners).error();
  return net::EgressProxy::start(setup.rules, std::move(*listeners), setup.plan.names);
}

Violation network_violation(const net::EgressRefusal& r) {
  Violation v;
  v.kind = "network";
  v.time = rfc3339(r.time);
  v.subject = r.host;
  v.port = r.port;
  v.detail = r.reason;
  return v;
}

void record_egress(const net::EgressReport& report, RunRecord& record) {
  for (const auto& r : report.refusals) record.violations.push_back(network_violation(r));
  for (const auto& [host, n] : report.allowed) record.network_allowed[host] += n;
}

}  // namespace corral
