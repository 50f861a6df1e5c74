// Parsers for the scalar values of a policy (sizes, durations, pid and cpu limits), shared by
// the TOML loader and the CLI flags. Errors carry only a message; callers add file/line/key.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "policy/load.hpp"

namespace corral {
namespace {

// The kernel's PID_MAX_LIMIT: no pids.max above it can ever be reached.
constexpr std::uint64_t kMaxPids = 4194304;
// cgroup cpu.max cannot express less than 1 ms of quota per 100 ms period.
constexpr double kMinCpus = 0.01;

Error invalid(std::string message) { return make_error(Errc::invalid_input, std::move(message)); }

// A decimal number "123" or "1.25" at the front of `text`: whole part, fraction digits and how
// many of them. Returns the number of characters consumed (0 when there is no number).
struct Decimal {
  std::uint64_t whole = 0;
  std::uint64_t frac = 0;        // the fraction digits as an integer ("25" for .25)
  std::uint64_t frac_scale = 1;  // 10^(number of fraction digits)
  bool has_fraction = false;
  bool overflow = false;
};

std::size_t read_decimal(std::string_view text, Decimal& d) {
  std::size_t i = 0;
  std::size_t whole_digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    unsigned digit = static_cast<unsigned>(text[i] - '0');
    if (d.whole > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
      d.overflow = true;
    } else {
      d.whole = d.whole * 10 + digit;
    }
    ++i;
    ++whole_digits;
  }
  std::size_t frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    std::size_t j = i + 1;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) {
      if (frac_digits < 9) {  // nanosecond / nano-byte precision is plenty
        d.frac = d.frac * 10 + static_cast<unsigned>(text[j] - '0');
        d.frac_scale *= 10;
      }
      ++frac_digits;
      ++j;
    }
    if (frac_digits == 0) return whole_digits == 0 ? 0 : i;  // "5." : leave the dot unread
    d.has_fraction = true;
    i = j;
  }
  if (whole_digits == 0 && frac_digits == 0) return 0;
  return i;
}

// value * unit, rounded down; false on overflow.
bool scale(const Decimal& d, std::uint64_t unit, std::uint64_t& out) {
  if (d.overflow) return false;
  unsigned __int128 total = static_cast<unsigned __int128>(d.whole) * unit;
  total += static_cast<unsigned __int128>(d.frac) * unit / d.frac_scale;
  if (total > std::numeric_limits<std::uint64_t>::max()) return false;
  out = static_cast<std::uint64_t>(total);
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Bytes per unit, 0 for an unknown unit. Units are case-insensitive and all binary: "1G",
// "1GB" and "1GiB" are each 2^30 bytes, as in docker and cgroup files, so a limit never
// means two things.
std::uint64_t size_multiplier(const std::string& unit) {
  if (unit.empty() || unit == "b") return 1;
  constexpr std::string_view kPrefixes = "kmgt";
  std::size_t power = kPrefixes.find(unit[0]);
  std::string_view suffix = std::string_view(unit).substr(1);
  if (power == std::string_view::npos || (suffix != "" && suffix != "b" && suffix != "ib"))
    return 0;
  return 1ULL << (10 * (power + 1));
}

// Case-sensitive: "M" would be ambiguous next to sizes.
constexpr std::pair<std::string_view, std::uint64_t> kDurationUnits[] = {
    {"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 3600 * 1000}};

constexpr const char* kSizeHelp =
    "use a number with an optional unit: B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB (every unit is "
    "a power of 1024), e.g. \"512MiB\" or \"2G\"";

}  // namespace

Result<std::uint64_t> parse_size(const std::string& text) {
  Decimal d;
  std::size_t n = read_decimal(text, d);
  if (n == 0) return invalid("invalid size \"" + text + "\": " + kSizeHelp);
  const std::string unit = lower(std::string_view(text).substr(n));
  const std::uint64_t mult = size_multiplier(unit);
  if (mult == 0)
    return invalid("invalid size \"" + text + "\": unknown unit \"" + text.substr(n) + "\"; " +
                   kSizeHelp);
  if (mult == 1 && d.has_fraction)
    return invalid("invalid size \"" + text + "\": a byte count must be a whole number");
  std::uint64_t bytes = 0;
  if (!scale(d, mult, bytes)) return invalid("invalid size \"" + text + "\": too large");
  if (bytes == 0) return invalid("invalid size \"" + text + "\": must be greater than zero");
  return bytes;
}

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  constexpr const char* help =
      "use a number with a unit (ms, s, m, h), e.g. \"250ms\", \"1.5s\", \"10m\" or \"1h30m\"";
  if (text.empty()) return invalid(std::string("empty duration: ") + help);
  std::string_view rest = text;
  std::uint64_t total_ms = 0;
  while (!rest.empty()) {
    Decimal d;
    std::size_t n = read_decimal(rest, d);
    if (n == 0) return invalid("invalid duration \"" + text + "\": " + help);
    rest.remove_prefix(n);
    std::size_t u = 0;
    while (u < rest.size() && std::isalpha(static_cast<unsigned char>(rest[u]))) ++u;
    const std::string_view unit = rest.substr(0, u);
    rest.remove_prefix(u);
    if (unit.empty())
      return invalid("invalid duration \"" + text + "\": a unit is required; " + help);
    std::uint64_t unit_ms = 0;
    for (const auto& [name, ms] : kDurationUnits) {
      if (unit == name) unit_ms = ms;
    }
    if (unit_ms == 0)
      return invalid("invalid duration \"" + text + "\": unknown unit \"" + std::string(unit) +
                     "\"; " + help);
    std::uint64_t ms = 0;
    if (!scale(d, unit_ms, ms) || ms > std::numeric_limits<std::int64_t>::max() - total_ms)
      return invalid("invalid duration \"" + text + "\": too large");
    total_ms += ms;
  }
  if (total_ms == 0) return invalid("invalid duration \"" + text + "\": must be at least 1ms");
  return std::chrono::milliseconds(static_cast<std::int64_t>(total_ms));
}

Result<std::uint64_t> check_pids(std::int64_t n) {
  if (n <= 0) return invalid("invalid pids limit " + std::to_string(n) + ": must be at least 1");
  if (static_cast<std::uint64_t>(n) > kMaxPids)
    return invalid("invalid pids limit " + std::to_string(n) + ": the kernel allows at most " +
                   std::to_string(kMaxPids));
  return static_cast<std::uint64_t>(n);
}

Result<std::uint64_t> parse_pids(const std::string& text) {
  Decimal d;
  std::size_t n = read_decimal(text, d);
  if (n == 0 || n != text.size() || d.has_fraction)
    return invalid("invalid pids limit \"" + text + "\": use a whole number such as 512");
  if (d.overflow || d.whole > kMaxPids)
    return invalid("invalid pids limit \"" + text + "\": the kernel allows at most " +
                   std::to_string(kMaxPids));
  return check_pids(static_cast<std::int64_t>(d.whole));
}

Result<double> check_cpus(double n) {
  if (!std::isfinite(n) || n < kMinCpus) {
    std::string shown = std::isfinite(n) ? fmt::format("{}", n) : std::string("(not finite)");
    return invalid("invalid cpus limit " + shown +
                   ": use a number of CPUs of at least 0.01, e.g. 1.5");
  }
  return n;
}

Result<double> parse_cpus(const std::string& text) {
  Decimal d;
  std::size_t n = read_decimal(text, d);
  if (n == 0 || n != text.size())
    return invalid("invalid cpus limit \"" + text + "\": use a number of CPUs such as 2 or 0.5");
  // The syntax is plain decimal (checked above), so strtod cannot misread it.
  return check_cpus(std::strtod(text.c_str(), nullptr));
}

}  // namespace corral
