// One message that carries (at most) one file descriptor over a Unix socket (SCM_RIGHTS).
// Allocation-free and lock-free: usable in a child made by raw clone3.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace corral {

// sendmsg of `len` bytes with `fd` attached (MSG_NOSIGNAL). Returns what sendmsg returns.
ssize_t send_with_fd(int sock, const void* buf, std::size_t len, int fd);

// recvmsg of up to `len` bytes; *fd_out gets an attached fd (O_CLOEXEC) or -1. `flags` adds to
// MSG_CMSG_CLOEXEC (e.g. MSG_DONTWAIT). Retries EINTR. Returns what recvmsg returns.
ssize_t recv_with_fd(int sock, void* buf, std::size_t len, int* fd_out, int flags = 0);

}  // namespace corral
