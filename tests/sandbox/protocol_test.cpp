// The exec protocol: encodings round-trip, garbage is refused, fds travel with a message.
#include "sandbox/protocol.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <thread>

namespace corral::sandbox {
namespace {

TEST(ExecProtocol, RequestRoundTrips) {
  ExecRequest r;
  r.argv = {"sh", "-c", "echo 'a b'\n", ""};
  r.env = {"PATH=/bin", "EMPTY="};
  r.cwd = "/work/x y";
  r.background = true;
  r.keep_stdin = true;
  r.rows = 50;
  r.cols = 132;
  auto back = decode_exec(encode(r));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r);
  r.background = false;
  r.tty = true;
  EXPECT_EQ(*decode_exec(encode(r)), r);
}

TEST(ExecProtocol, TruncatedOrTrailingBytesAreRefused) {
  ExecRequest r;
  r.argv = {"true"};
  std::string wire = encode(r);
  for (size_t n = 0; n < wire.size(); ++n) EXPECT_FALSE(decode_exec(wire.substr(0, n)).ok()) << n;
  EXPECT_FALSE(decode_exec(wire + "x").ok());
  ExecRequest empty;
  EXPECT_FALSE(decode_exec(encode(empty)).ok());  // no argv
  std::string huge_count(4, '\xff');
  EXPECT_FALSE(decode_exec(huge_count).ok());
}

TEST(ExecProtocol, SmallMessagesRoundTrip) {
  SignalRequest s{9, true};
  EXPECT_EQ(*decode_signal(encode(s)), s);
  Started st{42, "0badcafe"};
  EXPECT_EQ(*decode_started(encode(st)), st);
  EXPECT_EQ(*decode_u32(encode_u32(0x12345678)), 0x12345678u);
  EXPECT_FALSE(decode_u32("abc").ok());
}

TEST(ExecProtocol, MessagesCarryFdsAndLargePayloads) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::string big(3 << 20, 'x');  // more than a socket buffer: sent in pieces
  std::thread sender([&] { EXPECT_EQ(send_message(sv[0], MsgType::exec, big, p, 2), 0); });
  Message m;
  ASSERT_EQ(recv_message(sv[1], m), 0);
  sender.join();
  EXPECT_EQ(m.type, MsgType::exec);
  EXPECT_EQ(m.payload, big);
  ASSERT_EQ(m.fds.size(), 2u);
  // The received fds are the same pipe: write on one end, read on the other.
  ASSERT_EQ(write(m.fds[1], "hi", 2), 2);
  char buf[2];
  ASSERT_EQ(read(p[0], buf, 2), 2);
  EXPECT_EQ(std::string(buf, 2), "hi");
  EXPECT_TRUE(fcntl(m.fds[0], F_GETFD) & FD_CLOEXEC);
  for (int fd : m.fds) close(fd);
  close(sv[0]);
  EXPECT_EQ(recv_message(sv[1], m), ECONNRESET);
  close(sv[1]);
  close(p[0]);
  close(p[1]);
}

}  // namespace
}  // namespace corral::sandbox
