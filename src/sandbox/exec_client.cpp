// The client side of exec: load the state (no lock, no policy resolution), connect to the
// supervisor, hand it the request and our stdio, then wait for the status — relaying a pty
// with -t, forwarding signals, enforcing --timeout.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fmt/format.h>

#include "enforce/env.hpp"
#include "linux/fd.hpp"
#include "net/bridge.hpp"
#include "sandbox/api.hpp"
#include "enforce/violations.hpp"
#include "sandbox/protocol.hpp"
#include "sandbox/store.hpp"

namespace corral::sandbox {
namespace {

using Clock = std::chrono::steady_clock;

std::string caller_cwd() {
  char buf[4096];
  return getcwd(buf, sizeof buf) ? std::string(buf) : std::string();
}

std::string absolute_normal(const std::string& path) {
  std::filesystem::path p(path);
  if (p.is_relative()) p = std::filesystem::path(caller_cwd()) / p;
  std::error_code ec;
  auto c = std::filesystem::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : c).string();
}

struct Loaded {
  Paths paths;
  State state;
};

Result<Loaded> load_for_exec(const std::string& name) {
  if (auto r = validate_name(name); !r) return std::move(r).error();
  auto root = state_root();
  if (!root) return std::move(root).error();
  Loaded l;
  l.paths = paths_for(*root, name);
  auto s = load_state(l.paths);
  if (!s) return std::move(s).error();
  l.state = std::move(*s);
  if (auto r = check_can_exec(name, live_status(l.state)); !r) return std::move(r).error();
  return l;
}

Result<void> check_required(const State& s, const std::vector<std::string>& required) {
  for (const auto& r : required) {
    std::string p = absolute_normal(r);
    if (inside_workspaces(s.workspaces, p)) continue;
    std::string list;
    for (const auto& w : s.workspaces) list += (list.empty() ? "" : ", ") + w.path + ":" + w.mode;
    Error e = make_error(Errc::path_not_mounted,
                         fmt::format("{} is not inside any workspace of sandbox {} ({}); "
                                     "recreate it with that path as a workspace: `corral rm -f "
                                     "{}` then `corral create {} --workspace ... --workspace "
                                     "{}:ro`", p, s.name, list, s.name, s.name, p));
    return e;
  }
  return {};
}

Result<UniqueFd> connect_supervisor(const Loaded& l) {
  UniqueFd sock(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  UniqueFd dir;
  std::string path = l.paths.socket;
  if (path.size() >= sizeof(sockaddr_un{}.sun_path)) {
    dir.reset(open(l.paths.dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    path = fmt::format("/proc/self/fd/{}/supervisor.sock", dir.get());
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (!sock.valid() || connect(sock.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
    return make_error(Errc::not_running,
                      fmt::format("cannot reach the supervisor of sandbox {} ({}); restart it "
                                  "with `corral start {}`", l.state.name, std::strerror(errno),
                                  l.state.name));
  return sock;
}

ExecRequest build_request(const Loaded& l, const ExecOptions& o) {
  ExecRequest req;
  req.argv = o.argv;
  Policy::Env env;
  const auto& pe = l.state.policy.at("env");
  env.pass = pe.at("pass").get<std::vector<std::string>>();
  env.set = pe.at("set").get<std::map<std::string, std::string>>();
  for (const auto& p : o.env_pass) env.pass.push_back(p);
  auto overlay = o.env_overlay;
  if (!overlay.count("HOME") && !l.state.home.empty()) env.set["HOME"] = l.state.home;
  // Behind an allowlist, clients find the sandbox's proxy through the usual variables.
  if (l.state.policy.at("network").at("mode") == "allowlist")
    for (const auto& [k, v] : net::proxy_environment()) overlay.emplace(k, v);
  req.env = build_child_env(env, o.host_env.empty() ? current_environment() : o.host_env, overlay);
  const std::string workspace = l.state.policy.at("workspace").get<std::string>();
  if (!o.cwd.empty()) {
    req.cwd = o.cwd[0] == '/' ? o.cwd : workspace + "/" + o.cwd;
  } else {
    std::string here = caller_cwd();
    req.cwd = !here.empty() && inside_workspaces(l.state.workspaces, here) ? here : workspace;
  }
  req.background = o.background;
  req.tty = o.tty;
  req.keep_stdin = o.keep_stdin;
  return req;
}

// Terminal raw mode for the duration of a -t session; restored on destruction.
class RawTerminal {
 public:
  explicit RawTerminal(int fd) : fd_(fd) {
    if (!isatty(fd) || tcgetattr(fd, &saved_) != 0) return;
    termios raw = saved_;
    cfmakeraw(&raw);
    active_ = tcsetattr(fd, TCSANOW, &raw) == 0;
  }
  ~RawTerminal() {
    if (active_) tcsetattr(fd_, TCSANOW, &saved_);
  }

 private:
  int fd_;
  termios saved_{};
  bool active_ = false;
};

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

bool same_file(int a, int b) {
  struct stat sa, sb;
  return a == b || (fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
                    sa.st_ino == sb.st_ino);
}

struct Drain {
  int fd = -1;
  std::function<void(const char*, size_t)> sink;
};

// Waits for `exited` on the socket; meanwhile drains `drains` (captured output), relays a
// pty, forwards signals and enforces the deadline.
// limits.output_bytes on foreground output: it reaches the caller through us (a pty or pipes),
// so we count it, cut it at the limit and have the supervisor kill the command's tree.
class OutputLimit {
 public:
  OutputLimit(std::optional<std::uint64_t> limit, int sock, std::string logs_dir)
      : limit_(limit), sock_(sock), logs_dir_(std::move(logs_dir)) {}
  bool active() const { return limit_.has_value(); }
  // How many of `n` new bytes may go on to the caller.
  size_t admit(size_t n, ExecOutcome& out, bool command_running) {
    if (!limit_) return n;
    if (out.output_limit_reached) return 0;
    std::uint64_t room = *limit_ - seen_;
    if (n <= room) {
      seen_ += n;
      return n;
    }
    seen_ += room;
    out.output_limit_reached = true;
    if (command_running) send_message(sock_, MsgType::signal, encode(SignalRequest{SIGKILL, true}));
    Violation v{"limit", now_rfc3339(), "output",
                fmt::format("output limit of {} bytes reached; the rest was cut and the "
                            "command's processes killed", *limit_), std::nullopt};
    UniqueFd dir(open(logs_dir_.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC));
    append_violation_line(dir.get(), violation_to_json(v));
    out.violations.push_back(std::move(v));
    return static_cast<size_t>(room);
  }

 private:
  std::optional<std::uint64_t> limit_;
  int sock_;
  std::string logs_dir_;
  std::uint64_t seen_ = 0;
};

Result<ExecOutcome> wait_for_exit(const std::string& name, int sock, const ExecOptions& o,
                                  int master, std::vector<Drain> drains, ExecOutcome out,
                                  OutputLimit limit) {
  std::optional<Clock::time_point> deadline, drain_deadline;
  if (o.timeout) deadline = Clock::now() + *o.timeout;
  bool have_status = false;
  int wait_status = 0;
  bool stdin_open = master >= 0;
  char buf[65536];
  std::optional<RawTerminal> raw;
  UniqueFd winch;
  if (master >= 0) {
    raw.emplace(0);
    sigset_t w;
    sigemptyset(&w);
    sigaddset(&w, SIGWINCH);
    sigprocmask(SIG_BLOCK, &w, nullptr);
    winch.reset(signalfd(-1, &w, SFD_CLOEXEC));
  }
  auto open_drains = [&] {
    for (auto& d : drains)
      if (d.fd >= 0) return true;
    return false;
  };
  bool master_open = master >= 0;
  while (!have_status || open_drains() || master_open) {
    std::vector<pollfd> fds;
    int i_sock = -1, i_sig = -1, i_in = -1, i_master = -1, i_winch = -1;
    if (!have_status) { i_sock = static_cast<int>(fds.size()); fds.push_back({sock, POLLIN, 0}); }
    if (!have_status && o.signal_fd >= 0) { i_sig = static_cast<int>(fds.size()); fds.push_back({o.signal_fd, POLLIN, 0}); }
    if (stdin_open && !have_status) { i_in = static_cast<int>(fds.size()); fds.push_back({0, POLLIN, 0}); }
    if (master_open) { i_master = static_cast<int>(fds.size()); fds.push_back({master, POLLIN, 0}); }
    if (winch.valid()) { i_winch = static_cast<int>(fds.size()); fds.push_back({winch.get(), POLLIN, 0}); }
    size_t first_drain = fds.size();
    for (auto& d : drains) fds.push_back({d.fd, static_cast<short>(d.fd >= 0 ? POLLIN : 0), 0});
    int timeout_ms = -1;
    if (deadline && !have_status && !out.timed_out) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) {
        out.timed_out = true;
        send_message(sock, MsgType::signal, encode(SignalRequest{SIGKILL, true}));
        continue;
      }
      timeout_ms = static_cast<int>(left);
    }
    // Once the command has ended, what is still in the pty is read until it runs dry; a
    // process it left behind holding the terminal does not keep us waiting.
    // The same for our own pipes under an output limit: leftover processes that keep them open
    // do not keep us waiting either (their later output is cut, as it would be past a limit),
    // nor one that keeps writing: a second after the exit at most.
    if (have_status && (master_open || limit.active())) {
      timeout_ms = 100;
      if (limit.active()) {
        if (!drain_deadline) drain_deadline = Clock::now() + std::chrono::seconds(1);
        if (Clock::now() >= *drain_deadline) break;
      }
    }
    int r = poll(fds.data(), fds.size(), timeout_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return make_error(Errc::internal, std::string("poll: ") + std::strerror(errno));
    }
    if (r == 0 && have_status) break;
    if (i_sock >= 0 && fds[i_sock].revents) {
      Message m;
      int rc = recv_message(sock, m);
      for (int fd : m.fds) close(fd);
      if (rc != 0) {
        // The supervisor went away (stopped, killed): so did the command.
        have_status = true;
        wait_status = SIGKILL;
        out.error = fmt::format("sandbox {} stopped while the command ran", name);
      } else if (m.type == MsgType::violations) {
        auto list = nlohmann::json::parse(m.payload, nullptr, false);
        if (list.is_array())
          for (const auto& j : list)
            if (auto v = violation_from_json(j)) out.violations.push_back(std::move(*v));
      } else if (m.type == MsgType::exited) {
        auto st = decode_u32(m.payload);
        have_status = true;
        wait_status = st ? static_cast<int>(*st) : 0;
      }
    }
    if (i_sig >= 0 && (fds[i_sig].revents & POLLIN)) {
      signalfd_siginfo si;
      if (read(o.signal_fd, &si, sizeof si) == static_cast<ssize_t>(sizeof si) &&
          si.ssi_code != SI_KERNEL)
        send_message(sock, MsgType::signal,
                     encode(SignalRequest{static_cast<std::int32_t>(si.ssi_signo), false}));
    }
    if (i_winch >= 0 && (fds[i_winch].revents & POLLIN)) {
      signalfd_siginfo si;
      if (read(winch.get(), &si, sizeof si) > 0) {
        winsize ws;
        if (ioctl(0, TIOCGWINSZ, &ws) == 0) ioctl(master, TIOCSWINSZ, &ws);
      }
    }
    if (i_in >= 0 && fds[i_in].revents) {
      ssize_t n = read(0, buf, sizeof buf);
      if (n > 0) write_all(master, buf, static_cast<size_t>(n));
      else stdin_open = false;
    }
    if (i_master >= 0 && fds[i_master].revents) {
      ssize_t n = read(master, buf, sizeof buf);
      if (n > 0) write_all(1, buf, limit.admit(static_cast<size_t>(n), out, !have_status));
      else if (n == 0 || errno != EINTR) master_open = false;  // EIO: no one holds the tty
    }
    for (size_t k = 0; k < drains.size(); ++k) {
      auto& d = drains[k];
      if (d.fd < 0 || !fds[first_drain + k].revents) continue;
      ssize_t n = read(d.fd, buf, sizeof buf);
      if (n > 0) {
        size_t pass = limit.admit(static_cast<size_t>(n), out, !have_status);
        if (pass > 0) d.sink(buf, pass);
      }
      else if (n == 0 || errno != EINTR) d.fd = -1;
    }
  }
  if (out.timed_out) {
    out.exit_code = 124;
  } else if (WIFEXITED(wait_status)) {
    out.exit_code = WEXITSTATUS(wait_status);
  } else {
    out.exit_code = 128 + WTERMSIG(wait_status);
  }
  return out;
}

// `close_after_send`: our copies of fds the command gets (captured pipes' write ends), closed
// once the request carried them off, so the pipes reach EOF when the command closes them.
Result<ExecOutcome> run_exec(const std::string& name, const ExecOptions& o, const int stdio[3],
                             std::vector<Drain> drains, std::vector<UniqueFd> close_after_send) {
  if (o.argv.empty()) return make_error(Errc::invalid_input, "no command given");
  auto l = load_for_exec(name);
  if (!l) return std::move(l).error();
  if (auto r = check_required(l->state, o.required_paths); !r) return std::move(r).error();
  ExecOptions opts = o;
  if (!opts.timeout && !l->state.policy.at("limits").at("timeout_ms").is_null())
    opts.timeout = std::chrono::milliseconds(l->state.policy["limits"]["timeout_ms"].get<std::int64_t>());
  ExecRequest req = build_request(*l, opts);
  std::optional<std::uint64_t> output_limit;
  if (const auto& ob = l->state.policy.at("limits").at("output_bytes"); !ob.is_null())
    output_limit = ob.get<std::uint64_t>();
  // A foreground command's output is counted on its way to the caller: through pipes we
  // drain unless the caller's own drains (exec_captured) already are that.
  UniqueFd limited_out_w, limited_err_w, limited_out_r, limited_err_r;
  int caller_fds[3] = {stdio[0], stdio[1], stdio[2]};
  if (output_limit && !req.background && !req.tty && drains.empty()) {
    int p1[2];
    if (pipe2(p1, O_CLOEXEC) != 0) return make_error(Errc::io_error, std::strerror(errno));
    limited_out_r.reset(p1[0]);
    limited_out_w.reset(p1[1]);
    const int to_out = stdio[1], to_err = stdio[2];
    drains.push_back({limited_out_r.get(), [to_out](const char* p, size_t n) { write_all(to_out, p, n); }});
    caller_fds[1] = caller_fds[2] = limited_out_w.get();
    // stdout and stderr into one file (2>&1) share one pipe, so their order is kept.
    if (!same_file(stdio[1], stdio[2])) {
      int p2[2];
      if (pipe2(p2, O_CLOEXEC) != 0) return make_error(Errc::io_error, std::strerror(errno));
      limited_err_r.reset(p2[0]);
      limited_err_w.reset(p2[1]);
      drains.push_back({limited_err_r.get(), [to_err](const char* p, size_t n) { write_all(to_err, p, n); }});
      caller_fds[2] = limited_err_w.get();
    }
  }
  if (req.tty) {
    winsize ws;
    if (ioctl(0, TIOCGWINSZ, &ws) == 0) {
      req.rows = ws.ws_row;
      req.cols = ws.ws_col;
    }
  }
  auto sock = connect_supervisor(*l);
  if (!sock) return std::move(sock).error();

  UniqueFd devnull;
  int fds[3] = {caller_fds[0], caller_fds[1], caller_fds[2]};
  if (!req.keep_stdin) {
    devnull.reset(open("/dev/null", O_RDONLY | O_CLOEXEC));
    fds[0] = devnull.get();
  }
  bool pass_fds = !req.tty && !req.background;
  if (int e = send_message(sock->get(), MsgType::exec, encode(req), pass_fds ? fds : nullptr,
                           pass_fds ? 3 : 0))
    return make_error(Errc::not_running, fmt::format("sandbox {}: the supervisor did not take the "
                                                     "request: {}", name, std::strerror(e)));
  close_after_send.clear();
  limited_out_w.reset();  // the command has them now: EOF when it (and what it left) is done
  limited_err_w.reset();
  Message m;
  int rc = recv_message(sock->get(), m);
  std::vector<UniqueFd> got;
  for (int fd : m.fds) got.emplace_back(fd);
  if (rc != 0)
    return make_error(Errc::could_not_start,
                      fmt::format("could not start the command: the supervisor of sandbox {} "
                                  "closed the connection ({})", name, std::strerror(rc)));
  ExecOutcome out;
  if (m.type == MsgType::error) return make_error(Errc::could_not_start, m.payload);
  if (m.type == MsgType::exec_failed) {
    auto e = decode_u32(m.payload);
    int err = e ? static_cast<int>(*e) : ENOENT;
    out.exit_code = err == ENOENT ? 127 : 126;
    out.error = err == ENOENT ? fmt::format("{}: command not found", o.argv[0])
                              : fmt::format("{}: cannot execute: {}", o.argv[0], std::strerror(err));
    return out;
  }
  if (m.type != MsgType::started) return make_error(Errc::internal, "unexpected reply from the supervisor");
  auto st = decode_started(m.payload);
  if (!st) return std::move(st).error();
  out.pid = st->pid;
  out.job_id = st->job_id;
  if (req.background) return out;
  int master = req.tty && !got.empty() ? got[0].get() : -1;
  if (req.tty && master < 0) return make_error(Errc::could_not_start, "the supervisor sent no terminal");
  return wait_for_exit(name, sock->get(), opts, master, std::move(drains), out,
                       OutputLimit(output_limit, sock->get(), l->paths.logs));
}

}  // namespace

Result<State> preflight(const std::string& name, const std::vector<std::string>& required_paths) {
  auto l = load_for_exec(name);
  if (!l) return std::move(l).error();
  if (auto r = check_required(l->state, required_paths); !r) return std::move(r).error();
  return l->state;
}

Result<ExecOutcome> exec(const std::string& name, const ExecOptions& options, const int stdio[3]) {
  return run_exec(name, options, stdio, {}, {});
}

Result<CapturedExec> exec_captured(const std::string& name, const ExecOptions& options,
                                   std::function<void(const char*, size_t)> on_stdout,
                                   std::function<void(const char*, size_t)> on_stderr) {
  if (options.tty || options.background)
    return make_error(Errc::invalid_input, "a captured exec has neither a tty nor a background job");
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return make_error(Errc::io_error, std::strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(out[0]);
    close(out[1]);
    return make_error(Errc::io_error, std::strerror(errno));
  }
  UniqueFd out_r(out[0]), out_w(out[1]), err_r(err[0]), err_w(err[1]);
  CapturedExec cap;
  std::vector<Drain> drains{
      {out_r.get(), [&](const char* p, size_t n) { cap.stdout_data.append(p, n); if (on_stdout) on_stdout(p, n); }},
      {err_r.get(), [&](const char* p, size_t n) { cap.stderr_data.append(p, n); if (on_stderr) on_stderr(p, n); }}};
  ExecOptions o = options;
  o.keep_stdin = false;
  // The write ends travel to the supervisor inside the request; ours close right after, so
  // the pipes reach EOF when the command (and whatever it left) closes them.
  int stdio[3] = {-1, out_w.get(), err_w.get()};
  std::vector<UniqueFd> ours;
  ours.push_back(std::move(out_w));
  ours.push_back(std::move(err_w));
  auto r = run_exec(name, o, stdio, std::move(drains), std::move(ours));
  if (!r) return std::move(r).error();
  if (!r->error.empty()) cap.stderr_data += r->error + "\n";
  cap.exit_code = r->exit_code;
  return cap;
}

Result<void> kill_job(const std::string& name, const std::string& job_id) {
  auto l = load_for_exec(name);
  if (!l) return std::move(l).error();
  if (!valid_job_id(job_id))
    return make_error(Errc::invalid_input, "invalid job id \"" + job_id +
                                               "\": ids are 8 hex digits, as `corral ps` shows");
  auto sock = connect_supervisor(*l);
  if (!sock) return std::move(sock).error();
  if (int e = send_message(sock->get(), MsgType::kill_job, job_id))
    return make_error(Errc::not_running, std::strerror(e));
  Message m;
  if (int rc = recv_message(sock->get(), m); rc != 0)
    return make_error(Errc::not_running, std::strerror(rc));
  for (int fd : m.fds) close(fd);
  if (m.type == MsgType::ok) return {};
  return make_error(Errc::not_found, m.payload);
}

}  // namespace corral::sandbox
