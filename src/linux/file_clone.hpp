// Copying file data the cheapest way the filesystem allows: a reflink (FICLONE: btrfs, xfs,
// bcachefs share the blocks), else copy_file_range (in-kernel, no user-space buffer).
#pragma once

#include <sys/types.h>

namespace corral::fsx {

// Copies all of `in` (size `size`) into the empty file `out`. Returns 0 or an errno value.
int clone_or_copy(int in, int out, off_t size);

// Swaps two paths atomically (renameat2 RENAME_EXCHANGE). Returns 0 or an errno value.
int exchange(const char* a, const char* b);

}  // namespace corral::fsx
