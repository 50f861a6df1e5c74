// Unit tests of the kernel probe: parsers and severity decisions from fixed inputs (v1, v2 and
// hybrid cgroup machines, old kernels), plus a smoke run of the real probe on this machine.
#include "linux/probe.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <string>

#include "linux/probe_detail.hpp"

namespace corral {
namespace {

using probe::CgroupHierarchy;
using probe::CgroupMount;
using probe::ProbeInputs;

const FeatureCheck& find(const Features& f, const std::string& name) {
  for (const FeatureCheck& c : f.checks)
    if (c.name == name) return c;
  static FeatureCheck missing{"<missing>", Severity::error, "", ""};
  ADD_FAILURE() << "no check named " << name;
  return missing;
}

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  return std::any_of(v.begin(), v.end(),
                     [&](const std::string& s) { return s.find(needle) != std::string::npos; });
}

// A modern, fully capable machine as a non-root user with a delegated cgroup2 subtree.
ProbeInputs modern_inputs() {
  ProbeInputs in;
  in.euid_root = false;
  in.kernel_release = "6.18.0";
  in.max_user_namespaces = 15000;
  in.ns_present = {"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"};
  in.landlock_abi = 7;
  in.seccomp_filter_errno = EFAULT;
  in.seccomp_actions = "kill_process kill_thread trap errno user_notif trace log allow\n";
  CgroupHierarchy h;
  h.mount = {2, "/sys/fs/cgroup", "/", {}};
  h.own_dir = "/sys/fs/cgroup/user.slice/user-1000.slice/corral";
  h.controllers = {"cpuset", "cpu", "io", "memory", "pids"};
  h.writable = true;
  in.cgroups.push_back(h);
  in.overlay_in_filesystems = true;
  in.clone3_errno = EINVAL;
  in.pidfd_errno = 0;
  in.open_tree_errno = EBADF;
  in.move_mount_errno = EPERM;
  in.mount_setattr_errno = EINVAL;
  return in;
}

// Linux 5.4-ish: no Landlock, no clone3 blocked, no time ns, user_notif but no mount_setattr.
ProbeInputs old_kernel_inputs() {
  ProbeInputs in = modern_inputs();
  in.kernel_release = "5.10.0";
  in.landlock_abi = 0;
  in.landlock_errno = ENOSYS;
  in.seccomp_actions = "kill_process kill_thread trap errno trace log allow";
  return in;
}

TEST(ProbeParse, CgroupV2Mountinfo) {
  const char* mi =
      "22 1 259:1 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p1 rw\n"
      "25 22 0:23 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 "
      "rw,nsdelegate,memory_recursiveprot\n"
      "26 22 0:24 / /proc rw,nosuid - proc proc rw\n";
  auto mounts = probe::parse_cgroup_mounts(mi);
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(mounts[0].version, 2);
  EXPECT_EQ(mounts[0].mount_point, "/sys/fs/cgroup");
  EXPECT_EQ(mounts[0].root, "/");
  EXPECT_TRUE(mounts[0].controllers.empty());  // v2 controllers come from cgroup.controllers
}

TEST(ProbeParse, CgroupV1HybridMountinfo) {
  // This machine's shape: v1 controllers plus an empty v2 at /sys/fs/cgroup/unified.
  const char* mi =
      "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "39 31 0:36 / /sys/fs/cgroup/pids rw,relatime shared:9 - cgroup cgroup rw,pids\n"
      "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup "
      "rw,xattr,release_agent=/lib/systemd/systemd-cgroups-agent,name=systemd\n"
      "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
      "42 31 0:39 /sub /mnt/with\\040space rw - cgroup cgroup rw,clone_children,freezer\n";
  auto mounts = probe::parse_cgroup_mounts(mi);
  ASSERT_EQ(mounts.size(), 6u);
  EXPECT_EQ(mounts[0].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
  EXPECT_EQ(mounts[1].controllers, (std::vector<std::string>{"memory"}));
  EXPECT_EQ(mounts[2].controllers, (std::vector<std::string>{"pids"}));
  EXPECT_TRUE(mounts[3].controllers.empty()) << "name=systemd is not a controller";
  EXPECT_EQ(mounts[4].version, 2);
  EXPECT_EQ(mounts[4].mount_point, "/sys/fs/cgroup/unified");
  EXPECT_EQ(mounts[5].mount_point, "/mnt/with space");
  EXPECT_EQ(mounts[5].root, "/sub");
  EXPECT_EQ(mounts[5].controllers, (std::vector<std::string>{"freezer"}));
}

TEST(ProbeParse, ProcSelfCgroupAndOwnDir) {
  auto ms = probe::parse_proc_cgroup(
      "9:name=systemd:/\n4:memory:/process_api/abc\n1:cpu,cpuacct:/x:y\n0::/user.slice/a\n");
  ASSERT_EQ(ms.size(), 4u);
  EXPECT_EQ(ms[2].path, "/x:y");  // colons inside the path survive
  EXPECT_TRUE(ms[3].v2);
  EXPECT_EQ(probe::own_cgroup_dir({1, "/sys/fs/cgroup/memory", "/", {"memory"}}, ms),
            "/sys/fs/cgroup/memory/process_api/abc");
  EXPECT_EQ(probe::own_cgroup_dir({1, "/sys/fs/cgroup/cpu", "/", {"cpu", "cpuacct"}}, ms),
            "/sys/fs/cgroup/cpu/x:y");
  EXPECT_EQ(probe::own_cgroup_dir({2, "/sys/fs/cgroup", "/", {}}, ms),
            "/sys/fs/cgroup/user.slice/a");
  // A mount showing only a subtree: its root is stripped from our path.
  EXPECT_EQ(probe::own_cgroup_dir({2, "/c", "/user.slice", {}}, ms), "/c/a");
  EXPECT_EQ(probe::own_cgroup_dir({1, "/sys/fs/cgroup/pids", "/", {"pids"}}, ms), "");
}

TEST(ProbeAssess, ModernMachineIsAllOk) {
  Features f = probe::assess_features(modern_inputs());
  for (const FeatureCheck& c : f.checks) {
    EXPECT_EQ(c.severity, Severity::ok) << c.name << ": " << c.detail;
    EXPECT_TRUE(c.fix.empty()) << c.name;
  }
  EXPECT_TRUE(f.userns && f.ns_mount && f.ns_pid && f.ns_net && f.ns_time);
  EXPECT_EQ(f.landlock_abi, 7);
  EXPECT_TRUE(f.seccomp_filter && f.seccomp_user_notif && f.cgroup_v2 && f.overlayfs);
  EXPECT_TRUE(f.clone3 && f.pidfd && f.mount_api);
  EXPECT_TRUE(f.cgroup_v1_controllers.empty());
  EXPECT_EQ(find(f, "landlock").detail, "ABI 7");
}

TEST(ProbeAssess, EveryCheckNamedOnce) {
  Features f = probe::assess_features(modern_inputs());
  std::vector<std::string> names;
  for (const auto& c : f.checks) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"userns", "ns.mount", "ns.pid", "ns.net", "ns.ipc",
                                             "ns.uts", "ns.cgroup", "ns.time", "landlock",
                                             "seccomp.filter", "seccomp.user_notif", "cgroup",
                                             "overlayfs", "clone3", "pidfd", "mount_api"}));
}

TEST(ProbeAssess, OldKernelWarnsWithoutLandlockAndUserNotif) {
  Features f = probe::assess_features(old_kernel_inputs());
  const FeatureCheck& ll = find(f, "landlock");
  EXPECT_EQ(ll.severity, Severity::warning);
  EXPECT_NE(ll.detail.find("degraded"), std::string::npos) << ll.detail;
  EXPECT_NE(ll.fix.find("CONFIG_SECURITY_LANDLOCK=y"), std::string::npos) << ll.fix;
  EXPECT_EQ(find(f, "seccomp.user_notif").severity, Severity::warning);
  EXPECT_FALSE(find(f, "seccomp.user_notif").fix.empty());

  Requirements r = check_requirements(f, EffectivePolicy{});
  EXPECT_TRUE(r.errors.empty()) << r.errors.front();
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_TRUE(any_contains(r.warnings, "Landlock unavailable"));
  EXPECT_TRUE(any_contains(r.warnings, "fix: boot a kernel with CONFIG_SECURITY_LANDLOCK=y"));
  EXPECT_TRUE(any_contains(r.warnings, "seccomp user notification"));
}

TEST(ProbeAssess, LandlockDisabledAtBootAndOldAbi) {
  ProbeInputs in = modern_inputs();
  in.landlock_abi = 0;
  in.landlock_errno = EOPNOTSUPP;
  EXPECT_NE(find(probe::assess_features(in), "landlock").fix.find("lsm="), std::string::npos);
  in.landlock_abi = 4;
  const FeatureCheck c = find(probe::assess_features(in), "landlock");
  EXPECT_EQ(c.severity, Severity::warning);
  EXPECT_NE(c.detail.find("ABI 4"), std::string::npos);
  EXPECT_NE(c.detail.find("device ioctl control (ABI 5)"), std::string::npos) << c.detail;
  EXPECT_EQ(c.detail.find("(ABI 4)"), std::string::npos) << "ABI 4 features are present";
  EXPECT_NE(c.fix.find("6.15"), std::string::npos);
}

TEST(ProbeAssess, UserNamespaceKnobs) {
  ProbeInputs in = modern_inputs();
  in.max_user_namespaces = 0;
  Features f = probe::assess_features(in);
  EXPECT_FALSE(f.userns);
  EXPECT_EQ(find(f, "userns").severity, Severity::error);
  EXPECT_EQ(find(f, "userns").fix, "sysctl -w user.max_user_namespaces=15000");

  in = modern_inputs();
  in.unprivileged_userns_clone = 0;
  EXPECT_NE(
      find(probe::assess_features(in), "userns").fix.find("kernel.unprivileged_userns_clone=1"),
      std::string::npos);
  EXPECT_EQ(probe::userns_from_sysctls(in), false);
  in.euid_root = true;  // the Debian knob binds only non-root users
  EXPECT_TRUE(probe::assess_features(in).userns);

  // AppArmor's restriction cannot be decided from sysctls: a real test decides.
  in = modern_inputs();
  in.apparmor_restrict_userns = 1;
  EXPECT_FALSE(probe::userns_from_sysctls(in).has_value());
  probe::NsTest t;
  t.userns = 0;
  t.kinds["mnt"] = EPERM;
  in.ns_test = t;
  f = probe::assess_features(in);
  EXPECT_FALSE(f.userns);
  EXPECT_NE(find(f, "userns").fix.find("apparmor_restrict_unprivileged_userns=0"),
            std::string::npos);
  in.ns_test->kinds["mnt"] = 0;
  EXPECT_TRUE(probe::assess_features(in).userns);
}

TEST(ProbeAssess, FailedUnshareIsAnErrorWithErrno) {
  ProbeInputs in = modern_inputs();
  probe::NsTest t;
  t.userns = 0;
  for (const char* k : probe::kNamespaceKinds) t.kinds[k] = 0;
  t.kinds["net"] = EPERM;
  t.overlay = EPERM;
  t.mount_api = 0;
  in.ns_test = t;
  Features f = probe::assess_features(in);
  EXPECT_FALSE(f.ns_net);
  EXPECT_TRUE(f.ns_pid);
  EXPECT_EQ(find(f, "ns.net").severity, Severity::error);
  EXPECT_NE(find(f, "ns.net").detail.find("CLONE_NEWNET) failed: EPERM"), std::string::npos);
  EXPECT_EQ(find(f, "overlayfs").severity, Severity::warning);
  EXPECT_FALSE(f.overlayfs);
  EXPECT_TRUE(f.mount_api);
  Requirements r = check_requirements(f, EffectivePolicy{});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("network namespaces unavailable: unshare(CLONE_NEWNET) failed"),
            std::string::npos)
      << r.errors[0];
}

TEST(ProbeAssess, MissingSyscallsAreErrors) {
  ProbeInputs in = modern_inputs();
  in.clone3_errno = ENOSYS;
  in.mount_setattr_errno = ENOSYS;
  in.pidfd_errno = ENOSYS;
  in.seccomp_filter_errno = EINVAL;
  in.seccomp_actions.clear();
  in.ns_present = {"ipc", "mnt", "net", "pid", "user", "uts"};  // no cgroup, no time ns
  Features f = probe::assess_features(in);
  for (const char* name : {"clone3", "mount_api", "pidfd", "seccomp.filter", "ns.cgroup"}) {
    EXPECT_EQ(find(f, name).severity, Severity::error) << name;
    EXPECT_FALSE(find(f, name).fix.empty()) << name;
  }
  EXPECT_EQ(find(f, "ns.time").severity, Severity::warning);
  EXPECT_NE(find(f, "mount_api").detail.find("mount_setattr"), std::string::npos);
  Requirements r = check_requirements(f, EffectivePolicy{});
  EXPECT_EQ(r.errors.size(), 5u);
  EXPECT_TRUE(any_contains(r.errors, "clone3 unavailable"));
  EXPECT_TRUE(any_contains(r.errors, "seccomp filters unavailable"));
  EXPECT_TRUE(any_contains(r.errors, "cgroup namespaces unavailable"));
}

TEST(ProbeAssess, HybridV1CgroupsAreUsable) {
  ProbeInputs in = modern_inputs();
  in.euid_root = true;
  in.cgroups.clear();
  auto v1 = [](const char* dir, std::vector<std::string> ctrls) {
    CgroupHierarchy h;
    h.mount = {1, std::string("/sys/fs/cgroup/") + dir, "/", ctrls};
    h.own_dir = h.mount.mount_point;
    h.controllers = ctrls;
    h.writable = true;
    return h;
  };
  in.cgroups.push_back(v1("cpu", {"cpu"}));
  in.cgroups.push_back(v1("memory", {"memory"}));
  in.cgroups.push_back(v1("pids", {"pids"}));
  in.cgroups.push_back(v1("freezer", {"freezer"}));
  CgroupHierarchy unified;
  unified.mount = {2, "/sys/fs/cgroup/unified", "/", {}};
  unified.own_dir = "/sys/fs/cgroup/unified";
  unified.controllers = {"hugetlb"};
  unified.writable = true;
  in.cgroups.push_back(unified);
  Features f = probe::assess_features(in);
  EXPECT_EQ(f.cgroup_v1_controllers, (std::vector<std::string>{"cpu", "memory", "pids"}));
  EXPECT_EQ(f.cgroup_v2_controllers, (std::vector<std::string>{"hugetlb"}));
  EXPECT_FALSE(f.cgroup_v2) << "hugetlb alone limits nothing corral sets";
  EXPECT_EQ(find(f, "cgroup").severity, Severity::ok) << find(f, "cgroup").detail;

  EffectivePolicy p;
  p.limits.memory_bytes = 1 << 30;
  p.limits.pids = 64;
  p.limits.cpus = 1.5;
  EXPECT_TRUE(check_requirements(f, p).errors.empty());
}

TEST(ProbeAssess, LimitWithoutControllerIsAnError) {
  ProbeInputs in = modern_inputs();
  in.cgroups[0].controllers = {"cpu", "pids"};  // memory not delegated to us
  Features f = probe::assess_features(in);
  const FeatureCheck& c = find(f, "cgroup");
  EXPECT_EQ(c.severity, Severity::warning);
  EXPECT_NE(c.detail.find("memory limits unavailable"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("+memory"), std::string::npos) << c.fix;

  EffectivePolicy p;
  EXPECT_TRUE(check_requirements(f, p).errors.empty()) << "no limit set, nothing to refuse";
  p.limits.memory_bytes = 1 << 20;
  p.limits.pids = 10;
  Requirements r = check_requirements(f, p);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("limits.memory is set but no usable memory cgroup controller"),
            std::string::npos)
      << r.errors[0];
}

TEST(ProbeAssess, UnwritableCgroupMeansNoLimits) {
  ProbeInputs in = modern_inputs();
  in.cgroups[0].writable = false;
  Features f = probe::assess_features(in);
  EXPECT_TRUE(f.cgroup_v2_controllers.empty());
  const FeatureCheck& c = find(f, "cgroup");
  EXPECT_EQ(c.severity, Severity::warning);
  EXPECT_NE(c.detail.find("not writable"), std::string::npos) << c.detail;
  EXPECT_NE(c.fix.find("Delegate=yes"), std::string::npos) << c.fix;
  EffectivePolicy p;
  p.limits.cpus = 2;
  Requirements r = check_requirements(f, p);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("limits.cpus"), std::string::npos);
  EXPECT_NE(r.errors[0].find("cpu cgroup controller"), std::string::npos);

  in.cgroups.clear();
  EXPECT_NE(find(probe::assess_features(in), "cgroup").fix.find("mount -t cgroup2"),
            std::string::npos);
}

TEST(ProbeAssess, RequirementsFromHandBuiltFeatures) {
  Features f;  // nothing at all, and no checks to borrow text from
  Requirements r = check_requirements(f, EffectivePolicy{});
  EXPECT_EQ(r.errors.size(), 11u);
  for (const std::string& e : r.errors) EXPECT_NE(e.find("; fix: "), std::string::npos) << e;
  EXPECT_TRUE(any_contains(r.warnings, "Landlock unavailable"));
}

TEST(ProbeReal, ThisMachine) {
  Features f = probe_features();
  EXPECT_EQ(f.checks.size(), 16u);
  for (const FeatureCheck& c : f.checks)
    EXPECT_EQ(c.fix.empty(), c.severity == Severity::ok) << c.name << ": " << c.detail;
  // What this project's machine provides (kernel 6.18); a failure here means the probe broke.
  EXPECT_TRUE(f.userns && f.ns_mount && f.ns_pid && f.ns_net);
  EXPECT_GE(f.landlock_abi, 1);
  EXPECT_TRUE(f.seccomp_filter);
  EXPECT_TRUE(f.clone3 && f.pidfd && f.mount_api);
}

TEST(ProbeReal, ThoroughAgreesWithQuick) {
  Features quick = probe_features();
  Features deep = probe_features(ProbeDepth::thorough);
  EXPECT_EQ(quick.userns, deep.userns);
  EXPECT_EQ(quick.ns_net, deep.ns_net);
  EXPECT_EQ(quick.mount_api, deep.mount_api) << find(deep, "mount_api").detail;
  EXPECT_EQ(quick.overlayfs, deep.overlayfs) << find(deep, "overlayfs").detail;
  EXPECT_NE(find(deep, "userns").detail.find("unshare(CLONE_NEWUSER) works"), std::string::npos);
}

}  // namespace
}  // namespace corral
