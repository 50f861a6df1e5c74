// Real git repositories in temporary directories for the git_* unit tests, driven by /usr/bin/git
// so that what corral's libgit2 code does is checked by git itself.
#pragma once

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace corral::git::test {

// Runs `command` with /bin/sh; returns its stdout; records the exit status in `status`.
inline std::string sh(const std::string& command, int* status = nullptr) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int rc = ::pclose(p);
  if (status) *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  return out;
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "corral-git-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

  void write(const std::string& rel, const std::string& content) const {
    auto p = std::filesystem::path(path_) / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << content;
  }
  std::string read(const std::string& rel) const {
    std::ifstream in(std::filesystem::path(path_) / rel, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  bool exists(const std::string& rel) const {
    struct stat st;
    return ::lstat((path_ + "/" + rel).c_str(), &st) == 0;
  }

 private:
  std::string path_;
};

// A repository on branch main with one commit ("base": README and the given files).
class TempRepo : public TempDir {
 public:
  TempRepo() {
    git("init -q -b main");
    git("config user.name 'Test User'");
    git("config user.email test@example.com");
    git("config commit.gpgsign false");
    write("README", "hello\n");
    git("add -A");
    git("commit -q -m base");
  }
  // `git -C REPO ARGS`; throws when git fails unless `allow_fail`.
  std::string git(const std::string& args, bool allow_fail = false) const {
    int status = 0;
    std::string out = sh("git -C " + quote(path()) + " " + args + " 2>&1", &status);
    if (status != 0 && !allow_fail) throw std::runtime_error("git " + args + " failed: " + out);
    return out;
  }
  std::string rev(const std::string& spec) const { return trim(git("rev-parse " + spec)); }
  void commit_file(const std::string& rel, const std::string& content, const std::string& msg) {
    write(rel, content);
    git("add -A");
    git("commit -q -m " + quote(msg));
  }
  std::string status() const { return git("status --porcelain=v1 --untracked-files=all"); }
};

}  // namespace corral::git::test
