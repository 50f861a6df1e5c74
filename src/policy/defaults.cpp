// DESIGN.md's default policy: what `corral run -- CMD` enforces when nothing else is said.
#include "policy/load.hpp"

namespace corral {

Policy default_policy() {
  Policy p;
  p.filesystem.read_deny = {
      // Credentials in the caller's home ("~" is the caller's $HOME, also when it is /root).
      "~/.ssh", "~/.aws", "~/.gnupg", "~/.kube", "~/.docker", "~/.netrc", "~/.config/gcloud",
      "~/.azure", "~/.config/gh", "~/.git-credentials", "~/.npmrc", "~/.pypirc",
      "~/.password-store", "~/.local/share/keyrings",
      // Host secrets. /etc/ssh stays readable for ssh_config; only the host private keys go.
      "/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/sudoers.d", "/etc/ssh/ssh_host_*_key",
      // Sockets that hand out root (container engines) or the user's agents (ssh, gpg, dbus).
      "/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock", "/run/podman",
      "/run/user"};
  p.filesystem.write_allow = {"."};
  // Files that run code outside the sandbox later (git hooks, shell start-up files), and
  // .git/commondir, which would point git at another directory's hooks and config.
  p.filesystem.write_deny = {".git/hooks", ".git/config", ".git/commondir", ".bashrc",
                             ".zshrc",     ".profile",    ".bash_profile"};
  p.network.mode = NetMode::none;
  p.env.pass = {"PATH", "HOME", "LANG", "LC_*", "TERM", "TZ", "USER"};
  return p;
}

}  // namespace corral
