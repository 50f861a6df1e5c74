// The exec protocol between a client (corral exec, the library) and a sandbox's supervisor,
// over the Unix stream socket supervisor.sock. Each message: u32 type, u32 payload length,
// payload; file descriptors (the caller's stdio, a pty master) ride on the first byte as
// SCM_RIGHTS. Payloads are little binary records (u32 numbers, length-prefixed strings), so
// the supervisor decodes a request without a parser.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace corral::sandbox {

enum class MsgType : std::uint32_t {
  // client -> supervisor
  exec = 1,      // ExecRequest; fds: stdin, stdout, stderr (foreground, no tty)
  signal = 2,    // SignalRequest: to the running foreground command
  kill_job = 3,  // a background job id: kill its whole tree
  // supervisor -> client
  started = 10,      // Started; fd: the pty master with -t
  exec_failed = 11,  // u32 errno (ENOENT: 127, else 126)
  exited = 12,       // u32 wait status
  error = 13,        // a message: the supervisor could not do it
  ok = 14,           // kill_job done
  violations = 15,   // JSON array: what the foreground command was refused (before exited)
};

struct ExecRequest {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=VALUE", computed by the client from the policy
  std::string cwd;
  bool background = false;       // -d: output to logs/, survives the client
  bool tty = false;              // -t: a pty, its master passed back
  bool keep_stdin = false;       // -i: the caller's stdin (else /dev/null)
  std::uint16_t rows = 0, cols = 0;  // -t: initial window size
  friend bool operator==(const ExecRequest&, const ExecRequest&) = default;
};

struct SignalRequest {
  std::int32_t signal = 0;
  bool whole_tree = false;  // kill the command's process group and every descendant
  friend bool operator==(const SignalRequest&, const SignalRequest&) = default;
};

struct Started {
  std::int32_t pid = 0;     // inside the sandbox
  std::string job_id;       // background jobs
  friend bool operator==(const Started&, const Started&) = default;
};

std::string encode(const ExecRequest& r);
std::string encode(const SignalRequest& r);
std::string encode(const Started& r);
std::string encode_u32(std::uint32_t v);
Result<ExecRequest> decode_exec(const std::string& payload);
Result<SignalRequest> decode_signal(const std::string& payload);
Result<Started> decode_started(const std::string& payload);
Result<std::uint32_t> decode_u32(const std::string& payload);

struct Message {
  MsgType type{};
  std::string payload;
  std::vector<int> fds;  // received: owned by the receiver (O_CLOEXEC)
};

// Writes the whole message. Returns 0 or errno (EPIPE when the peer is gone).
int send_message(int sock, MsgType type, const std::string& payload, const int* fds = nullptr,
                 size_t nfds = 0);
// Reads one whole message (blocking). Returns 0, ECONNRESET on EOF, EPROTO on garbage, or errno.
int recv_message(int sock, Message& out);

constexpr std::uint32_t kMaxPayload = 16u << 20;  // argv + env beyond this is refused

}  // namespace corral::sandbox
