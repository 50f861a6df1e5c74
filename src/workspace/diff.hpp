// What a sandbox changed in a copy-on-write workspace, read from the layer's upper directory
// alone (never a scan of the whole tree): each entry of the upper is compared with the same
// path in the lower; whiteouts are deletions, opaque directories hide the lower's contents.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "workspace/layer.hpp"

namespace corral::workspace {

enum class ChangeKind { added, modified, deleted };
enum class EntryType { file, dir, symlink, other };

const char* change_kind_name(ChangeKind k);
const char* entry_type_name(EntryType t);

struct Change {
  std::string path;          // relative to the workspace root, '/'-separated
  ChangeKind kind = ChangeKind::added;
  EntryType type = EntryType::file;   // deleted: the type it had
  std::uint64_t size = 0;    // bytes now (added, modified) or before (deleted)
  unsigned mode = 0;         // permission bits now (before, for deleted)
  std::optional<unsigned> mode_from;  // modified: the mode before, when it changed
  std::optional<std::uint64_t> size_from;  // modified: the size before, when it changed
  bool content_changed = false;       // modified: bytes (or link target) differ
  std::string target;        // symlink: where it points now (before, for deleted)
  std::string target_from;   // modified symlink: where it pointed before
};

// Lists every change of `upper` over `lower`, sorted by path; within one path a deletion comes
// before an addition (a type change is reported as both). Renames show as delete + add
// (overlayfs without redirect_dir copies renamed files). A path copied up without any change
// of content, mode or link target (e.g. opened for writing, touched) is reported as modified
// with content_changed false only when its mtime differs.
Result<std::vector<Change>> diff_trees(const std::string& upper, const std::string& lower);
inline Result<std::vector<Change>> diff_layer(const Layer& layer) {
  return diff_trees(layer.upper(), layer.base.lower);
}

nlohmann::ordered_json change_to_json(const Change& c);
// "A  path", "M  path (mode 0644 -> 0755)", "D  dir/": one line per change.
std::string change_to_line(const Change& c);
// git --stat style: one line per change with its size delta, then totals.
std::string changes_stat(const std::vector<Change>& changes);

}  // namespace corral::workspace
