// Helpers for the policy unit tests: a scratch directory tree and error assertions.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "common/result.hpp"

namespace corral::test {

// A fresh directory (realpath'd, so it compares equal to resolved paths), removed at the end.
class ScratchDir {
 public:
  ScratchDir() {
    char tmpl[] = "/tmp/corral-policy-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = std::filesystem::canonical(tmpl).string();
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::string& path() const { return path_; }
  std::string at(const std::string& rel) const { return path_ + "/" + rel; }

  // Creates `rel` as a directory (with parents) and returns its absolute path.
  std::string mkdir(const std::string& rel) const {
    std::filesystem::create_directories(at(rel));
    return at(rel);
  }
  // Creates `rel` as a file (with parent directories) and returns its absolute path.
  std::string write(const std::string& rel, const std::string& content = "") const {
    std::filesystem::create_directories(std::filesystem::path(at(rel)).parent_path());
    std::ofstream(at(rel)) << content;
    return at(rel);
  }

 private:
  std::string path_;
};

// The error of a failed Result, for EXPECT_* on its fields.
template <typename T>
Error error_of(const Result<T>& r) {
  if (r.ok()) {
    ADD_FAILURE() << "expected an error, got success";
    return Error{};
  }
  return r.error();
}

}  // namespace corral::test
