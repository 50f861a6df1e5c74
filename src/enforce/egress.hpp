// Filtered egress for one run (network.mode = "allowlist"): the parent prepares the bridge
// plan, the child opens its sockets inside the sandbox's network namespace and passes them
// over the control socket, and the parent starts the run's own EgressProxy on them.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "enforce/child_config.hpp"
#include "enforce/record.hpp"
#include "net/bridge.hpp"
#include "net/egress_proxy.hpp"
#include "policy/policy.hpp"

namespace corral {

struct EgressSetup {
  net::HostRules rules;
  net::BridgePlan plan;
  std::vector<int> child_fds;       // the child's scratch, one slot per socket
  std::vector<char> child_control;  // the child's SCM_RIGHTS buffer
};

// Null without an allowlist. Malformed patterns are Errc::invalid_input naming the pattern.
Result<std::unique_ptr<EgressSetup>> prepare_egress(const EffectivePolicy& policy);

// Points the child at the setup: sockets to open, /etc/resolv.conf and /etc/hosts replaced, and
// the proxy variables added to `env_overlay` (the caller's own overlay entries win).
void configure_child_egress(EgressSetup& setup, ChildConfig& config,
                            std::map<std::string, std::string>& env_overlay);

// Child side: opens the sockets and sends them to the parent. 0 or an errno. No allocation.
int send_egress_listeners(const ChildConfig& config);

// Parent side: waits on the control socket for the child's sockets (or its setup failure:
// Errc::setup_failed naming the step) and sorts them into the proxy's listeners.
Result<net::EgressListeners> receive_egress_listeners(const EgressSetup& setup, int ctl_fd,
                                                      int pidfd);

// receive_egress_listeners(), then the proxy on them.
Result<std::unique_ptr<net::EgressProxy>> start_egress_proxy(EgressSetup& setup, int ctl_fd,
                                                             int pidfd);

// One refusal as a violation (kind "network").
Violation network_violation(const net::EgressRefusal& refusal);

// Refusals become violations (kind "network"); allowed connections are counted per host.
void record_egress(const net::EgressReport& report, RunRecord& record);

}  // namespace corral
