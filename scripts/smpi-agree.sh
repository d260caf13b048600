#!/usr/bin/env bash
# The agreement check of docs/interop-simgrid.md: one compact trace predicted by psins-sim and
# by SimGrid's SMPI (smpirun -replay of its TI export) on the same machine.
#   bash scripts/smpi-agree.sh TRACE [LATENCY_NS] [BANDWIDTH_BYTES_PER_S] [TOPOLOGY]
# (defaults 1000, 1e9, flat). TOPOLOGY: flat (contention-free, psins `simple`), fattree or
# dragonfly (SimGrid's FAT_TREE or DRAGONFLY cluster vs psins's `flow` model on the equal
# graph; LATENCY_NS is then per link).
# Prints one line: `agree tasks=N psins=SECONDS smpi=SECONDS rel=PERCENT` (rel = smpi/psins - 1).
# With LIVE_RANKS=N (environment), TRACE is instead an MPI program built with smpicc: SMPI runs
# it live on N ranks (arguments LIVE_ARGS, computation not simulated) and writes its TI trace
# (-trace-ti), which psins-sim replays imported. SELECTOR=mpich or ompi (environment) has each
# side choose its own collective algorithms: SMPI's --cfg=smpi/coll-selector of that name,
# psins-sim's mpi.library (mpich, openmpi). (SMPI 3.32's replayer aborts with either selector
# on a small bcast or allreduce and with mpich on a reduce: a live run is what selects them.)
# Every setting that makes the two semantics equal is here, once; the doc explains each.
# Needs smpirun (libsimgrid-dev) and the release tools (make build). Exit 1 on any failure.
set -euo pipefail
trace=${1:?usage: smpi-agree.sh TRACE [LATENCY_NS] [BANDWIDTH_BYTES_PER_S]}
lat_ns=${2:-1000}
bw=${3:-1e9}
topo=${4:-flat}
case $topo in flat | fattree | dragonfly) ;; *) echo "smpi-agree: unknown topology '$topo' (flat, fattree, dragonfly)" >&2; exit 1 ;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${PSINS_BIN:-$root/target/release}
command -v smpirun >/dev/null || { echo "smpi-agree: smpirun not found (apt-get install libsimgrid-dev)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/smpi-agree.XXXXXX")
trap 'rm -rf "$work"' EXIT

selector=() library=()
case ${SELECTOR:-} in
  "") ;;
  mpich) selector=(--cfg=smpi/coll-selector:mpich) library=(--set mpi.library=mpich) ;;
  ompi) selector=(--cfg=smpi/coll-selector:ompi) library=(--set mpi.library=openmpi) ;;
  *) echo "smpi-agree: SELECTOR=$SELECTOR: mpich or ompi" >&2; exit 1 ;;
esac
if [ -n "${LIVE_RANKS:-}" ]; then
  [ -x "$trace" ] || { echo "smpi-agree: LIVE_RANKS: $trace is not a program (build it with smpicc)" >&2; exit 1; }
  n=$LIVE_RANKS
else
  [ ${#selector[@]} -eq 0 ] || { echo "smpi-agree: SELECTOR needs a live run (LIVE_RANKS)" >&2; exit 1; }
  # TI export: compute in flops at 1 Gflop/s hosts (1 flop per traced ns).
  "$bin/psins-export" --to ti "$trace" -o "$work/ti" -q
  n=$(grep -c . "$work/ti/replay.txt")
fi

flat_files() {
# The platform: every ordered pair of hosts has its own link, and every link is FATPIPE (each
# flow gets the whole bandwidth), so no message ever shares bandwidth with another — psins's
# contention-free `simple` model. A host's messages to itself take its loopback link, the same.
awk -v n="$n" -v lat="$lat_ns" -v bw="$bw" 'BEGIN {
  print "<?xml version=\"1.0\"?>"
  print "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
  print "<platform version=\"4.1\">"
  print "<zone id=\"mesh\" routing=\"Full\">"
  for (i = 0; i < n; i++) printf "<host id=\"h%d\" speed=\"1Gf\"/>\n", i
  for (i = 0; i < n; i++) for (j = 0; j < n; j++)
    printf "<link id=\"l%d_%d\" bandwidth=\"%sBps\" latency=\"%sns\" sharing_policy=\"FATPIPE\"/>\n", i, j, bw, lat
  for (i = 0; i < n; i++) for (j = 0; j < n; j++)
    printf "<route src=\"h%d\" dst=\"h%d\" symmetrical=\"NO\"><link_ctn id=\"l%d_%d\"/></route>\n", i, j, i, j
  print "</zone>"
  print "</platform>"
}' > "$work/platform.xml"

# The equal psins machine: one rank per node, the simple model, no handshake before a
# rendezvous transfer (SMPI starts a large message when both sides are posted), expanded
# collectives (the export wrote their steps). SMPI sends 16 bytes of envelope with every
# message: 16/B is added to psins's latency.
lat_ps=$(awk -v l="$lat_ns" -v b="$bw" 'BEGIN { printf "%.0f", l * 1000 + 16e12 / b }')
cat > "$work/equal.toml" <<EOF
[machine]
name = "smpi-equal"
nodes = $n
cores_per_node = 1
cpu_ratio = 1.0

[mpi]
eager_threshold = "64KiB"
collectives = "expanded"
rendezvous_handshake = false

[network]
model = "simple"
latency = "${lat_ps}ps"
bandwidth = "${bw}B/s"
EOF
}

# The psins machine of a graph: the flow model on [network.$1] ($3 its design), $2 nodes.
# A rank's messages to itself (scattered alltoall's own block) take the cluster's loopback
# link in SimGrid (without one, they would cross the node's own cable and share it with the
# node's other flows) and psins's [self] link: latency l + 16 B / B, bandwidth B, as flat.
links_files() {
  hz=$(awk -v l="$lat_ns" 'BEGIN { printf "%.6g", 1e9 / l }')
  self_ps=$(awk -v l="$lat_ns" -v b="$bw" 'BEGIN { printf "%.0f", l * 1000 + 16e12 / b }')
  w=$(awk -v l="$lat_ns" -v b="$bw" 'BEGIN { printf "%.0f", 8 * b * l / 1e9 }')
  cat > "$work/equal.toml" <<EOF
[machine]
name = "smpi-equal-$1"
nodes = $2
cores_per_node = 1
mapping = "block"
cpu_ratio = 1.0

[mpi]
eager_threshold = "64KiB"
collectives = "expanded"
rendezvous_handshake = false

[self]
latency = "${self_ps}ps"
bandwidth = "${bw}B/s"

[network]
model = "flow"
latency = "${lat_ns}ns"
bandwidth = "${bw}B/s"

[network.flow]
topology = "$1"
latency_first = true
latency_weighted = true
envelope = "16B"

[network.$1]
$3
link_bits_per_cycle = $w
clock = "${hz}Hz"
router_delay_cycles = 0
EOF
}

# The fat-tree: k-ary 2-tree with k = ceil(sqrt(N)) (k^2 hosts, the first N used), SimGrid's
# FAT_TREE cluster "2;k,k;1,k;1,1" and psins's flow model on [network.fattree] down = [k, k],
# up = [k]. Both route up by D-mod-k (up port floor(dst / B_l) mod w_{l+1}: SimGrid's
# FatTreeZone::get_local_route computes the same digit) and down the one way. SPLITDUPLEX:
# each cable is two links, one per direction, as psins's directed links. Per link: bandwidth
# B and latency l; psins: one cycle = l (clock 1/l), W = 8·B·l bits per cycle, no router
# delay, so a route of h links costs h·l + S/B in both; latency_first = true: a flow waits
# its latency before it takes bandwidth, as CM02 does; envelope = "16B": SMPI's message of S
# bytes is one flow of S + 16.
fattree_files() {
  k=1
  while ((k * k < n)); do k=$((k + 1)); done
  cat > "$work/platform.xml" <<EOF
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<cluster id="ft" prefix="h" suffix="" radical="0-$((k * k - 1))" speed="1Gf" bw="${bw}Bps" lat="${lat_ns}ns"
  sharing_policy="SPLITDUPLEX" loopback_bw="${bw}Bps" loopback_lat="${lat_ns}ns" topology="FAT_TREE" topo_parameters="2;$k,$k;1,$k;1,1"/>
</platform>
EOF
  links_files fattree "$((k * k))" "down = [$k, $k]
up = [$k]
routing = \"dmodk\""
}

# The dragonfly: SimGrid's DRAGONFLY cluster "g,1;1,1;g,1;1" (g groups of one chassis of g
# routers, one node each; DragonflyZone links router n of group G to group n by its one
# blue link, so router G of group G has none) against psins's flow model on the dragonfly
# p = 1, a = g − 1, h = 1, g, absolute arrangement, minimal routing — the same graph without
# SimGrid's routers G of group G: psins's router i of group G is SimGrid's router i, or i + 1
# from i = G on (absolute: router i's global link goes to group i, or i + 1 from i = G on,
# as SimGrid's router n goes to group n). Both route minimally: to the router of the source
# group linked to the destination group, its global link, then to the destination router.
# g is the least with g·(g − 1) ≥ N nodes; rank r is psins's node r (block) and SimGrid's
# host of that router (the hostfile). Links as for the fat-tree.
dragonfly_files() {
  g=2
  while ((g * (g - 1) < n)); do g=$((g + 1)); done
  cat > "$work/platform.xml" <<EOF
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<cluster id="df" prefix="h" suffix="" radical="0-$((g * g - 1))" speed="1Gf" bw="${bw}Bps" lat="${lat_ns}ns"
  sharing_policy="SPLITDUPLEX" loopback_bw="${bw}Bps" loopback_lat="${lat_ns}ns" topology="DRAGONFLY" topo_parameters="$g,1;1,1;$g,1;1"/>
</platform>
EOF
  links_files "dragonfly" "$((g * (g - 1)))" "p = 1
a = $((g - 1))
h = 1
g = $g
arrangement = \"absolute\"
routing = \"minimal\""
  for ((r = 0; r < n; r++)); do
    G=$((r / (g - 1)))
    i=$((r % (g - 1)))
    b=$((i < G ? i : i + 1))
    echo "h$((G * g + b))"
  done > "$work/hosts"
}

for ((i = 0; i < n; i++)); do echo "h$i"; done > "$work/hosts"
case $topo in
  flat) flat_files ;;
  fattree) fattree_files ;;
  dragonfly) dragonfly_files ;;
esac

# SMPI: CM02 with its factors 1 (no TCP-gamma window bound, no cross-traffic), SMPI's
# per-size factors and overheads off, and psins's eager threshold (S <= 64 KiB eager, i.e.
# S < 65537) as both the detached-send and the eager (asynchronous small message) threshold:
# below it a message leaves at once and the sender goes on; above it the transfer starts when
# both sides are posted and the sender waits for it.
# A live run: the program itself, its TI trace written for psins; computation not simulated
# (the trace then has none, and psins replays none).
if [ -n "${LIVE_RANKS:-}" ]; then
  run=("${selector[@]}" --cfg=smpi/simulate-computation:no -trace-ti --cfg=tracing/filename:"$work/live.txt" "$trace" ${LIVE_ARGS:-})
else
  run=(-replay "$work/ti/replay.txt")
fi
smpi=$(smpirun -np "$n" -platform "$work/platform.xml" -hostfile "$work/hosts" \
  --cfg=network/model:CM02 --cfg=network/latency-factor:1 --cfg=network/bandwidth-factor:1 \
  --cfg=network/weight-S:0 --cfg=network/TCP-gamma:1e30 --cfg=network/crosstraffic:0 \
  --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
  --cfg=smpi/os:0:0:0:0:0 --cfg=smpi/or:0:0:0:0:0 --cfg=smpi/ois:0:0:0:0:0 \
  --cfg=smpi/async-small-thresh:65537 --cfg=smpi/send-is-detached-thresh:65537 \
  --cfg=smpi/host-speed:1Gf --cfg=smpi/display-timing:yes --log=root.thres:warning --log=smpi_utils.thres:info \
  "${run[@]}" 2>&1 | sed -n 's/.*Simulated time: \([0-9.eE+-]*\) seconds.*/\1/p' | head -1)

[ -n "$smpi" ] || { echo "smpi-agree: smpirun gave no simulated time (run it by hand in $work)" >&2; exit 1; }
if [ -n "${LIVE_RANKS:-}" ]; then
  # SMPI lists the rank files in no set order; the import wants them by rank.
  ls "$work/live.txt_files" | sed -E 's/.*rank-([0-9]+)\.txt$/\1 &/' | sort -n | cut -d' ' -f2 |
    sed "s|^|$work/live.txt_files/|" > "$work/list.txt"
  "$bin/psins-import" --from ti "$work/list.txt" -o "$work/trace.psins" -q
  trace=$work/trace.psins
fi
psins=$("$bin/psins-sim" "$trace" --machine "$work/equal.toml" "${library[@]}" --tracer-overhead 0 --json - |
  sed -n 's/.*"predicted_seconds": *\([0-9.eE+-]*\).*/\1/p' | head -1)
[ -n "$psins" ] || { echo "smpi-agree: psins-sim gave no prediction" >&2; exit 1; }
awk -v n="$n" -v p="$psins" -v s="$smpi" 'BEGIN { printf "agree tasks=%d psins=%.9g smpi=%.9g rel=%.4f\n", n, p, s, (s / p - 1) * 100 }'
