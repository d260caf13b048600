#!/usr/bin/env bash
# A slower network on this host, for scripts/validate.sh (SLOW_NET=RATE): two network
# namespaces, psins0 and psins1, joined by a veth pair whose both ends a token-bucket filter
# limits to RATE (tc tbf: e.g. 1gbit), so that rank r, run inside namespace psins<r>, reaches
# the other rank only through that link.
#   bash scripts/netns-link.sh up [RATE]      (default 1gbit; needs root and iproute2)
#   bash scripts/netns-link.sh down
# Ranks are placed by scripts/in-netns.sh, the launcher wrapper:
#   MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self UCX_NET_DEVICES=psv0,psv1 UCX_LOG_LEVEL=error \
#     mpirun -n 2 scripts/in-netns.sh PROGRAM ...
# (UCX must be allowed both ends' devices — with only its own, a rank finds the peer's
# address unreachable — and then warns, on stdout, about the one it does not have:
# UCX_LOG_LEVEL=error keeps that out of the program's output.)
# The kernel of the project VM has no netem, so the link adds no delay of its own: its
# latency is the veth path's, its bandwidth the filter's.
set -euo pipefail
case "${1:-}" in
  up)
    rate=${2:-1gbit}
    for r in 0 1; do ip netns add psins$r 2> /dev/null || true; done
    ip -n psins0 link show psv0 > /dev/null 2>&1 || ip link add psv0 netns psins0 type veth peer name psv1 netns psins1
    for r in 0 1; do
      ip -n psins$r addr replace 10.77.0.$((r + 1))/24 dev psv$r
      ip -n psins$r link set lo up
      ip -n psins$r link set psv$r up
      # burst: enough for one 64 KiB TCP segment train at the rate; latency: the queue a
      # burst may wait in before the filter drops
      ip netns exec psins$r tc qdisc replace dev psv$r root tbf rate "$rate" burst 256kb latency 10ms
    done
    echo "netns-link: psins0 (10.77.0.1) <-> psins1 (10.77.0.2) at $rate"
    ;;
  down)
    for r in 0 1; do ip netns del psins$r 2> /dev/null || true; done
    ;;
  *)
    echo "usage: $0 up [RATE] | down" >&2
    exit 2
    ;;
esac
