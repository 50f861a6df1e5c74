// Child-side identity and privilege steps: id maps, capabilities, no_new_privs, securebits.
// Each returns 0 or an errno value and allocates nothing (see linux/mount.hpp).
#pragma once

#include <sys/types.h>

namespace corral::ident {

// Maps `uid`/`gid` of the parent namespace to the same ids inside the calling process's new
// user namespace (one line each; setgroups denied, as an unprivileged caller must).
int write_self_id_maps(uid_t uid, gid_t gid);

// Empties the bounding, ambient, inheritable, permitted and effective sets; with `keep` >= 0
// that one capability stays permitted and effective (never bounding, ambient or inheritable,
// so no execve can pass it on).
int drop_all_capabilities(int keep = -1);
// Empties the ambient, inheritable, permitted and effective sets of a process whose bounding
// set is already empty (that step needs CAP_SETPCAP, which it no longer has).
int clear_capabilities();

int set_no_new_privs();

// Locks securebits so that uid 0 inside never regains capabilities through execve or setuid.
int lock_securebits();

int set_non_dumpable();

}  // namespace corral::ident
