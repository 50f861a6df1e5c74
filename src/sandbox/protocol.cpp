// Encoding of exec protocol messages, and sending them with file descriptors attached.
#include "sandbox/protocol.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace corral::sandbox {
namespace {

class Writer {
 public:
  void u32(std::uint32_t v) { out_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void str(const std::string& s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_ += s;
  }
  void strs(const std::vector<std::string>& v) {
    u32(static_cast<std::uint32_t>(v.size()));
    for (const auto& s : v) str(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  bool u32(std::uint32_t& v) {
    if (in_.size() - pos_ < sizeof v) return false;
    std::memcpy(&v, in_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  bool str(std::string& s) {
    std::uint32_t n;
    if (!u32(n) || in_.size() - pos_ < n) return false;
    s.assign(in_, pos_, n);
    pos_ += n;
    return true;
  }
  bool strs(std::vector<std::string>& v) {
    std::uint32_t n;
    if (!u32(n) || n > in_.size()) return false;
    v.resize(n);
    for (auto& s : v)
      if (!str(s)) return false;
    return true;
  }
  bool done() const { return pos_ == in_.size(); }

 private:
  const std::string& in_;
  size_t pos_ = 0;
};

Error malformed(const char* what) {
  return make_error(Errc::internal, std::string("malformed ") + what + " message");
}

constexpr std::uint32_t kBackground = 1, kTty = 2, kKeepStdin = 4;

}  // namespace

std::string encode(const ExecRequest& r) {
  Writer w;
  w.strs(r.argv);
  w.strs(r.env);
  w.str(r.cwd);
  w.u32((r.background ? kBackground : 0) | (r.tty ? kTty : 0) | (r.keep_stdin ? kKeepStdin : 0));
  w.u32(static_cast<std::uint32_t>(r.rows) << 16 | r.cols);
  return w.take();
}

Result<ExecRequest> decode_exec(const std::string& payload) {
  Reader rd(payload);
  ExecRequest r;
  std::uint32_t flags, size;
  if (!rd.strs(r.argv) || !rd.strs(r.env) || !rd.str(r.cwd) || !rd.u32(flags) || !rd.u32(size) ||
      !rd.done() || r.argv.empty())
    return malformed("exec");
  r.background = flags & kBackground;
  r.tty = flags & kTty;
  r.keep_stdin = flags & kKeepStdin;
  r.rows = static_cast<std::uint16_t>(size >> 16);
  r.cols = static_cast<std::uint16_t>(size & 0xffff);
  return r;
}

std::string encode(const SignalRequest& r) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(r.signal));
  w.u32(r.whole_tree ? 1 : 0);
  return w.take();
}

Result<SignalRequest> decode_signal(const std::string& payload) {
  Reader rd(payload);
  std::uint32_t sig, tree;
  if (!rd.u32(sig) || !rd.u32(tree) || !rd.done()) return malformed("signal");
  return SignalRequest{static_cast<std::int32_t>(sig), tree != 0};
}

std::string encode(const Started& r) {
  Writer w;
  w.u32(static_cast<std::uint32_t>(r.pid));
  w.str(r.job_id);
  return w.take();
}

Result<Started> decode_started(const std::string& payload) {
  Reader rd(payload);
  std::uint32_t pid;
  Started s;
  if (!rd.u32(pid) || !rd.str(s.job_id) || !rd.done()) return malformed("started");
  s.pid = static_cast<std::int32_t>(pid);
  return s;
}

std::string encode_u32(std::uint32_t v) {
  Writer w;
  w.u32(v);
  return w.take();
}

Result<std::uint32_t> decode_u32(const std::string& payload) {
  Reader rd(payload);
  std::uint32_t v;
  if (!rd.u32(v) || !rd.done()) return malformed("status");
  return v;
}

int send_message(int sock, MsgType type, const std::string& payload, const int* fds, size_t nfds) {
  std::uint32_t header[2] = {static_cast<std::uint32_t>(type),
                             static_cast<std::uint32_t>(payload.size())};
  iovec iov[2] = {{header, sizeof header},
                  {const_cast<char*>(payload.data()), payload.size()}};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
  msghdr mh{};
  mh.msg_iov = iov;
  mh.msg_iovlen = payload.empty() ? 1 : 2;
  if (nfds > 0 && nfds <= 4) {
    std::memset(control, 0, sizeof control);
    mh.msg_control = control;
    mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
    cmsghdr* cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
    std::memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
  }
  size_t total = sizeof header + payload.size(), sent = 0;
  while (sent < total) {
    ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    sent += static_cast<size_t>(n);
    mh.msg_control = nullptr;  // the fds went with the first bytes
    mh.msg_controllen = 0;
    // Advance the iovecs past what was sent.
    size_t skip = static_cast<size_t>(n);
    while (mh.msg_iovlen > 0 && skip >= mh.msg_iov[0].iov_len) {
      skip -= mh.msg_iov[0].iov_len;
      ++mh.msg_iov;
      --mh.msg_iovlen;
    }
    if (mh.msg_iovlen > 0) {
      mh.msg_iov[0].iov_base = static_cast<char*>(mh.msg_iov[0].iov_base) + skip;
      mh.msg_iov[0].iov_len -= skip;
    }
  }
  return 0;
}

int recv_message(int sock, Message& out) {
  out.fds.clear();
  std::uint32_t header[2];
  size_t got = 0;
  while (got < sizeof header) {
    iovec iov{reinterpret_cast<char*>(header) + got, sizeof header - got};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 4)];
    msghdr mh{};
    mh.msg_iov = &iov;
    mh.msg_iovlen = 1;
    mh.msg_control = control;
    mh.msg_controllen = sizeof control;
    ssize_t n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (cmsghdr* cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
      if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
      size_t count = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      for (size_t i = 0; i < count; ++i) {
        int fd;
        std::memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
        out.fds.push_back(fd);
      }
    }
    if (n == 0) return ECONNRESET;
    got += static_cast<size_t>(n);
  }
  if (header[1] > kMaxPayload) return EPROTO;
  out.type = static_cast<MsgType>(header[0]);
  out.payload.resize(header[1]);
  got = 0;
  while (got < out.payload.size()) {
    ssize_t n = read(sock, out.payload.data() + got, out.payload.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return ECONNRESET;
    got += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace corral::sandbox
