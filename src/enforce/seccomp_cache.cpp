// On-disk cache of compiled seccomp filters (see seccomp_cache.hpp).
#include "enforce/seccomp_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "common/sha256.hpp"
#include "common/state_root.hpp"

namespace corral {
namespace {

constexpr std::string_view kMagic = "corral-seccomp-cache 1\n";
constexpr std::size_t kMaxEntryBytes = 1 << 20;

// Which corral binary compiled it: a rebuilt or upgraded binary never reads an old entry.
std::optional<std::string> binary_identity() {
  struct stat st;
  if (stat("/proc/self/exe", &st) != 0) return std::nullopt;
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec);
}

std::string options_key(const SeccompOptions& o) {
  std::string k = fmt::format("profile={} nested_userns={} notify={} watch_writes={} watch_reads={} block=",
                              static_cast<int>(o.profile), o.allow_nested_userns, o.notify,
                              o.watch_writes, o.watch_reads);
  for (const auto& b : o.extra_blocked) k += b + ",";
  return k;
}

void put_u32(std::string& out, std::uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
void put_str(std::string& out, const std::string& s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

struct Reader {
  const std::string& in;
  std::size_t at = 0;
  bool ok = true;
  std::uint32_t u32() {
    std::uint32_t v = 0;
    if (at + 4 > in.size()) {
      ok = false;
      return 0;
    }
    std::memcpy(&v, in.data() + at, 4);
    at += 4;
    return v;
  }
  std::string str() {
    std::uint32_t n = u32();
    if (!ok || at + n > in.size()) {
      ok = false;
      return {};
    }
    std::string s = in.substr(at, n);
    at += n;
    return s;
  }
};

// The entry, if it is a file of ours that nobody else could have written.
std::optional<std::string> read_trusted(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::optional<std::string> out;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
      (st.st_mode & 022) == 0 && static_cast<std::size_t>(st.st_size) <= kMaxEntryBytes) {
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == bytes.size()) out = std::move(bytes);
  }
  close(fd);
  return out;
}

// Entries of other binaries are dead: keep the directory to the current one's.
void remove_other_binaries(const std::string& dir, const std::string& prefix) {
  DIR* d = opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.starts_with("seccomp-") && !name.starts_with(prefix)) unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}

}  // namespace

std::string encode_seccomp_entry(const std::string& key, const SeccompProgram& prog) {
  std::string out(kMagic);
  put_str(out, key);
  put_u32(out, prog.needs_listener ? 1 : 0);
  put_u32(out, static_cast<std::uint32_t>(prog.code.size()));
  out.append(reinterpret_cast<const char*>(prog.code.data()), prog.code.size() * sizeof(sock_filter));
  put_u32(out, static_cast<std::uint32_t>(prog.watched_nrs.size()));
  for (int nr : prog.watched_nrs) put_u32(out, static_cast<std::uint32_t>(nr));
  put_u32(out, static_cast<std::uint32_t>(prog.blocked_names.size()));
  for (const auto& s : prog.blocked_names) put_str(out, s);
  put_u32(out, static_cast<std::uint32_t>(prog.rules.size()));
  for (const auto& s : prog.rules) put_str(out, s);
  return out;
}

std::optional<SeccompProgram> decode_seccomp_entry(const std::string& key, const std::string& bytes) {
  if (bytes.compare(0, kMagic.size(), kMagic) != 0) return std::nullopt;
  Reader r{bytes, kMagic.size()};
  if (r.str() != key || !r.ok) return std::nullopt;
  SeccompProgram p;
  p.needs_listener = r.u32() != 0;
  std::uint32_t n = r.u32();
  if (!r.ok || n == 0 || n > BPF_MAXINSNS || r.at + n * sizeof(sock_filter) > bytes.size())
    return std::nullopt;
  p.code.resize(n);
  std::memcpy(p.code.data(), bytes.data() + r.at, n * sizeof(sock_filter));
  r.at += n * sizeof(sock_filter);
  n = r.u32();
  for (std::uint32_t i = 0; r.ok && i < n && i < 4096; ++i) p.watched_nrs.push_back(static_cast<int>(r.u32()));
  n = r.u32();
  for (std::uint32_t i = 0; r.ok && i < n && i < 4096; ++i) p.blocked_names.push_back(r.str());
  n = r.u32();
  for (std::uint32_t i = 0; r.ok && i < n && i < 4096; ++i) p.rules.push_back(r.str());
  if (!r.ok || r.at != bytes.size()) return std::nullopt;
  return p;
}

Result<SeccompProgram> cached_seccomp_filter(const SeccompOptions& options) {
  auto root = corral_state_root();
  auto binary = binary_identity();
  if (!root || !binary) return compile_seccomp_filter(options);
  const std::string key = *binary + "\n" + options_key(options);
  const std::string prefix = "seccomp-" + sha256_hex(*binary).substr(0, 16) + "-";
  const std::string dir = *root + "/cache";
  const std::string path = dir + "/" + prefix + sha256_hex(key).substr(0, 32);
  if (auto bytes = read_trusted(path))
    if (auto prog = decode_seccomp_entry(key, *bytes)) return std::move(*prog);

  auto prog = compile_seccomp_filter(options);
  if (!prog) return prog;
  // Best effort from here: the run goes on with the compiled filter either way.
  if (mkdir(root->c_str(), 0700) != 0 && errno != EEXIST) return prog;
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return prog;
  remove_other_binaries(dir, prefix);
  (void)write_file_atomic(path, encode_seccomp_entry(key, *prog), 0600);
  return prog;
}

}  // namespace corral
