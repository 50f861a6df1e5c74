// The seccomp filter, compiled once and cached on disk: compiling it with libseccomp is the
// largest piece of `corral run`'s own start-up work (~0.5 ms), and its result depends only on
// the filter options and the corral binary. Cached in <state root>/cache, which every sandbox
// masks, in files that must belong to the caller and be writable by nobody else: the same
// trust as corral's own policy files.
#pragma once

#include <string>

#include "common/result.hpp"
#include "linux/seccomp.hpp"

namespace corral {

// compile_seccomp_filter(options), from the cache when an entry for these options and this
// binary is there; otherwise compiled and stored (best effort: a cache that cannot be written
// only costs the compile).
Result<SeccompProgram> cached_seccomp_filter(const SeccompOptions& options);

// The cache file's bytes for `prog` under `key`, and back (nullopt unless `key` matches and
// the bytes are whole). Exposed for tests.
std::string encode_seccomp_entry(const std::string& key, const SeccompProgram& prog);
std::optional<SeccompProgram> decode_seccomp_entry(const std::string& key, const std::string& bytes);

}  // namespace corral
