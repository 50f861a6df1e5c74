#include "sandbox/egress_keeper.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "enforce/violations.hpp"
#include "linux/process.hpp"

namespace corral::sandbox {
namespace {

// Appends refusals[from, to) to logs/violations.jsonl.
void append_refusals(int logs_dir_fd, const std::vector<net::EgressRefusal>& refusals,
                     std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < std::min(to, refusals.size()); ++i) {
    auto j = violation_to_json(network_violation(refusals[i]));
    j["source"] = "egress proxy";
    append_violation_line(logs_dir_fd, j);
  }
}

[[noreturn]] void keeper_main(const EgressSetup& setup, net::EgressListeners listeners,
                              int supervisor_pidfd, int logs_dir_fd) {
  setsid();  // the caller's terminal and its signals are not ours
  prctl(PR_SET_NAME, "corral-egress");
  signal(SIGPIPE, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  // The caller's stdio (e.g. the pipe a script reads `corral create`'s output from) must not
  // stay open for the sandbox's lifetime.
  if (null >= 0)
    for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
  std::vector<int> keep{0, 1, 2, supervisor_pidfd, logs_dir_fd};
  for (const auto& fd : listeners.proxy) keep.push_back(fd.get());
  for (const auto& t : listeners.transparent) keep.push_back(t.fd.get());
  keep.push_back(listeners.dns_udp.get());
  keep.push_back(listeners.dns_tcp.get());
  close_all_fds_but(keep);

  auto proxy = net::EgressProxy::start(setup.rules, std::move(listeners), setup.plan.names);
  if (!proxy) _exit(1);  // the sandbox's connections fail closed: nothing answers them
  std::size_t logged = 0;
  while (true) {
    pollfd p{supervisor_pidfd, POLLIN, 0};
    int rc = poll(&p, 1, 1000);
    if (rc < 0 && errno != EINTR) break;
    // The listed refusals as they come; the count of unlisted ones (a last entry that keeps
    // changing) only at the end.
    auto report = (*proxy)->report();
    std::size_t listed = std::min(report.refusals.size(), net::kMaxListedRefusals);
    append_refusals(logs_dir_fd, report.refusals, logged, listed);
    logged = std::max(logged, listed);
    if (rc > 0) break;  // the supervisor is gone: so is everything that could connect
  }
  (*proxy)->stop();
  auto last = (*proxy)->report();
  append_refusals(logs_dir_fd, last.refusals, logged, last.refusals.size());
  _exit(0);
}

}  // namespace

Result<pid_t> start_egress_keeper(const EgressSetup& setup, net::EgressListeners listeners,
                                  int supervisor_pidfd, int logs_dir_fd) {
  pid_t pid = fork();
  if (pid < 0)
    return make_error(Errc::setup_failed,
                      std::string("cannot start the egress proxy's process (fork): ") +
                          std::strerror(errno));
  if (pid == 0) keeper_main(setup, std::move(listeners), supervisor_pidfd, logs_dir_fd);
  return pid;
}

}  // namespace corral::sandbox
