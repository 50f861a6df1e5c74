// A hand-built layer for the workspace unit tests: a lower tree and an upper written the way
// overlayfs writes it (whiteouts are char 0:0 nodes, opaque dirs carry user.overlay.opaque=y;
// both can be made by an ordinary user).
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "workspace/layer.hpp"
#include "workspace/tree.hpp"

namespace corral::test {

inline void must(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error(what);
}

class LayerFixture {
 public:
  LayerFixture() {
    char tmpl[] = "/tmp/corral-ws-test.XXXXXX";
    must(mkdtemp(tmpl) != nullptr, "mkdtemp");
    root_ = tmpl;
    lower = root_ + "/lower";
    must(mkdir(lower.c_str(), 0755) == 0, "mkdir lower");
  }
  ~LayerFixture() { (void)workspace::remove_tree(root_); }

  // Creates the layer (call after the lower is populated, as a run would).
  workspace::Layer make_layer(const std::string& name = "layer") {
    auto l = workspace::create_layer(root_ + "/" + name, lower);
    must(l.ok(), "create_layer");
    return *l;
  }
  std::string path(const std::string& rel) const { return root_ + "/" + rel; }

  static void write(const std::string& p, const std::string& content, mode_t mode = 0644) {
    std::ofstream(p, std::ios::trunc) << content;
    must(chmod(p.c_str(), mode) == 0, "chmod " + p);
  }
  static std::string read(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void dir(const std::string& p, mode_t mode = 0755) { must(mkdir(p.c_str(), mode) == 0, "mkdir " + p); }
  static void whiteout(const std::string& p) { must(mknod(p.c_str(), S_IFCHR, 0) == 0, "mknod " + p); }
  static void opaque(const std::string& p) {
    must(setxattr(p.c_str(), "user.overlay.opaque", "y", 1, 0) == 0, "setxattr " + p);
  }
  static void origin(const std::string& p) {
    must(lsetxattr(p.c_str(), "user.overlay.origin", "", 0, 0) == 0, "setxattr origin " + p);
  }
  static void link(const std::string& target, const std::string& p) {
    must(symlink(target.c_str(), p.c_str()) == 0, "symlink " + p);
  }
  static bool exists(const std::string& p) {
    struct stat st;
    return lstat(p.c_str(), &st) == 0;
  }
  // Copies a lower file into the upper as overlayfs' copy-up does (same data, mode, mtime).
  static void copy_up(const std::string& from, const std::string& to) {
    must(workspace::copy_tree(from, to).ok(), "copy_up " + from);
    origin(to);
  }

  std::string lower;

 private:
  std::string root_;
};

}  // namespace corral::test
