// Network device setup inside a fresh network namespace.
#pragma once

namespace corral::netdev {

// Brings `lo` up (a new network namespace starts with it down). Returns 0 or errno.
int bring_up_loopback();

}  // namespace corral::netdev
