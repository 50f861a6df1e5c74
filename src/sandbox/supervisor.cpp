// The persistent sandbox's PID 1: an event loop over the listening socket, its clients, the
// pipes of background jobs and SIGCHLD. Single-threaded, so fork() here is ordinary.
#include "sandbox/supervisor.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <memory>

#include "enforce/messages.hpp"
#include "enforce/record.hpp"
#include "linux/fd.hpp"
#include "linux/fd_passing.hpp"
#include "linux/landlock.hpp"
#include "linux/proc_identity.hpp"
#include "linux/seccomp.hpp"
#include "enforce/violations.hpp"
#include "linux/identity.hpp"
#include "linux/process.hpp"
#include "sandbox/exec_watch.hpp"
#include "sandbox/jobs.hpp"
#include "sandbox/protocol.hpp"

extern char** environ;

namespace corral::sandbox {
namespace {

// What the command child reports through its CLOEXEC socket when it does not reach execve.
// (Before that it may send its seccomp listener there: one byte with the fd.)
struct ChildFailure {
  std::int32_t setup;  // 1: restricting it failed (corral's fault: 125); 0: execve failed
  std::int32_t err;
};

void report_setup(int ctl, ChildMsgType type, SetupStep step, int err) {
  ChildMsg msg;
  std::memset(&msg, 0, sizeof msg);
  msg.type = type;
  msg.step = step;
  msg.err = err;
  ssize_t n = send(ctl, &msg, sizeof msg, MSG_NOSIGNAL);
  (void)n;
}


// Kills `pid` and every descendant. The command is a subreaper, so its orphans stay beneath
// it while it lives: stop the whole tree first (stopped processes neither fork nor die and
// hand their children to PID 1), then kill what was found.
void kill_tree(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGSTOP);
  std::vector<pid_t> found;
  for (int round = 0; round < 8; ++round) {
    std::vector<pid_t> now = descendants_of(pid);
    bool grew = false;
    for (pid_t p : now) {
      if (std::find(found.begin(), found.end(), p) != found.end()) continue;
      kill(p, SIGSTOP);
      found.push_back(p);
      grew = true;
    }
    if (!grew) break;
  }
  kill(-pid, SIGKILL);  // its process group: the command did setsid()
  for (pid_t p : found) kill(p, SIGKILL);
  kill(pid, SIGKILL);
}

std::string new_job_id() {
  unsigned char b[4];
  if (getrandom(b, sizeof b, 0) != static_cast<ssize_t>(sizeof b)) {
    auto t = static_cast<unsigned>(time(nullptr) ^ getpid());
    std::memcpy(b, &t, sizeof b);
  }
  return fmt::format("{:02x}{:02x}{:02x}{:02x}", b[0], b[1], b[2], b[3]);
}

struct LogStream {
  UniqueFd pipe;        // read end
  UniqueFd file;        // logs/ID.out or ID.err
  std::string name;     // "ID.out"
  std::uint64_t size = 0;
  std::uint64_t* dropped = nullptr;
};

struct JobState {
  Job job;
  LogStream out, err;
  bool exited = false;
  std::uint64_t output_seen = 0;  // stdout and stderr together, for limits.output_bytes
};

struct Client {
  UniqueFd sock;
  pid_t pid = -1;  // its foreground command, -1 once reported
};

// A forked command: its pid (-1 when it did not start) and its seccomp listener, if any.
struct Forked {
  pid_t pid = -1;
  int listener = -1;
};

class Supervisor {
 public:
  Supervisor(ChildConfig& c, SupervisorContext& ctx, int ruleset_fd, int sigfd)
      : c_(c), ctx_(ctx), ruleset_fd_(ruleset_fd), sigfd_(sigfd),
        watches_(c.seccomp ? c.seccomp->watched_nrs : std::vector<int>{}, ctx.fs_guard,
                 ctx.logs_dir_fd) {}
  [[noreturn]] void run();

 private:
  void accept_client();
  void handle_request(std::unique_ptr<Client> client);
  void client_readable(Client& client);
  void reap();
  void drain(JobState& job, LogStream& s);
  size_t over_output_limit(JobState& job, size_t n);
  void write_job(const Job& job);
  void append_log(LogStream& s, const char* p, size_t n);
  // Forks the command; pid -1 after replying with the failure.
  Forked fork_command(int sock, const ExecRequest& req, const int stdio[3], int tty_slave);
  [[noreturn]] void exec_child(const ExecRequest& req, const int stdio[3], int tty_slave,
                               int err_fd, std::vector<char*>& argv, std::vector<char*>& envp);

  ChildConfig& c_;
  SupervisorContext& ctx_;
  int ruleset_fd_;
  UniqueFd sigfd_;
  std::map<int, std::unique_ptr<Client>> clients_;    // by socket fd
  std::map<pid_t, int> foreground_;                   // command pid -> client socket fd
  std::map<pid_t, std::unique_ptr<JobState>> jobs_;   // background jobs by pid
  ExecWatches watches_;                               // the commands' seccomp listeners
};

[[noreturn]] void Supervisor::exec_child(const ExecRequest& req, const int stdio[3], int tty_slave,
                                         int err_fd, std::vector<char*>& argv,
                                         std::vector<char*>& envp) {
  auto fail = [&](int setup, int err) {
    ChildFailure f{setup, err};
    ssize_t n = write(err_fd, &f, sizeof f);
    (void)n;
    _exit(setup ? 125 : (err == ENOENT ? 127 : 126));
  };
  // The supervisor's one capability (CAP_SYS_PTRACE, to read non-dumpable callers) is not the
  // command's: gone before anything else.
  if (int e = ident::clear_capabilities()) fail(1, e);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  signal(SIGPIPE, SIG_DFL);
  if (setsid() < 0) fail(1, errno);
  // The command adopts what its children orphan (a double fork, setsid), so that killing it
  // reaches the whole tree; the flag survives execve. Orphans go to the supervisor only once
  // the command itself has ended.
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) fail(1, errno);
  if (tty_slave >= 0) {
    if (ioctl(tty_slave, TIOCSCTTY, 0) != 0) fail(1, errno);
    for (int i = 0; i < 3; ++i)
      if (dup2(tty_slave, i) < 0) fail(1, errno);
  } else {
    // dup2 to a distinct slot first when a source fd is itself 0..2 and would be clobbered.
    int tmp[3];
    for (int i = 0; i < 3; ++i) {
      tmp[i] = fcntl(stdio[i], F_DUPFD_CLOEXEC, 3);
      if (tmp[i] < 0) fail(1, errno);
    }
    for (int i = 0; i < 3; ++i)
      if (dup2(tmp[i], i) < 0) fail(1, errno);
  }
  if (chdir(req.cwd.c_str()) != 0 && chdir(c_.fallback_cwd.c_str()) != 0) fail(1, errno);
  if (ctx_.commands_oom_first) {
    // Raising one's own score needs no privilege (lowering the supervisor's would).
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "1000", 4) != 4) fail(1, errno);
    close(fd);
  }
  // Exactly the restrictions of `corral run`, in its order: Landlock, then seccomp last.
  if (int e = landlock::restrict_self(ruleset_fd_, c_.landlock.restrict_flags)) fail(1, e);
  // With a listener, the supervisor answers the command's refused calls and watched writes
  // (and records them); it gets the listener before the command runs anything.
  if (c_.seccomp) {
    int listener = -1;
    bool notify = c_.seccomp->needs_listener;
    if (int e = install_seccomp_filter(*c_.seccomp, notify, notify ? &listener : nullptr))
      fail(1, e);
    char byte = 'L';
    if (notify && send_with_fd(err_fd, &byte, 1, listener) != 1) fail(1, errno);
    if (listener >= 0) close(listener);
  }
  syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  environ = envp.data();  // execvpe searches the PATH of `environ`
  execvpe(argv[0], argv.data(), envp.data());
  fail(0, errno);
  _exit(127);
}

Forked Supervisor::fork_command(int sock, const ExecRequest& req, const int stdio[3],
                                int tty_slave) {
  std::vector<std::string> argv_s = req.argv, env_s = req.env;
  std::vector<char*> argv, envp;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  int errp[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, errp) != 0) {
    send_message(sock, MsgType::error, fmt::format("socketpair: {}", std::strerror(errno)));
    return {};
  }
  pid_t pid = fork();
  if (pid == 0) {
    close(errp[0]);
    exec_child(req, stdio, tty_slave, errp[1], argv, envp);
  }
  close(errp[1]);
  if (pid < 0) {
    close(errp[0]);
    send_message(sock, MsgType::error,
                 fmt::format("could not start the command: fork: {}", std::strerror(errno)));
    return {};
  }
  ChildFailure f{};
  int listener = -1;
  // One message at a time: its listener (one byte with the fd), its failure, or EOF (execve
  // succeeded and closed the socket).
  ssize_t n = recv_with_fd(errp[0], &f, sizeof f, &listener);
  if (n == 1) {  // the listener came first
    int none = -1;
    n = recv_with_fd(errp[0], &f, sizeof f, &none);
    if (none >= 0) close(none);
  }
  close(errp[0]);
  if (n != static_cast<ssize_t>(sizeof f)) return {pid, listener};  // EOF: execve succeeded
  if (listener >= 0) close(listener);
  int status;
  waitpid(pid, &status, 0);
  if (f.setup)
    send_message(sock, MsgType::error,
                 fmt::format("could not start the command: setting it up in the sandbox failed: {}",
                             std::strerror(f.err)));
  else
    send_message(sock, MsgType::exec_failed, encode_u32(static_cast<std::uint32_t>(f.err)));
  return {};
}

void Supervisor::accept_client() {
  int fd = accept4(ctx_.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  auto client = std::make_unique<Client>();
  client->sock.reset(fd);
  // A request arrives right after connect; a client that connects and says nothing must not
  // hold the sandbox up for long.
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  // Nor may a client that stops reading (suspended with ^Z, say) block the supervisor, and
  // with it every exec's trapped calls, in a send: it loses that message instead.
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  handle_request(std::move(client));
}

void Supervisor::handle_request(std::unique_ptr<Client> client) {
  int sock = client->sock.get();
  Message msg;
  int rc = recv_message(sock, msg);
  std::vector<UniqueFd> fds;
  for (int fd : msg.fds) fds.emplace_back(fd);
  if (rc != 0) return;
  if (msg.type == MsgType::kill_job) {
    for (auto& [pid, job] : jobs_) {
      if (job->job.id == msg.payload && !job->exited) {
        kill_tree(pid);
        send_message(sock, MsgType::ok, "");
        return;
      }
    }
    send_message(sock, MsgType::error, "no running background process with id " + msg.payload);
    return;
  }
  if (msg.type != MsgType::exec) {
    send_message(sock, MsgType::error, "unexpected request");
    return;
  }
  auto req = decode_exec(msg.payload);
  if (!req) {
    send_message(sock, MsgType::error, req.error().message);
    return;
  }

  UniqueFd null_in, master, slave;
  int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  int stdio[3] = {-1, -1, -1};
  if (req->tty) {
    master.reset(open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC));
    int unlock = 0;
    if (!master.valid() || ioctl(master.get(), TIOCSPTLCK, &unlock) != 0) {
      send_message(sock, MsgType::error,
                   fmt::format("could not start the command: no pty: {}", std::strerror(errno)));
      return;
    }
    winsize ws{req->rows ? req->rows : static_cast<std::uint16_t>(24),
               req->cols ? req->cols : static_cast<std::uint16_t>(80), 0, 0};
    ioctl(master.get(), TIOCSWINSZ, &ws);
    slave.reset(ioctl(master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC));
    if (!slave.valid()) {
      send_message(sock, MsgType::error,
                   fmt::format("could not start the command: no pty: {}", std::strerror(errno)));
      return;
    }
  } else if (req->background) {
    null_in.reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
    if (!null_in.valid() || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
      send_message(sock, MsgType::error, fmt::format("could not start the command: {}",
                                                     std::strerror(errno)));
      return;
    }
    stdio[0] = null_in.get();
    stdio[1] = out_pipe[1];
    stdio[2] = err_pipe[1];
  } else {
    if (fds.size() != 3) {
      send_message(sock, MsgType::error, "exec request without its three stdio fds");
      return;
    }
    for (int i = 0; i < 3; ++i) stdio[i] = fds[i].get();
  }

  Forked forked = fork_command(sock, *req, stdio, slave.get());
  pid_t pid = forked.pid;
  fds.clear();  // the command has its own copies now: ours would delay EOF for readers
  slave.reset();
  if (out_pipe[1] >= 0) close(out_pipe[1]);
  if (err_pipe[1] >= 0) close(err_pipe[1]);
  if (pid < 0) {
    if (out_pipe[0] >= 0) close(out_pipe[0]);
    if (err_pipe[0] >= 0) close(err_pipe[0]);
    return;
  }

  if (req->background) {
    auto job = std::make_unique<JobState>();
    job->job.id = new_job_id();
    if (forked.listener >= 0) watches_.add(forked.listener, pid, job->job.id);
    job->job.pid = pid;
    job->job.argv = req->argv;
    job->job.started_at = now_rfc3339();
    auto open_log = [&](LogStream& s, int fd, const char* ext, std::uint64_t* dropped) {
      s.pipe.reset(fd);
      fcntl(fd, F_SETFL, O_NONBLOCK);
      s.name = job->job.id + ext;
      s.file.reset(openat(ctx_.logs_dir_fd, s.name.c_str(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600));
      s.dropped = dropped;
    };
    open_log(job->out, out_pipe[0], ".out", &job->job.dropped_stdout);
    open_log(job->err, err_pipe[0], ".err", &job->job.dropped_stderr);
    write_job(job->job);
    send_message(sock, MsgType::started, encode(Started{pid, job->job.id}));
    jobs_[pid] = std::move(job);
    return;  // the client goes; the job stays
  }
  if (forked.listener >= 0) watches_.add(forked.listener, pid, "");
  int master_fd = master.get();
  send_message(sock, MsgType::started, encode(Started{pid, ""}), req->tty ? &master_fd : nullptr,
               req->tty ? 1 : 0);
  client->pid = pid;
  foreground_[pid] = sock;
  clients_[sock] = std::move(client);
}

void Supervisor::client_readable(Client& client) {
  Message msg;
  int rc = recv_message(client.sock.get(), msg);
  for (int fd : msg.fds) close(fd);
  if (rc != 0) {
    // The client is gone (even SIGKILL'd): its foreground command goes with it.
    if (client.pid > 0) {
      kill_tree(client.pid);
      foreground_.erase(client.pid);
    }
    clients_.erase(client.sock.get());
    return;
  }
  if (msg.type == MsgType::signal && client.pid > 0) {
    auto req = decode_signal(msg.payload);
    if (!req) return;
    if (req->whole_tree)
      kill_tree(client.pid);
    else
      kill(client.pid, req->signal);
  }
}

void Supervisor::append_log(LogStream& s, const char* p, size_t n) {
  if (!s.file.valid()) return;
  // Bounded: past half the limit the file becomes NAME.old (replacing the older one, whose
  // bytes are counted as dropped) and a new one starts, so at most the limit is kept and the
  // newest output always is.
  std::uint64_t half = std::max<std::uint64_t>(ctx_.log_limit_bytes / 2, 1);
  while (n > 0) {
    if (s.size >= half) {
      std::string old = s.name + ".old";
      struct stat st;
      if (fstatat(ctx_.logs_dir_fd, old.c_str(), &st, 0) == 0)
        *s.dropped += static_cast<std::uint64_t>(st.st_size);
      renameat(ctx_.logs_dir_fd, s.name.c_str(), ctx_.logs_dir_fd, old.c_str());
      s.file.reset(openat(ctx_.logs_dir_fd, s.name.c_str(),
                          O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600));
      s.size = 0;
      if (!s.file.valid()) return;
    }
    size_t chunk = static_cast<size_t>(std::min<std::uint64_t>(n, half - s.size));
    ssize_t w = write(s.file.get(), p, chunk);
    if (w <= 0) {
      if (w < 0 && errno == EINTR) continue;
      return;  // disk full or similar: the output is lost, the job goes on
    }
    s.size += static_cast<std::uint64_t>(w);
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// How many of the `n` bytes a job just wrote are past limits.output_bytes (all of them once
// it was reached). Reaching it kills the job's tree and records a limit violation.
size_t Supervisor::over_output_limit(JobState& job, size_t n) {
  if (!ctx_.output_limit_bytes) return 0;
  if (job.job.output_limit_reached) return n;
  std::uint64_t room = *ctx_.output_limit_bytes - job.output_seen;
  if (n <= room) {
    job.output_seen += n;
    return 0;
  }
  job.output_seen += room;
  job.job.output_limit_reached = true;
  // Once reaped, its pid may name another process by now; what still writes is cut anyway.
  if (!job.exited) kill_tree(job.job.pid);
  write_job(job.job);
  watches_.log(job.job.pid, job.job.id,
               {"limit", now_rfc3339(), "output",
                fmt::format("output limit of {} bytes reached; the rest was cut and the job's "
                            "processes killed", *ctx_.output_limit_bytes), std::nullopt});
  return n - static_cast<size_t>(room);
}

void Supervisor::drain(JobState& job, LogStream& s) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(s.pipe.get(), buf, sizeof buf);
    if (n > 0) {
      append_log(s, buf, static_cast<size_t>(n) - over_output_limit(job, static_cast<size_t>(n)));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;
    s.pipe.reset();  // EOF
    return;
  }
}

void Supervisor::write_job(const Job& job) {
  std::string data = job_to_json(job).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string name = job.id + ".json", tmp = job.id + ".json.tmp";
  int fd = openat(ctx_.logs_dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return;
  ssize_t n = write(fd, data.data(), data.size());
  close(fd);
  if (n == static_cast<ssize_t>(data.size())) renameat(ctx_.logs_dir_fd, tmp.c_str(), ctx_.logs_dir_fd, name.c_str());
}

void Supervisor::reap() {
  signalfd_siginfo si;
  while (read(sigfd_.get(), &si, sizeof si) > 0) {
  }
  int status;
  pid_t pid;
  while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    // Taken for every ended command, also one whose client has gone (else they would pile up).
    auto violations = watches_.take(pid);
    if (auto it = foreground_.find(pid); it != foreground_.end()) {
      auto c = clients_.find(it->second);
      if (c != clients_.end()) {
        if (!violations.empty()) {
          auto list = nlohmann::ordered_json::array();
          for (const auto& v : violations) list.push_back(violation_to_json(v));
          send_message(c->second->sock.get(), MsgType::violations, list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
        }
        send_message(c->second->sock.get(), MsgType::exited,
                     encode_u32(static_cast<std::uint32_t>(status)));
        clients_.erase(c);
      }
      foreground_.erase(it);
      continue;
    }
    if (auto it = jobs_.find(pid); it != jobs_.end()) {
      JobState& j = *it->second;
      j.exited = true;
      // What is still in the pipes belongs before the record says it ended.
      if (j.out.pipe.valid()) drain(j, j.out);
      if (j.err.pipe.valid()) drain(j, j.err);
      j.job.state = "exited";
      j.job.exit_code = code;
      j.job.ended_at = now_rfc3339();
      write_job(j.job);
      if (!j.out.pipe.valid() && !j.err.pipe.valid()) jobs_.erase(it);
    }
    // Anything else is an orphan that PID 1 inherited: reaped, nothing to report.
  }
}

void Supervisor::run() {
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({ctx_.listen_fd, POLLIN, 0});
    fds.push_back({sigfd_.get(), POLLIN, 0});
    std::vector<int> client_fds;
    for (auto& [fd, c] : clients_) {
      fds.push_back({fd, POLLIN, 0});
      client_fds.push_back(fd);
    }
    std::vector<int> watch_fds = watches_.fds();
    for (int fd : watch_fds) fds.push_back({fd, POLLIN, 0});
    std::vector<std::pair<pid_t, int>> streams;  // (job pid, 1 out / 2 err)
    for (auto& [pid, j] : jobs_) {
      if (j->out.pipe.valid()) {
        fds.push_back({j->out.pipe.get(), POLLIN, 0});
        streams.push_back({pid, 1});
      }
      if (j->err.pipe.valid()) {
        fds.push_back({j->err.pipe.get(), POLLIN, 0});
        streams.push_back({pid, 2});
      }
    }
    int r = poll(fds.data(), fds.size(), -1);
    if (r < 0) continue;
    size_t i = 2;
    for (int fd : client_fds) {
      if (fds[i++].revents) {
        auto it = clients_.find(fd);
        if (it != clients_.end()) client_readable(*it->second);
      }
    }
    // Trapped calls wait for an answer: before anything that could take a while.
    for (int fd : watch_fds) {
      short rev = fds[i++].revents;
      if (rev) watches_.handle(fd, (rev & (POLLHUP | POLLERR)) != 0);
    }
    for (auto [pid, which] : streams) {
      if (!fds[i++].revents) continue;
      auto it = jobs_.find(pid);
      if (it == jobs_.end()) continue;
      JobState& j = *it->second;
      drain(j, which == 1 ? j.out : j.err);
      if (j.exited && !j.out.pipe.valid() && !j.err.pipe.valid()) jobs_.erase(it);
    }
    if (fds[1].revents) reap();
    if (fds[0].revents) accept_client();
  }
}

}  // namespace

void supervisor_main(ChildConfig& c) {
  auto& ctx = *static_cast<SupervisorContext*>(c.persistent_context);
  // Nothing of the creator's terminal or pipes: whoever captured `corral create`'s output
  // must see EOF when it exits.
  for (int i = 0; i < 3; ++i)
    if (c.stdio_fds[i] >= 0) dup2(c.stdio_fds[i], i);

  // Landlock in two layers. The scopes (signals, abstract unix sockets) go on the supervisor
  // itself, once: every command is then in one scoped domain and they can signal and reach
  // each other across execs (an agent stops the server it started), but nothing outside the
  // sandbox. The filesystem rules are built once into a ruleset fd, and each command restricts
  // itself with it just before execve; with no filesystem rights handled, the supervisor keeps
  // writing logs.
  landlock::Ruleset scopes;
  scopes.abi = c.landlock.abi;
  scopes.scoped = c.landlock.scoped;
  scopes.restrict_flags = c.landlock.restrict_flags;
  c.landlock.scoped = 0;
  int failed_rule = -1, ruleset = -1;
  if (scopes.scoped != 0) {
    int e = landlock::create_ruleset_fd(scopes, &failed_rule, &ruleset);
    if (e == 0) e = landlock::restrict_self(ruleset, scopes.restrict_flags);
    if (ruleset >= 0) close(ruleset);
    if (e != 0) {
      report_setup(c.ctl_fd, ChildMsgType::setup_failed, SetupStep::landlock, e);
      _exit(125);
    }
  }
  if (int e = landlock::create_ruleset_fd(c.landlock, &failed_rule, &ruleset)) {
    report_setup(c.ctl_fd, ChildMsgType::setup_failed, SetupStep::landlock, e);
    _exit(125);
  }

  sigset_t set;
  sigfillset(&set);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) sigdelset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  sigset_t chld;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  int sigfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sigfd < 0) {
    report_setup(c.ctl_fd, ChildMsgType::setup_failed, SetupStep::fork_command, errno);
    _exit(125);
  }
  close_all_fds_but({0, 1, 2, c.ctl_fd, ctx.listen_fd, ctx.logs_dir_fd, ruleset, sigfd,
                ctx.layer_lock_fd});

  Supervisor sup(c, ctx, ruleset, sigfd);
  report_setup(c.ctl_fd, ChildMsgType::ready, SetupStep::wait_parent, 0);
  close(c.ctl_fd);
  c.ctl_fd = -1;
  sup.run();
}

}  // namespace corral::sandbox
