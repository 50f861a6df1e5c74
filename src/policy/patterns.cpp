// Syntax checks for the patterns a policy holds: path globs, host patterns, env var names.
// They look only at the text; resolve.cpp gives path patterns their meaning on the host.
#include <cctype>
#include <string_view>

#include "policy/load.hpp"

namespace corral {
namespace {

Error invalid(std::string message) { return make_error(Errc::invalid_input, std::move(message)); }

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// "host pattern \"x\" <problem>"
Error bad_host(std::string_view pattern, const std::string& problem) {
  return invalid("host pattern " + quoted(pattern) + " " + problem);
}

// "path \"x\" <problem>"
Error bad_path(std::string_view pattern, const std::string& problem) {
  return invalid("path " + quoted(pattern) + " " + problem);
}

bool is_host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// A DNS name or IPv4 address: dot-separated labels of letters, digits, '-' and '_'.
Result<void> validate_host_name(std::string_view host, std::string_view pattern) {
  if (host.empty()) return bad_host(pattern, "has no host name");
  if (host.size() > 253) return bad_host(pattern, "is too long");
  std::size_t start = 0;
  while (true) {
    std::size_t dot = host.find('.', start);
    std::string_view label = host.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (label.empty())
      return bad_host(pattern, "has an empty label (\"..\" or a leading or trailing dot)");
    if (label.size() > 63) return bad_host(pattern, "has a label longer than 63 characters");
    for (char c : label) {
      if (c == '*')
        return bad_host(pattern,
                        "has '*' in the wrong place; it is only allowed as a leading \"*.\" label, "
                        "e.g. \"*.example.com\"");
      if (!is_host_char(c))
        return bad_host(pattern,
                        "contains " + quoted(std::string(1, c)) +
                            "; use a host name such as \"pypi.org\" or \"*.github.com:443\"");
    }
    if (label.front() == '-' || label.back() == '-')
      return bad_host(pattern, "has a label starting or ending with '-'");
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return {};
}

Result<void> validate_port(std::string_view port, std::string_view pattern) {
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (digits) {
    int n = std::stoi(std::string(port));
    if (n >= 1 && n <= 65535) return {};
  }
  return bad_host(pattern, "has an invalid port " + quoted(port) + "; use a port from 1 to 65535");
}

}  // namespace

Result<void> validate_host_pattern(const std::string& pattern) {
  if (pattern.empty()) return invalid("empty host pattern; use a host such as \"pypi.org\"");
  for (char c : pattern) {
    if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c)))
      return bad_host(pattern, "contains whitespace or a control character");
  }
  if (pattern.find("://") != std::string::npos)
    return bad_host(pattern, "is a URL; give only the host, e.g. \"pypi.org\" or \"pypi.org:443\"");
  if (pattern.find('/') != std::string::npos)
    return bad_host(pattern, "contains a path; give only the host and an optional :port");

  std::string_view rest = pattern;
  std::string_view port;
  if (rest.front() == '[') {  // [IPv6] or [IPv6]:port
    std::size_t close = rest.find(']');
    if (close == std::string_view::npos || close == 1)
      return bad_host(pattern, "has an unterminated \"[\" IPv6 address");
    for (char c : rest.substr(1, close - 1)) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.')
        return bad_host(pattern, "is not a valid bracketed IPv6 address");
    }
    std::string_view after = rest.substr(close + 1);
    if (after.empty()) return {};
    if (after.front() != ':') return bad_host(pattern, "has text after the IPv6 address");
    return validate_port(after.substr(1), pattern);
  }
  std::size_t colon = rest.find(':');
  if (colon != std::string_view::npos) {
    if (rest.find(':', colon + 1) != std::string_view::npos)
      return bad_host(
          pattern, "has more than one ':'; write IPv6 addresses in brackets, e.g. \"[::1]:8080\"");
    port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    if (auto r = validate_port(port, pattern); !r) return r;
  }
  if (rest.size() >= 2 && rest.substr(0, 2) == "*.") rest.remove_prefix(2);
  return validate_host_name(rest, pattern);
}

Result<void> validate_path_pattern(const std::string& pattern) {
  if (pattern.empty())
    return invalid("empty path; use an absolute path, ~/path or a path relative to the workspace");
  if (pattern.find('\0') != std::string::npos) return invalid("path contains a NUL byte");
  if (pattern[0] == '~' && pattern.size() > 1 && pattern[1] != '/')
    return bad_path(
        pattern,
        "is not supported: only \"~\" and \"~/...\" are expanded (to $HOME), \"~user\" is not");

  // Bracket expressions must close; a backslash escapes the next character (glob(3) rules).
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      if (i + 1 == pattern.size()) return bad_path(pattern, "ends with a lone backslash");
      ++i;
    } else if (c == '[') {
      std::size_t j = i + 1;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) ++j;
      if (j < pattern.size() && pattern[j] == ']') ++j;  // "[]...]": ']' first is literal
      while (j < pattern.size() && pattern[j] != ']' && pattern[j] != '/') ++j;
      if (j >= pattern.size() || pattern[j] != ']')
        return bad_path(pattern,
                        "has an unbalanced '['; escape it as \"\\[\" to match a literal bracket");
      i = j;
    }
  }
  // "**" means "any number of directories" only as a whole component.
  std::size_t start = 0;
  while (start <= pattern.size()) {
    std::size_t slash = pattern.find('/', start);
    std::string_view comp = std::string_view(pattern).substr(
        start, slash == std::string::npos ? std::string::npos : slash - start);
    if (comp != "**" && comp.find("**") != std::string_view::npos)
      return bad_path(pattern,
                      "has \"**\" inside a component; \"**\" must be a whole path component, as in "
                      "\"src/**/.env\"");
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return {};
}

bool is_glob_pattern(const std::string& pattern) {
  return pattern.find_first_of("*?[\\") != std::string::npos;
}

Result<void> validate_env_name(const std::string& name) {
  std::string_view base = name;
  if (!base.empty() && base.back() == '*') base.remove_suffix(1);
  bool ok = !base.empty() && (std::isalpha(static_cast<unsigned char>(base[0])) || base[0] == '_');
  for (char c : base) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
  if (!ok)
    return invalid(
        "invalid environment variable name " + quoted(name) +
        ": use letters, digits and '_' (not starting with a digit), or a prefix such as \"LC_*\"");
  return {};
}

}  // namespace corral
