#include "sandbox/egress_keeper.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "enforce/violations.hpp"
#include "linux/fd.hpp"
#include "linux/process.hpp"

namespace corral::sandbox {
namespace {

void log_refusal(int logs_dir_fd, const net::EgressRefusal& r) {
  auto j = violation_to_json(network_violation(r));
  j["source"] = "egress proxy";
  append_violation_line(logs_dir_fd, j);
}

// Refusals are logged as they come, at most kMaxListedRefusals a minute: a command retrying a
// refused host in a loop must not fill the disk. Past that, one line a minute counts the rest.
class RefusalLog {
 public:
  explicit RefusalLog(int logs_dir_fd) : fd_(logs_dir_fd) {}
  void add(std::vector<net::EgressRefusal> refusals, std::uint64_t unlisted) {
    auto now = std::chrono::steady_clock::now();
    if (now - window_start_ >= std::chrono::minutes(1)) flush_count(now);
    for (auto& r : refusals) {
      if (listed_ < net::kMaxListedRefusals) {
        log_refusal(fd_, r);
        ++listed_;
      } else {
        ++unlisted_;
      }
    }
    unlisted_ += unlisted;
  }
  void flush_count(std::chrono::steady_clock::time_point now) {
    if (unlisted_ > 0)
      log_refusal(fd_, {std::chrono::system_clock::now(), "*", 0,
                        std::to_string(unlisted_) + " more refusals not listed (at most " +
                            std::to_string(net::kMaxListedRefusals) + " a minute are)"});
    unlisted_ = 0;
    listed_ = 0;
    window_start_ = now;
  }

 private:
  int fd_;
  std::chrono::steady_clock::time_point window_start_ = std::chrono::steady_clock::now();
  std::size_t listed_ = 0;
  std::uint64_t unlisted_ = 0;
};

[[noreturn]] void keeper_main(const EgressSetup& setup, net::EgressListeners listeners,
                              int supervisor_pidfd, int logs_dir_fd, int started_fd) {
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
  std::vector<int> keep{0, 1, 2, supervisor_pidfd, logs_dir_fd, started_fd};
  for (const auto& fd : listeners.proxy) keep.push_back(fd.get());
  for (const auto& t : listeners.transparent) keep.push_back(t.fd.get());
  keep.push_back(listeners.dns_udp.get());
  keep.push_back(listeners.dns_tcp.get());
  close_all_fds_but(keep);

  auto proxy = net::EgressProxy::start(setup.rules, std::move(listeners), setup.plan.names);
  // Our starter reports the sandbox ready only after this byte.
  const char started = proxy ? 'k' : 'f';
  ssize_t w = write(started_fd, &started, 1);
  (void)w;
  close(started_fd);
  if (!proxy) _exit(1);
  RefusalLog log(logs_dir_fd);
  std::uint64_t unlisted = 0;
  while (true) {
    pollfd p{supervisor_pidfd, POLLIN, 0};
    int rc = poll(&p, 1, 1000);
    if (rc < 0 && errno != EINTR) break;
    log.add((*proxy)->take_refusals(&unlisted), unlisted);
    if (rc > 0) break;  // the supervisor is gone: so is everything that could connect
  }
  (*proxy)->stop();
  log.add((*proxy)->take_refusals(&unlisted), unlisted);
  log.flush_count(std::chrono::steady_clock::now());
  _exit(0);
}

}  // namespace

Result<pid_t> start_egress_keeper(const EgressSetup& setup, net::EgressListeners listeners,
                                  int supervisor_pidfd, int logs_dir_fd) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return make_error(Errc::setup_failed, std::string("pipe: ") + std::strerror(errno));
  UniqueFd started_r(p[0]), started_w(p[1]);
  pid_t pid = fork();
  if (pid < 0)
    return make_error(Errc::setup_failed,
                      std::string("cannot start the egress proxy's process (fork): ") +
                          std::strerror(errno));
  if (pid == 0) keeper_main(setup, std::move(listeners), supervisor_pidfd, logs_dir_fd, p[1]);
  started_w.reset();
  char started = 0;
  ssize_t n;
  do {
    n = read(started_r.get(), &started, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && started == 'k') return pid;
  int status;
  waitpid(pid, &status, 0);
  return make_error(Errc::setup_failed, "the egress proxy did not start (its event loop "
                                        "could not be set up on the sandbox's sockets)");
}

}  // namespace corral::sandbox
