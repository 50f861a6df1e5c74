// The kernel audit log, read as a listener (netlink, AUDIT_NLGRP_READLOG): where Landlock
// (ABI 7+) reports what it refused. Reading needs CAP_AUDIT_READ in the initial user
// namespace and an enabled audit subsystem; corral never turns it on itself.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "linux/fd.hpp"

namespace corral::audit {

// Record types corral reads (linux/audit.h; Debian 12's headers predate the Landlock ones).
inline constexpr int kSyscall = 1300;
inline constexpr int kLandlockAccess = 1423;
inline constexpr int kLandlockDomain = 1424;
inline constexpr int kTrustedApp = 1121;  // a user-space message: corral's end-of-run marker

struct Record {
  int type = 0;
  std::string serial;  // "1796069581.876:3": the records of one event share it
  std::string body;    // "domain=1e2a47eef blockers=fs.write_file path=\"/proc/2/comm\" ..."
};

// Splits one message from the log ("audit(1796069581.876:3): domain=...") into a Record.
std::optional<Record> parse_record(int type, std::string_view text);

// The value of `key` in a record body: a quoted string unquoted, a hex-encoded one (how the
// kernel logs strings with spaces or quotes) decoded when `may_be_hex`, anything else verbatim.
std::optional<std::string> field(std::string_view body, std::string_view key,
                                 bool may_be_hex = false);

struct Status {
  bool enabled = false;
  std::uint32_t lost = 0;  // records the kernel dropped since boot (backlog or rate limit)
};

// AUDIT_GET. Needs CAP_AUDIT_CONTROL; fails with the errno otherwise.
Result<Status> status();

// A subscription to every record the kernel logs from now on.
class Listener {
 public:
  // Errc::unsupported, saying why: no CAP_AUDIT_READ, or a kernel without audit.
  static Result<Listener> open();

  int fd() const { return sock_.get(); }
  // Appends the records waiting, at most a batch (non-blocking). False once the socket
  // overflowed (ENOBUFS) or carried a record too large to read: records were lost.
  bool read_available(std::vector<Record>& out);
  // Logs a user-space record (AUDIT_TRUSTED_APP, needs CAP_AUDIT_WRITE) whose text contains
  // `token`: the kernel delivers records in order, so once it comes back every record logged
  // before it has been read.
  Result<void> send_marker(const std::string& token);
  // Reads until the marker with `token` arrives or `timeout` passes; appends what it read.
  // False on timeout or overflow.
  bool read_until_marker(const std::string& token, std::chrono::milliseconds timeout,
                         std::vector<Record>& out);

 private:
  explicit Listener(UniqueFd sock) : sock_(std::move(sock)) {}
  UniqueFd sock_;
  bool overflowed_ = false;
};

}  // namespace corral::audit
