# mcast_netns.sh: what the multicast tests share: they run in a network namespace of their own
# (unshare -n), so that no datagram can reach any other network. Source it first thing, saying
# which shell re-runs the script: `MCAST_NETNS_SHELL=sh . "$top_srcdir/tests/coll/mcast_netns.sh"`
# (the script's own arguments go along). Not root or no unshare: skip (77). Outside the namespace it re-runs the script inside one
# (QCG_MCAST_IN_NETNS=1 marks that run); inside, it brings loopback up with multicast and
# routes 239.0.0.0/8 to it.
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: needs root to make its own network namespace (unshare -n)"
	exit 77
fi
if [ "${QCG_MCAST_IN_NETNS:-}" != 1 ]; then
	command -v unshare >/dev/null 2>&1 || { echo "SKIP: unshare not found"; exit 77; }
	QCG_MCAST_IN_NETNS=1 exec unshare -n -- "${MCAST_NETNS_SHELL:-sh}" "$0" "$@"
fi
ip link set lo up multicast on || { echo "FAIL: cannot set lo up with multicast"; exit 1; }
ip route add 239.0.0.0/8 dev lo || { echo "FAIL: cannot route 239.0.0.0/8 to lo"; exit 1; }
