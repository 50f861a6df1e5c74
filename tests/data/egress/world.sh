#!/bin/sh
# Runs "$@" in a small world of its own (run under `unshare -Urnm`): a network namespace where
# 198.51.100.7 (a documentation address, public as far as the proxy can tell) and
# 169.254.169.254 sit on lo, $WORLD/hosts is /etc/hosts, and server.py serves $WORLD/www on
# ports 8080, 8081 and 80 of every address. Nothing leaves the namespace.
set -e
ip link set lo up
ip addr add 198.51.100.7/32 dev lo
ip addr add 169.254.169.254/32 dev lo
mount --bind "$WORLD/hosts" /etc/hosts
/usr/bin/python3 "$(dirname "$0")/server.py" "$WORLD/www" "$WORLD/ready" 8080 8081 80 &
server=$!
while [ ! -e "$WORLD/ready" ]; do
  kill -0 "$server"
  sleep 0.02
done
set +e
"$@"
rc=$?
kill "$server"
wait "$server" 2>/dev/null
exit $rc
