// overlayfs through the new mount API, for copy-on-write workspaces. Child-side: no allocation.
#pragma once

namespace corral::mnt {

// Creates a detached overlay mount (fsopen/fsconfig/fsmount) with `lower` read-only below
// `upper` (writes land there) and `work` (overlayfs' scratch dir, same filesystem as `upper`).
// `userxattr` keeps overlay's own metadata (opaque dirs, origins) in user.overlay.* xattrs, the
// only ones a mount inside a user namespace may write. Returns the mount fd (nosuid, nodev) or
// -errno.
int overlay_detached(const char* lower, const char* upper, const char* work);

}  // namespace corral::mnt
