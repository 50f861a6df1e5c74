#include "enforce/seccomp_cache.hpp"

#include <gtest/gtest.h>

namespace corral {
namespace {

SeccompProgram sample() {
  SeccompProgram p;
  p.code = {{0x20, 0, 0, 4}, {0x15, 0, 3, 0xc000003e}, {0x06, 0, 0, 0x7fff0000}};
  p.needs_listener = true;
  p.watched_nrs = {2, 257};
  p.blocked_names = {"mount", "ptrace"};
  p.rules = {"mount: notify", "ptrace: notify"};
  return p;
}

TEST(SeccompCache, AnEntryRoundTrips) {
  const SeccompProgram p = sample();
  auto back = decode_seccomp_entry("key", encode_seccomp_entry("key", p));
  ASSERT_TRUE(back);
  ASSERT_EQ(back->code.size(), p.code.size());
  for (size_t i = 0; i < p.code.size(); ++i) {
    EXPECT_EQ(back->code[i].code, p.code[i].code);
    EXPECT_EQ(back->code[i].jt, p.code[i].jt);
    EXPECT_EQ(back->code[i].jf, p.code[i].jf);
    EXPECT_EQ(back->code[i].k, p.code[i].k);
  }
  EXPECT_TRUE(back->needs_listener);
  EXPECT_EQ(back->watched_nrs, p.watched_nrs);
  EXPECT_EQ(back->blocked_names, p.blocked_names);
  EXPECT_EQ(back->rules, p.rules);
}

TEST(SeccompCache, AnythingButAWholeEntryForTheKeyIsRefused) {
  const std::string bytes = encode_seccomp_entry("key", sample());
  EXPECT_FALSE(decode_seccomp_entry("other key", bytes));  // other options or binary
  for (size_t cut : {size_t{0}, size_t{10}, bytes.size() / 2, bytes.size() - 1})
    EXPECT_FALSE(decode_seccomp_entry("key", bytes.substr(0, cut))) << cut;
  EXPECT_FALSE(decode_seccomp_entry("key", bytes + "x"));
  std::string bad_magic = bytes;
  bad_magic[0] = 'x';
  EXPECT_FALSE(decode_seccomp_entry("key", bad_magic));
  SeccompProgram empty = sample();
  empty.code.clear();
  EXPECT_FALSE(decode_seccomp_entry("key", encode_seccomp_entry("key", empty)));
}

}  // namespace
}  // namespace corral
