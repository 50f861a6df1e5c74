// Names of setup steps for error messages.
#include "enforce/messages.hpp"

namespace corral {

const char* setup_step_name(SetupStep step) {
  switch (step) {
    case SetupStep::wait_parent: return "waiting for the parent";
    case SetupStep::id_maps: return "writing uid/gid maps";
    case SetupStep::cgroup_ns: return "entering the cgroup namespace";
    case SetupStep::hostname: return "setting the hostname";
    case SetupStep::loopback: return "bringing up loopback";
    case SetupStep::mount_private: return "making mounts private";
    case SetupStep::clone_sources: return "cloning a bind source";
    case SetupStep::staging: return "preparing the new root";
    case SetupStep::mount_op: return "mounting";
    case SetupStep::remount_readonly: return "remounting read-only";
    case SetupStep::pivot_root: return "pivoting into the new root";
    case SetupStep::drop_capabilities: return "dropping capabilities";
    case SetupStep::no_new_privs: return "setting no_new_privs";
    case SetupStep::securebits: return "locking securebits";
    case SetupStep::landlock: return "applying the Landlock ruleset";
    case SetupStep::seccomp: return "loading the seccomp filter";
    case SetupStep::fork_command: return "starting the command";
    case SetupStep::chdir: return "entering the working directory";
    case SetupStep::egress_bridge: return "opening the egress bridge's sockets";
  }
  return "setup";
}

}  // namespace corral
