// Table tests for the scalar parsers: sizes, durations, pids, cpus, network modes.
#include <gtest/gtest.h>

#include "policy/load.hpp"

namespace corral {
namespace {

constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024, TiB = GiB * 1024;

TEST(ParseSize, AcceptsNumbersWithBinaryUnits) {
  const std::pair<const char*, std::uint64_t> cases[] = {
      {"1000", 1000},
      {"1", 1},
      {"100B", 100},
      {"100b", 100},
      {"100k", 100 * KiB},
      {"100K", 100 * KiB},
      {"1KB", KiB},
      {"1KiB", KiB},
      {"1kib", KiB},
      {"512M", 512 * MiB},
      {"512MB", 512 * MiB},
      {"512MiB", 512 * MiB},
      {"1G", GiB},
      {"2GiB", 2 * GiB},
      {"2gb", 2 * GiB},
      {"1T", TiB},
      {"3TiB", 3 * TiB},
      {"1.5G", GiB + GiB / 2},
      {"0.5KiB", 512},
      {".5K", 512},
      {"1.25MiB", MiB + MiB / 4},
  };
  for (auto [text, want] : cases) {
    auto got = parse_size(text);
    ASSERT_TRUE(got.ok()) << text << ": " << got.error().message;
    EXPECT_EQ(*got, want) << text;
  }
}

TEST(ParseSize, RejectsMalformedSizes) {
  const char* cases[] = {"",         "G",     "-1",    "1.5", "1.5B",  "0",
                         "0K",       "1 GiB", " 1G",   "1G ", "1GiBs", "1P",
                         "1e9",      "abc",   "1..5G", "5.G", "1,5G",  "99999999999999999999",
                         "20000000T"};
  for (const char* text : cases) {
    auto got = parse_size(text);
    EXPECT_FALSE(got.ok()) << "accepted \"" << text << "\"";
    if (!got.ok()) {
      EXPECT_EQ(got.error().code, Errc::invalid_input);
      EXPECT_NE(got.error().message.find(std::string("\"") + text + "\""), std::string::npos)
          << "message should quote the input: " << got.error().message;
    }
  }
}

TEST(ParseSize, MessageListsTheUnits) {
  auto got = parse_size("12XB");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("KiB"), std::string::npos) << got.error().message;
  EXPECT_NE(got.error().message.find("1024"), std::string::npos) << got.error().message;
}

TEST(ParseDuration, AcceptsUnitsFractionsAndCompounds) {
  using std::chrono::milliseconds;
  const std::pair<const char*, std::int64_t> cases[] = {
      {"250ms", 250},    {"30s", 30000},     {"1.5s", 1500},    {"10m", 600000},
      {"1h", 3600000},   {"1h30m", 5400000}, {"2m30s", 150000}, {"0.5ms", 0 /*invalid*/},
      {"1.0001s", 1000}, {"0.25h", 900000},  {"1s500ms", 1500},
  };
  for (auto [text, want] : cases) {
    auto got = parse_duration(text);
    if (want == 0) {
      EXPECT_FALSE(got.ok()) << text;
      continue;
    }
    ASSERT_TRUE(got.ok()) << text << ": " << got.error().message;
    EXPECT_EQ(got->count(), want) << text;
  }
}

TEST(ParseDuration, RejectsMalformedDurations) {
  const char* cases[] = {"",   "10",  "s",   "10 m", "10M", "10S",  "1d",   "-1s",
                         "0s", "0ms", "1h-", "ms10", "1.s", "10mm", "1e3s", "10m 5s"};
  for (const char* text : cases) {
    auto got = parse_duration(text);
    EXPECT_FALSE(got.ok()) << "accepted \"" << text << "\"";
    if (!got.ok()) {
      EXPECT_EQ(got.error().code, Errc::invalid_input);
    }
  }
}

TEST(ParseDuration, UnitlessNumberAsksForAUnit) {
  auto got = parse_duration("10");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("unit is required"), std::string::npos) << got.error().message;
}

TEST(ParsePids, AcceptsPositiveIntegersUpToTheKernelLimit) {
  EXPECT_EQ(*parse_pids("1"), 1u);
  EXPECT_EQ(*parse_pids("512"), 512u);
  EXPECT_EQ(*parse_pids("4194304"), 4194304u);
  for (const char* bad : {"", "0", "-1", "1.5", "4194305", "ten", "12x", "99999999999999999999"})
    EXPECT_FALSE(parse_pids(bad).ok()) << bad;
  EXPECT_FALSE(check_pids(0).ok());
  EXPECT_FALSE(check_pids(-5).ok());
  EXPECT_EQ(*check_pids(64), 64u);
}

TEST(ParseCpus, AcceptsPositiveNumbers) {
  EXPECT_DOUBLE_EQ(*parse_cpus("1.5"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_cpus("2"), 2.0);
  EXPECT_DOUBLE_EQ(*parse_cpus("0.01"), 0.01);
  EXPECT_DOUBLE_EQ(*parse_cpus(".5"), 0.5);
  for (const char* bad : {"", "0", "0.0", "0.001", "-1", "abc", "1.5x", "nan", "inf", "1e2"})
    EXPECT_FALSE(parse_cpus(bad).ok()) << bad;
  EXPECT_FALSE(check_cpus(0.0).ok());
  EXPECT_FALSE(check_cpus(-2.0).ok());
  EXPECT_FALSE(check_cpus(std::numeric_limits<double>::infinity()).ok());
  EXPECT_FALSE(check_cpus(std::numeric_limits<double>::quiet_NaN()).ok());
}

TEST(ParseNetMode, KnowsTheThreeModes) {
  EXPECT_EQ(*parse_net_mode("none"), NetMode::none);
  EXPECT_EQ(*parse_net_mode("allowlist"), NetMode::allowlist);
  EXPECT_EQ(*parse_net_mode("all"), NetMode::all);
  EXPECT_FALSE(parse_net_mode("None").ok());
  EXPECT_FALSE(parse_net_mode("").ok());
  EXPECT_STREQ(net_mode_name(NetMode::allowlist), "allowlist");
}

}  // namespace
}  // namespace corral
