// overlayfs mount via fsopen/fsconfig/fsmount.
#include "linux/overlay.hpp"

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>

namespace corral::mnt {

int overlay_detached(const char* lower, const char* upper, const char* work) {
  int fs = fsopen("overlay", FSOPEN_CLOEXEC);
  if (fs < 0) return -errno;
  // "lowerdir+" (Linux 6.7) takes one path verbatim: no escaping of ':' or ',' in it.
  int err = 0;
  if (fsconfig(fs, FSCONFIG_SET_STRING, "lowerdir+", lower, 0) != 0 ||
      fsconfig(fs, FSCONFIG_SET_STRING, "upperdir", upper, 0) != 0 ||
      fsconfig(fs, FSCONFIG_SET_STRING, "workdir", work, 0) != 0 ||
      fsconfig(fs, FSCONFIG_SET_FLAG, "userxattr", nullptr, 0) != 0 ||
      fsconfig(fs, FSCONFIG_CMD_CREATE, nullptr, nullptr, 0) != 0)
    err = errno;
  if (err != 0) {
    close(fs);
    return -err;
  }
  int mnt = fsmount(fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
  err = errno;
  close(fs);
  return mnt >= 0 ? mnt : -err;
}

}  // namespace corral::mnt
