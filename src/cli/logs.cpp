// `corral logs NAME ID [-f]`: a background process's output (stdout to stdout, stderr to
// stderr); -f follows it until the process ends. Output dropped under the log limit is
// announced, never silently missing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fmt/format.h>
#include <memory>
#include <thread>

#include "cli/exit_status.hpp"
#include "cli/sandbox_support.hpp"
#include "cli/verbs.hpp"
#include "linux/fd.hpp"
#include "sandbox/api.hpp"

namespace corral::cli {
namespace {

// Follows one log file across rotations (NAME → NAME.old, then a fresh NAME).
struct Follower {
  std::string path;
  int out_fd;
  UniqueFd fd;
  ino_t ino = 0;

  void copy_all() {
    char buf[65536];
    ssize_t n;
    while ((n = read(fd.get(), buf, sizeof buf)) > 0) {
      ssize_t off = 0;
      while (off < n) {
        ssize_t w = write(out_fd, buf + off, static_cast<size_t>(n - off));
        if (w <= 0) return;
        off += w;
      }
    }
  }
  void open_current() {
    fd.reset(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st;
    ino = fd.valid() && fstat(fd.get(), &st) == 0 ? st.st_ino : 0;
  }
  // Reads what is new; true when something was.
  void poll() {
    if (!fd.valid()) open_current();
    if (!fd.valid()) return;
    copy_all();
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && st.st_ino != ino) {
      copy_all();  // the rest of the rotated file, then the new one
      open_current();
      copy_all();
    }
  }
};

int show_logs(const std::string& name, const std::string& id, bool follow) {
  auto dir = sandbox::logs_dir(name);
  if (!dir) return report_sandbox_error(dir.error());
  auto job = sandbox::load_job(*dir, id);
  if (!job) return report_sandbox_error(job.error());
  if (job->dropped_stdout || job->dropped_stderr)
    fmt::print(stderr, "corral: [log truncated: the first {} bytes of stdout and {} of stderr "
               "were dropped (log limit)]\n", job->dropped_stdout, job->dropped_stderr);
  Follower out{*dir + "/" + id + ".out", 1, {}, 0}, err{*dir + "/" + id + ".err", 2, {}, 0};
  // What rotated out earlier comes first.
  for (auto* f : {&out, &err}) {
    UniqueFd old(open((f->path + ".old").c_str(), O_RDONLY | O_CLOEXEC));
    if (old.valid()) {
      Follower o{f->path + ".old", f->out_fd, std::move(old), 0};
      o.copy_all();
    }
  }
  out.poll();
  err.poll();
  while (follow) {
    auto j = sandbox::load_job(*dir, id);
    bool done = !j || j->state != "running";
    out.poll();
    err.poll();
    if (done) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // After the output, so that a reader of both streams sees it last.
  auto last = sandbox::load_job(*dir, id);
  if (last && last->output_limit_reached)
    fmt::print(stderr, "corral: [output limit reached: the output was cut there and the "
               "process's tree killed]\n");
  return exit_status::success;
}

}  // namespace

void add_logs_verb(CLI::App& app, VerbAction& action) {
  struct Opts {
    std::string name, id;
    bool follow = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* sub = app.add_subcommand("logs", "Show a background process's output");
  sub->add_option("name", o->name, "The sandbox")->required();
  sub->add_option("id", o->id, "The process id from `corral ps`")->required();
  sub->add_flag("-f,--follow", o->follow, "Follow until the process ends");
  sub->callback([o, &action] { action = [o] { return show_logs(o->name, o->id, o->follow); }; });
}

}  // namespace corral::cli
