// A minimal init: one command, zombie reaping, and signal forwarding without double delivery.
#include "enforce/init.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "enforce/messages.hpp"

extern char** environ;

namespace corral {
namespace {

void send_msg(int fd, ChildMsgType type, int err, pid_t pid, int status) {
  ChildMsg msg;
  std::memset(&msg, 0, sizeof msg);
  msg.type = type;
  msg.err = err;
  msg.pid = pid;
  msg.wait_status = status;
  ssize_t n = send(fd, &msg, sizeof msg, MSG_NOSIGNAL);
  (void)n;
}

// fork() without glibc's atfork handlers, which may block on locks copied from another thread.
pid_t raw_fork() { return static_cast<pid_t>(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)); }

[[noreturn]] void exec_command(ChildConfig& c, int err_fd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int i = 0; i < 3; ++i)
    if (c.stdio_fds[i] >= 0 && dup2(c.stdio_fds[i], i) < 0) {
      int e = errno;
      ssize_t n = write(err_fd, &e, sizeof e);
      (void)n;
      _exit(126);
    }
  if (chdir(c.cwd.c_str()) != 0 && chdir(c.fallback_cwd.c_str()) != 0) {
    int e = errno;
    ssize_t n = write(err_fd, &e, sizeof e);
    (void)n;
    _exit(126);
  }
  // Nothing of corral's leaks into the command: every fd past stdio closes at exec.
  syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
  environ = c.envp.data();  // execvpe searches the PATH of `environ`, not of envp
  execvpe(c.argv[0], c.argv.data(), c.envp.data());
  int e = errno;
  ssize_t n = write(err_fd, &e, sizeof e);
  (void)n;
  _exit(127);
}

}  // namespace

void run_init(ChildConfig& c) {
  // Every signal we forward, and SIGCHLD, is taken synchronously with sigwaitinfo. Blocked
  // signals are also what lets signals from the parent namespace reach a PID 1 at all.
  sigset_t set;
  sigfillset(&set);
  sigdelset(&set, SIGKILL);
  sigdelset(&set, SIGSTOP);
  for (int s : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) sigdelset(&set, s);
  sigprocmask(SIG_BLOCK, &set, nullptr);

  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    send_msg(c.ctl_fd, ChildMsgType::setup_failed, errno, 0, 0);
    _exit(125);
  }
  pid_t cmd = raw_fork();
  if (cmd < 0) {
    ChildMsg msg;
    std::memset(&msg, 0, sizeof msg);
    msg.type = ChildMsgType::setup_failed;
    msg.step = SetupStep::fork_command;
    msg.err = errno;
    ssize_t n = send(c.ctl_fd, &msg, sizeof msg, MSG_NOSIGNAL);
    (void)n;
    _exit(125);
  }
  if (cmd == 0) {
    close(err_pipe[0]);
    exec_command(c, err_pipe[1]);
  }
  close(err_pipe[1]);
  // Init no longer needs the command's stdio; holding it would delay EOF for the parent.
  for (int fd : c.stdio_fds)
    if (fd >= 0) close(fd);

  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(err_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno))
    send_msg(c.ctl_fd, ChildMsgType::exec_failed, exec_errno, cmd, 0);
  else
    send_msg(c.ctl_fd, ChildMsgType::ready, 0, cmd, 0);

  for (;;) {
    siginfo_t info;
    int sig = sigwaitinfo(&set, &info);
    if (sig < 0) continue;
    if (sig == SIGCHLD) {
      int status;
      pid_t pid;
      while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        if (pid == cmd) {
          if (exec_errno == 0) send_msg(c.ctl_fd, ChildMsgType::exited, 0, cmd, status);
          _exit(0);  // the kernel kills every process left in the namespace
        }
      }
      continue;
    }
    // A terminal delivers SIGINT/SIGQUIT/SIGWINCH to the whole foreground process group, the
    // command included: forwarding those (SI_KERNEL) would deliver them twice.
    if (info.si_code == SI_KERNEL) continue;
    kill(cmd, sig);
  }
}

}  // namespace corral
