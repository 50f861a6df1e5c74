// The seccomp profiles, compiled with libseccomp into a classic BPF program in the parent (the
// child cannot allocate), and cached per distinct options for the life of the process.
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "linux/fd.hpp"
#include "linux/seccomp.hpp"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080  // Linux 5.6; older glibc headers lack it
#endif

namespace corral {
namespace {

struct MaskedValue {
  std::uint32_t mask;
  std::uint32_t value;
};

// Appends (mask, value) patterns that together match exactly the 32-bit values v with
// (v & base_mask) == base_value that are not in `allowed`. libseccomp accepts one comparison
// per argument per rule, so "not one of these" and "this bit but not that value" must be
// spelled as several rules, each a single MASKED_EQ; this walks the binary trie of values and
// emits every subtree that holds no allowed value.
void cover_excluding(std::uint32_t mask, std::uint32_t value, int bit,
                     std::span<const std::uint32_t> allowed, std::vector<MaskedValue>& out) {
  bool holds_allowed = std::any_of(allowed.begin(), allowed.end(),
                                   [&](std::uint32_t a) { return (a & mask) == value; });
  if (!holds_allowed) {
    out.push_back({mask, value});
    return;
  }
  while (bit >= 0 && (mask >> bit & 1U)) --bit;
  if (bit < 0) return;  // every bit fixed: this is an allowed value
  std::uint32_t b = 1U << bit;
  cover_excluding(mask | b, value, bit - 1, allowed, out);
  cover_excluding(mask | b, value | b, bit - 1, allowed, out);
}

std::vector<MaskedValue> patterns_excluding(std::uint32_t base_mask, std::uint32_t base_value,
                                            std::span<const std::uint32_t> allowed) {
  std::vector<MaskedValue> out;
  cover_excluding(base_mask, base_value & base_mask, 31, allowed, out);
  return out;
}

// Owns a libseccomp context and records what was added. The first failure sticks; later calls
// are no-ops so the profile code can read as a plain list.
class FilterBuilder {
 public:
  FilterBuilder(scmp_filter_ctx ctx, std::uint32_t block_action, SeccompProgram& out)
      : ctx_(ctx), block_(block_action), out_(out) {}

  const std::optional<Error>& error() const { return error_; }

  // Blocks `name` outright. Names the native architecture does not have (vm86 on x86_64,
  // umount on aarch64) are skipped: a rule on libseccomp's pseudo-number would be dead code.
  void block(const char* name, std::uint32_t action) {
    int nr = resolve(name);
    if (nr < 0) return;
    add(name, nr, action, nullptr);
    note(name, std::string(name) + ": " + action_text(action));
    if (!error_) outright_.push_back(name);
  }
  void block(const char* name) { block(name, block_); }

  // A block asked for by the caller (a profile file). Calls the profile already blocks outright
  // keep their rule (clone3's ENOSYS must stay); conditional ones become unconditional.
  void block_extra(const std::string& name) {
    if (error_) return;
    int nr = seccomp_syscall_resolve_name(name.c_str());
    if (nr == __NR_SCMP_ERROR) {
      error_ = make_error(Errc::invalid_input, "unknown syscall \"" + name + "\" in the seccomp "
                                               "block list");
      return;
    }
    if (nr < 0) return;  // not a syscall on this architecture
    if (std::find(outright_.begin(), outright_.end(), name) != outright_.end()) return;
    add(name.c_str(), nr, block_, nullptr);
    note(name.c_str(), name + ": " + action_text(block_) + " (profile)");
    if (!error_) outright_.push_back(name);
  }

  // Blocks `name` when (low 32 bits of argument `arg`) & mask == value for ANY of `patterns`.
  // Only the low 32 bits are compared: every argument we test is an int/unsigned int in the
  // kernel, which ignores the register's upper half, so a caller must not dodge the rule by
  // setting bits there.
  void block_when(const char* name, unsigned arg, std::span<const MaskedValue> patterns,
                  const std::string& condition) {
    int nr = resolve(name);
    if (nr < 0) return;
    for (const MaskedValue& p : patterns) {
      scmp_arg_cmp cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, p.mask, p.value);
      add(name, nr, block_, &cmp);
    }
    note(name, std::string(name) + " when " + condition + ": " + action_text(block_));
  }

  // Sends `name` to the supervisor, which looks and lets it continue (fs_write_check.hpp):
  // always, or with `bits`, when argument `arg` has one of them. A call with a blocking rule
  // is left alone: the supervisor could not tell the two rules' notifications apart.
  void watch(const char* name, unsigned arg, std::span<const std::uint32_t> bits,
             const std::string& condition) {
    int nr = resolve(name);
    if (nr < 0) return;
    if (std::find(out_.blocked_names.begin(), out_.blocked_names.end(), name) !=
        out_.blocked_names.end())
      return;
    if (bits.empty()) add(name, nr, SCMP_ACT_NOTIFY, nullptr);
    for (std::uint32_t b : bits) {
      scmp_arg_cmp cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, b, b);
      add(name, nr, SCMP_ACT_NOTIFY, &cmp);
    }
    if (error_) return;
    out_.watched_nrs.push_back(nr);
    out_.rules.push_back(std::string(name) + (condition.empty() ? "" : " when " + condition) +
                         ": notify supervisor, continue (watched write)");
  }

  // Sends `name` to the supervisor when (low 32 bits of argument `arg`) & mask == value for any
  // of `patterns`, even if other values of that argument are blocked: for calls whose
  // notifications the monitor tells apart by that argument itself (a register, not memory).
  void watch_when(const char* name, unsigned arg, std::span<const MaskedValue> patterns,
                  const std::string& condition) {
    int nr = resolve(name);
    if (nr < 0) return;
    // Blocked outright (a profile's `block`): it stays blocked for every argument.
    if (std::find(outright_.begin(), outright_.end(), name) != outright_.end()) return;
    for (const MaskedValue& p : patterns) {
      scmp_arg_cmp cmp = SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, p.mask, p.value);
      add(name, nr, SCMP_ACT_NOTIFY, &cmp);
    }
    if (error_) return;
    out_.watched_nrs.push_back(nr);
    out_.rules.push_back(std::string(name) + " when " + condition +
                         ": notify supervisor, continue (watched write)");
  }

  // Blocks `name` when argument `arg` has any of the single bits in `bits`.
  void block_any_bit(const char* name, unsigned arg, std::span<const std::uint32_t> bits,
                     const std::string& condition) {
    std::vector<MaskedValue> patterns;
    for (std::uint32_t b : bits) patterns.push_back({b, b});
    block_when(name, arg, patterns, condition);
  }

 private:
  int resolve(const char* name) const {
    if (error_) return -1;
    return seccomp_syscall_resolve_name(name);  // __NR_SCMP_ERROR or a pseudo-number: < 0
  }

  void add(const char* name, int nr, std::uint32_t action, const scmp_arg_cmp* cmp) {
    if (error_) return;
    int rc = cmp ? seccomp_rule_add_exact_array(ctx_, action, nr, 1, cmp)
                 : seccomp_rule_add_exact_array(ctx_, action, nr, 0, nullptr);
    if (rc == 0) return;
    Errc code = rc == -EOPNOTSUPP || rc == -EINVAL ? Errc::unsupported : Errc::internal;
    error_ = make_error(code, std::string("libseccomp refused the seccomp rule for ") + name +
                                  ": " + std::strerror(-rc) +
                                  " (is libseccomp too old for this kernel's actions?)");
  }

  void note(const char* name, std::string rule) {
    if (error_) return;
    out_.blocked_names.emplace_back(name);
    out_.rules.push_back(std::move(rule));
  }

  static std::string action_text(std::uint32_t action) {
    if (action == SCMP_ACT_NOTIFY) return "notify supervisor, EPERM";
    if (action == SCMP_ACT_ERRNO(EPERM)) return "EPERM";
    if (action == SCMP_ACT_ERRNO(ENOSYS)) return "ENOSYS";
    return "blocked";
  }

  scmp_filter_ctx ctx_;
  std::uint32_t block_;
  SeccompProgram& out_;
  std::optional<Error> error_;
  std::vector<std::string> outright_;  // names blocked with no condition
};

// Namespace flags: clone() and unshare() share the CLONE_NEW* bits, except that clone()'s low
// byte is the exit signal, so CLONE_NEWTIME (0x80) exists only for unshare (and clone3).
constexpr std::uint32_t kCloneNsBits[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS,
                                          CLONE_NEWIPC, CLONE_NEWUSER,   CLONE_NEWPID,
                                          CLONE_NEWNET};
constexpr std::uint32_t kUnshareNsBits[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS,
                                            CLONE_NEWIPC, CLONE_NEWUSER,   CLONE_NEWPID,
                                            CLONE_NEWNET, CLONE_NEWTIME};

void add_default_profile(FilterBuilder& b, const SeccompOptions& o) {
  // The mount API. Without capabilities these fail anyway; blocking them keeps a nested user
  // namespace (where the caller does hold CAP_SYS_ADMIN) from re-arranging what it sees, and
  // makes every attempt observable.
  for (const char* name : {"mount", "umount", "umount2", "pivot_root", "open_tree", "move_mount",
                           "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"})
    b.block(name);

  if (!o.allow_nested_userns) {
    // A user namespace is the one namespace an unprivileged process may create, and it hands
    // back a full capability set in it: the entry to most kernel privilege-escalation bugs.
    // Other namespaces need capabilities we dropped, so blocking every CLONE_NEW* bit costs
    // nothing and is simpler to reason about than CLONE_NEWUSER alone.
    b.block_any_bit("unshare", 0, kUnshareNsBits, "flags has a CLONE_NEW* bit");
    b.block_any_bit("clone", 0, kCloneNsBits, "flags has a CLONE_NEW* bit");
    // clone3 passes its flags in a struct behind a pointer, which seccomp cannot read. So it
    // goes entirely, with ENOSYS rather than EPERM and never to the supervisor: ENOSYS tells
    // glibc (pthread_create, posix_spawn) that the kernel lacks clone3 and it falls back to
    // clone, whose flags we can check. Docker's and Chrome's filters do the same.
    b.block("clone3", SCMP_ACT_ERRNO(ENOSYS));
    b.block("setns");
  }

  // Other processes' memory and fds. The pid namespace already hides the host's processes;
  // these would still let one sandboxed process take over another.
  for (const char* name : {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"})
    b.block(name);

  // Large kernel attack surface that no ordinary build, test or script needs.
  for (const char* name : {"bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
                           "io_uring_enter", "io_uring_register", "keyctl", "add_key",
                           "request_key", "fanotify_init"})
    b.block(name);

  // Whole-system operations (all need capabilities we dropped; blocked as defence in depth)
  // and legacy interfaces with a history of bugs.
  for (const char* name : {"kexec_load", "kexec_file_load", "init_module", "finit_module",
                           "delete_module", "reboot", "swapon", "swapoff", "acct", "syslog",
                           "quotactl", "quotactl_fd", "lookup_dcookie", "nfsservctl", "vm86",
                           "vm86old", "uselib", "open_by_handle_at", "name_to_handle_at"})
    b.block(name);

  // The clock is shared with the host. adjtimex/clock_adjtime also serve read-only queries
  // (their mode is behind a pointer), which therefore fail too; ntp tooling is not sandbox work.
  for (const char* name : {"clock_settime", "clock_settime64", "settimeofday", "stime",
                           "adjtimex", "clock_adjtime", "clock_adjtime64"})
    b.block(name);

  // personality(ADDR_NO_RANDOMIZE) turns ASLR off for what the caller execs next. The value
  // 0xffffffff is the read-only query (it has every bit set), so it stays allowed, as do
  // PER_LINUX and the other personalities.
  const std::uint32_t query[] = {0xffffffffU};
  b.block_when("personality", 0, patterns_excluding(ADDR_NO_RANDOMIZE, ADDR_NO_RANDOMIZE, query),
               "persona has ADDR_NO_RANDOMIZE (the 0xffffffff query is allowed)");

  // TIOCSTI pushes bytes into a terminal's input queue and TIOCLINUX can read the console
  // selection: both let a sandboxed process type commands into the user's shell.
  const MaskedValue tty_ioctls[] = {{0xffffffffU, TIOCSTI}, {0xffffffffU, TIOCLINUX}};
  b.block_when("ioctl", 1, tty_ioctls, "request is TIOCSTI or TIOCLINUX");
}

// Write-type calls, watched (see fs_write_check.hpp). Opens only when a flag asks for writing:
// read-only opens are most of a program's calls and never write.
void add_write_watch(FilterBuilder& b, bool reads) {
  const std::uint32_t write_flags[] = {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC};
  const MaskedValue non_devices[] = {
      {S_IFMT, 0}, {S_IFMT, S_IFREG}, {S_IFMT, S_IFIFO}, {S_IFMT, S_IFSOCK}};
  for (const std::string& name : watched_write_syscalls()) {
    if (reads && (name == "open" || name == "openat"))
      b.watch(name.c_str(), 0, {}, "always (reads watched too)");
    else if (name == "mknod" || name == "mknodat")  // device nodes: blocked (strict) or EPERM
      b.watch_when(name.c_str(), name == "mknod" ? 1 : 2, non_devices,
                   "mode is a regular file, FIFO or socket");
    else if (name == "open")
      b.watch("open", 1, write_flags, "flags has O_WRONLY, O_RDWR, O_CREAT or O_TRUNC");
    else if (name == "openat")
      b.watch("openat", 2, write_flags, "flags has O_WRONLY, O_RDWR, O_CREAT or O_TRUNC");
    else
      b.watch(name.c_str(), 0, {}, "");
  }
}

void add_strict_profile(FilterBuilder& b) {
  // Only the socket families ordinary programs use. AF_NETLINK, AF_PACKET, AF_ALG, AF_VSOCK,
  // AF_XDP, AF_BLUETOOTH, AF_KEY and the rest are reachable without capabilities and are where
  // socket bugs concentrate. Written as "not one of these" so new families stay blocked.
  const std::uint32_t families[] = {AF_UNIX, AF_INET, AF_INET6};
  std::vector<MaskedValue> other_families = patterns_excluding(0, 0, families);
  b.block_when("socket", 0, other_families, "domain is not AF_UNIX, AF_INET or AF_INET6");
  b.block_when("socketpair", 0, other_families, "domain is not AF_UNIX, AF_INET or AF_INET6");

  // Device nodes (FIFOs and sockets stay allowed): no sandbox work creates them.
  const MaskedValue devices[] = {{S_IFMT, S_IFCHR}, {S_IFMT, S_IFBLK}};
  b.block_when("mknod", 1, devices, "mode is S_IFCHR or S_IFBLK");
  b.block_when("mknodat", 2, devices, "mode is S_IFCHR or S_IFBLK");

  // chroot needs a capability we dropped; kcmp and process_madvise look into or act on other
  // processes; iopl/ioperm (port I/O) and modify_ldt (x86 segment descriptors, a past source of
  // kernel bugs) are only resolved on x86.
  for (const char* name :
       {"chroot", "kcmp", "process_madvise", "iopl", "ioperm", "modify_ldt"})
    b.block(name);
}

Result<std::vector<sock_filter>> export_bpf(scmp_filter_ctx ctx) {
  // libseccomp 2.5 exports only to an fd; a memfd keeps the program off any filesystem.
  UniqueFd fd(memfd_create("corral-seccomp-bpf", MFD_CLOEXEC));
  if (!fd.valid())
    return make_error(Errc::setup_failed,
                      std::string("cannot create a memfd for the seccomp filter: ") +
                          std::strerror(errno));
  if (int rc = seccomp_export_bpf(ctx, fd.get()); rc != 0)
    return make_error(Errc::internal, std::string("libseccomp could not export the filter: ") +
                                          std::strerror(-rc));
  struct stat st;
  if (fstat(fd.get(), &st) != 0)
    return make_error(Errc::io_error,
                      std::string("cannot stat the seccomp memfd: ") + std::strerror(errno));
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0 || size % sizeof(sock_filter) != 0)
    return make_error(Errc::internal, "libseccomp exported a filter of " + std::to_string(size) +
                                          " bytes, not a whole number of BPF instructions");
  std::vector<sock_filter> code(size / sizeof(sock_filter));
  size_t done = 0;
  while (done < size) {
    ssize_t n = pread(fd.get(), reinterpret_cast<char*>(code.data()) + done, size - done,
                      static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return make_error(Errc::io_error, std::string("cannot read back the seccomp filter: ") +
                                            (n < 0 ? std::strerror(errno) : "short read"));
    done += static_cast<size_t>(n);
  }
  if (code.size() > BPF_MAXINSNS)
    return make_error(Errc::internal, "the seccomp filter has " + std::to_string(code.size()) +
                                          " instructions, more than the kernel's " +
                                          std::to_string(BPF_MAXINSNS));
  return code;
}

Result<SeccompProgram> build(const SeccompOptions& o) {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) return make_error(Errc::internal, "libseccomp could not create a filter context");
  struct Release {
    scmp_filter_ctx c;
    ~Release() { seccomp_release(c); }
  } release{ctx};

  // Only the native architecture's entry points are filtered; every other one (i386 int 0x80
  // and sysenter, x32 on x86_64, arm32 on aarch64) fails every call with ENOSYS. A 32-bit
  // syscall table has its own numbers, and a second table to keep in sync is a second chance to
  // miss a rule. ENOSYS rather than kill: to the program it looks like a kernel built without
  // compat support, which software handles, and nothing runs either way.
  // libseccomp's x86_64 filter sends x32 (nr | __X32_SYSCALL_BIT) to the same bad-arch action.
  if (int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(ENOSYS)); rc != 0)
    return make_error(Errc::internal, std::string("libseccomp: cannot set the bad-arch action: ") +
                                          std::strerror(-rc));
  // A binary tree over syscall numbers instead of a linear scan: common, allowed syscalls pass
  // after ~log2(rules) comparisons instead of one per blocked syscall.
  if (int rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2); rc != 0)
    return make_error(Errc::internal, std::string("libseccomp: cannot enable tree optimisation: ") +
                                          std::strerror(-rc));

  SeccompProgram prog;
  std::uint32_t block_action = o.notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);
  FilterBuilder b(ctx, block_action, prog);
  add_default_profile(b, o);
  if (o.profile == SeccompOptions::Profile::strict) add_strict_profile(b);
  for (const std::string& name : o.extra_blocked) b.block_extra(name);
  if (o.notify && o.watch_writes) add_write_watch(b, o.watch_reads);
  if (b.error()) return *b.error();

  Result<std::vector<sock_filter>> code = export_bpf(ctx);
  if (!code) return std::move(code).error();
  prog.code = std::move(code).value();
  prog.needs_listener = o.notify;
  std::sort(prog.watched_nrs.begin(), prog.watched_nrs.end());
  std::sort(prog.blocked_names.begin(), prog.blocked_names.end());
  prog.blocked_names.erase(std::unique(prog.blocked_names.begin(), prog.blocked_names.end()),
                           prog.blocked_names.end());
  return prog;
}

}  // namespace

Result<SeccompProgram> compile_seccomp_filter(const SeccompOptions& options) {
  // A handful of distinct options per process at most: a linear scan over operator==.
  static std::mutex mu;
  static std::vector<std::pair<SeccompOptions, SeccompProgram>> cache;
  // Held across the compile: libseccomp's context is not shared, but one compile per key is
  // the point of the cache, and a compile takes about a millisecond.
  std::lock_guard<std::mutex> lock(mu);
  for (const auto& [opts, prog] : cache)
    if (opts == options) return prog;
  Result<SeccompProgram> prog = build(options);
  if (!prog) return prog;
  cache.emplace_back(options, *prog);
  return prog;
}

}  // namespace corral
