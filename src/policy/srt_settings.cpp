// Imports Anthropic sandbox-runtime (srt) settings JSON into a Policy. Keys corral can enforce
// are merged; every other key with an effect is reported back, never silently dropped.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "policy/file_io.hpp"
#include "policy/load.hpp"

namespace corral {
namespace {

using nlohmann::json;

// nlohmann::json keeps no source positions, so a key's line is found in the text: the first
// `"name":`. srt's schema has no key name under two parents, so this finds the right one.
int line_of_key(const std::string& text, const std::string& name) {
  const std::string quoted = "\"" + name + "\"";
  for (std::size_t pos = text.find(quoted); pos != std::string::npos;
       pos = text.find(quoted, pos + 1)) {
    std::size_t after = text.find_first_not_of(" \t\r\n", pos + quoted.size());
    if (after != std::string::npos && text[after] == ':')
      return 1 + static_cast<int>(
                     std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
  }
  return 0;
}

const char* type_phrase(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::string: return "a string";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "an integer";
    case json::value_t::number_float: return "a number";
    default: return "an unknown value";
  }
}

// Does this value leave srt's behaviour at its default, so ignoring it changes nothing?
bool is_inert(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_array() && v.empty()) ||
         (v.is_object() && v.empty());
}

class SrtImporter {
 public:
  SrtImporter(Policy& policy, const std::string& text, const std::string& origin,
              std::vector<std::string>& unsupported)
      : p_(policy), text_(text), origin_(origin), unsupported_(unsupported) {}

  Result<void> import(const json& root) {
    if (!root.is_object())
      return error("", 1, std::string("expected a JSON object, got ") + type_phrase(root));
    for (const auto& [name, value] : root.items()) {
      Result<void> r;
      if (name == "filesystem") {
        r = import_filesystem(value);
      } else if (name == "network") {
        r = import_network(value);
      } else if (!is_inert(value)) {
        report(name);  // ignoreViolations, enableWeakerNestedSandbox, ...
      }
      if (!r) return r;
    }
    return {};
  }

 private:
  Error error(const std::string& key, int line, std::string message) const {
    Error e = make_error(Errc::invalid_input, std::move(message));
    e.file = origin_;
    e.line = line;
    e.key = key;
    return e;
  }

  // `key` is dotted ("network.allowedDomains"); its last part is looked up for the line.
  Error error_at_key(const std::string& key, std::string message) const {
    std::string last = key.substr(key.rfind('.') + 1);
    last = last.substr(0, last.find('['));
    return error(key, line_of_key(text_, last), std::move(message));
  }

  Error wrong_type(const std::string& key, const json& v, const char* expected) const {
    return error_at_key(key, std::string("expected ") + expected + ", got " + type_phrase(v));
  }

  void report(const std::string& key) {
    unsupported_.push_back("srt: " + key + " is not supported by corral and was not applied");
  }

  Result<void> read_strings(const json& v, const std::string& key,
                            Result<void> (*check)(const std::string&),
                            std::vector<std::string>& out) const {
    if (!v.is_array()) return wrong_type(key, v, "an array of strings");
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::string item_key = key + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) return wrong_type(item_key, v[i], "a string");
      const auto& s = v[i].get_ref<const std::string&>();
      if (auto r = check(s); !r) return error_at_key(item_key, r.error().message);
      out.push_back(s);
    }
    return {};
  }

  Result<void> import_filesystem(const json& fs) {
    if (!fs.is_object()) return wrong_type("filesystem", fs, "an object");
    auto& out = p_.filesystem;
    for (const auto& [name, value] : fs.items()) {
      const std::string key = "filesystem." + name;
      std::vector<std::string>* list = name == "denyRead"     ? &out.read_deny
                                       : name == "allowRead"  ? &out.read_allow
                                       : name == "allowWrite" ? &out.write_allow
                                       : name == "denyWrite"  ? &out.write_deny
                                                              : nullptr;
      if (list) {
        if (auto r = read_strings(value, key, validate_path_pattern, *list); !r) return r;
      } else if (!is_inert(value)) {
        // allowGitConfig: true would lift corral's .git/config write protection; disabled: true
        // would drop all filesystem rules. Neither is honoured; corral stays stricter.
        report(key);
      }
    }
    return {};
  }

  Result<void> import_network(const json& net) {
    if (!net.is_object()) return wrong_type("network", net, "an object");
    auto& out = p_.network;
    std::vector<std::string> allow, deny;
    bool deny_all = false;
    for (const auto& [name, value] : net.items()) {
      const std::string key = "network." + name;
      if (name == "allowedDomains") {
        if (auto r = read_strings(value, key, validate_host_pattern, allow); !r) return r;
      } else if (name == "deniedDomains") {
        if (auto r = import_denied(value, key, deny, deny_all); !r) return r;
      } else if (name == "allowLocalBinding") {
        if (!value.is_boolean()) return wrong_type(key, value, "a boolean");
        out.allow_local_binding = value.get<bool>();
      } else if (name == "strictAllowlist") {
        // corral never asks a callback: hosts outside the allowlist are always denied.
        if (!value.is_boolean()) return wrong_type(key, value, "a boolean");
      } else if (!is_inert(value)) {
        report(key);  // httpProxyPort, socksProxyPort, allowUnixSockets, mitmProxy, ...
      }
    }
    out.allow.insert(out.allow.end(), allow.begin(), allow.end());
    out.deny.insert(out.deny.end(), deny.begin(), deny.end());
    // srt: with a network section, only allowedDomains are reachable; none listed means none.
    if (deny_all) {
      out.mode = NetMode::none;
      out.allow.clear();  // deny is checked first, so a bare "*" makes every allow entry moot
    } else if (!allow.empty()) {
      out.mode = NetMode::allowlist;
    } else if (out.mode == NetMode::all) {
      out.mode = NetMode::none;
    }
    return {};
  }

  // deniedDomains also accepts a bare "*" (deny everything), which corral maps to mode none.
  Result<void> import_denied(const json& v, const std::string& key, std::vector<std::string>& deny,
                             bool& deny_all) {
    if (!v.is_array()) return wrong_type(key, v, "an array of strings");
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::string item_key = key + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) return wrong_type(item_key, v[i], "a string");
      const auto& s = v[i].get_ref<const std::string&>();
      if (s == "*") {
        deny_all = true;
      } else if (s.rfind("*:", 0) == 0) {
        report(item_key + " (\"" + s + "\", deny every host on one port)");
      } else {
        if (auto r = validate_host_pattern(s); !r) return error_at_key(item_key, r.error().message);
        deny.push_back(s);
      }
    }
    return {};
  }

  Policy& p_;
  const std::string& text_;
  const std::string& origin_;
  std::vector<std::string>& unsupported_;
};

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " head.
std::string short_parse_message(const std::string& what) {
  std::size_t col = what.find("column ");
  std::size_t colon = col == std::string::npos ? col : what.find(": ", col);
  if (colon != std::string::npos) return what.substr(colon + 2);
  std::size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

}  // namespace

Result<void> merge_srt_settings_json(Policy& policy, const std::string& text,
                                     const std::string& origin,
                                     std::vector<std::string>& unsupported) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    std::size_t upto = std::min<std::size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    int line = 1 + static_cast<int>(
                       std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n'));
    Error err = make_error(Errc::invalid_input, "invalid JSON at byte " + std::to_string(e.byte) +
                                                    ": " + short_parse_message(e.what()));
    err.file = origin;
    err.line = line;
    return err;
  }
  // Import into copies so a bad file leaves the caller's policy and report untouched.
  Policy merged = policy;
  std::vector<std::string> notes;
  SrtImporter importer(merged, text, origin, notes);
  if (auto r = importer.import(root); !r) return r;
  policy = std::move(merged);
  unsupported.insert(unsupported.end(), notes.begin(), notes.end());
  return {};
}

Result<void> merge_srt_settings_file(Policy& policy, const std::string& path,
                                     std::vector<std::string>& unsupported) {
  auto text = policy_io::read_text_file(path, "srt settings file");
  if (!text) return text.error();
  return merge_srt_settings_json(policy, *text, path, unsupported);
}

}  // namespace corral
