#!/usr/bin/env bash
# A sharded `psins-sim sweep` as a job array under a real single-node Slurm (a step of
# `make test`): generates slurm.conf in a scratch directory, starts munged, slurmctld and
# slurmd (as root, on private ports and sockets), runs 3 shards with `sbatch --array`, merges
# them and checks that the result equals the same sweep run locally, byte for byte.
# Skipped, saying so, only when Slurm is not installed (`bash scripts/setup.sh --slurm`,
# which CI's `--openmpi` includes) or when not root (the daemons need it). Every wait has a
# deadline and the daemons are stopped on exit, so it cannot hang.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "slurm-sweep-test: $*" >&2; }
for cmd in munged slurmctld slurmd sbatch sinfo scancel; do
  if ! command -v $cmd >/dev/null; then
    say "SKIPPED: Slurm is not installed (no $cmd; bash scripts/setup.sh --slurm installs slurm-wlm and munge)"
    exit 0
  fi
done
if [ "$(id -u)" -ne 0 ]; then
  say "SKIPPED: needs root to start munged, slurmctld and slurmd"
  exit 0
fi
BIN=${BIN:-$PWD/target/release}
[ -x "$BIN/psins-sim" ] && [ -x "$BIN/psins-synth" ] || { say "FAILED: build first ($BIN/psins-sim)"; exit 1; }
work=$(mktemp -d /tmp/psins-slurm.XXXXXX)
chmod 700 "$work"
host=$(hostname -s)
pids=()
cleanup() {
  scancel --quiet --name=psins-sweep >/dev/null 2>&1 || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  local daemons=()
  for f in slurmd slurmctld munged; do
    [ -f "$work/$f.pid" ] && daemons+=("$(cat "$work/$f.pid")")
  done
  for p in "${daemons[@]}"; do kill "$p" 2>/dev/null || true; done
  # Wait (10 s at most) for them to go, so that nothing is left running.
  for ((i = 0; i < 20; i++)); do
    local alive=0
    for p in "${daemons[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.5
  done
  [ "${KEEP:-}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
fail() {
  say "FAILED: $*"
  for f in munged slurmctld slurmd; do
    [ -f "$work/$f.log" ] && { echo "--- $f.log (last lines)" >&2; tail -n 20 "$work/$f.log" >&2; }
  done
  for f in "$work"/job-*.log; do [ -f "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }; done
  exit 1
}
# Waits up to $1 seconds for command $2... to succeed.
wait_for() {
  local limit=$1; shift
  for ((i = 0; i < limit * 2; i++)); do
    timeout 10 "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  return 1
}

# Ports picked from the pid so that two runs on one machine do not collide.
port=$((20000 + $$ % 20000))
export SLURM_CONF=$work/slurm.conf
mkdir -p "$work/state" "$work/spool"
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge.key"
munged --force --socket="$work/munge.socket" --key-file="$work/munge.key" --pid-file="$work/munged.pid" \
  --log-file="$work/munged.log" --seed-file="$work/munged.seed" || fail "munged did not start"
wait_for 20 test -S "$work/munge.socket" || fail "munged's socket did not appear"
cat >"$SLURM_CONF" <<CONF
ClusterName=psinstest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=psins Nodes=$host Default=YES MaxTime=10 State=UP
CONF
slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$host" || fail "slurmd did not start"
wait_for 60 bash -c "sinfo -h -N -o %t | grep -qE '^(idle|mix|alloc)'" || fail "the node did not come up: $(timeout 10 sinfo -N 2>&1)"
say "Slurm is up ($(sinfo -V), node $host)"

# The sweep: a small stencil trace, a 3x2 grid, locally and as a 3-task job array.
trace=$work/app.psins
"$BIN/psins-synth" gen:stencil2d:ranks=8,iters=4,bytes=32KiB -o "$trace"
# One rank per node, so that the network's bandwidth and latency matter.
args=("$trace" -m configs/fat-simple.toml --set machine.cores_per_node=1 --vary "network.bandwidth=1GB/s..4GB/s*2" --vary "network.latency=1us,2us" -q)
env -u SLURM_ARRAY_TASK_ID -u SLURM_ARRAY_TASK_COUNT timeout 300 "$BIN/psins-sim" sweep "${args[@]}" -o "$work/local" -j 1
cat >"$work/sweep.sbatch" <<JOB
#!/bin/bash
#SBATCH --job-name=psins-sweep
#SBATCH --array=0-2
#SBATCH --time=5
#SBATCH --output=$work/job-%A_%a.log
set -euo pipefail
cd "$PWD"
"$BIN/psins-sim" sweep $(printf '%q ' "${args[@]}") -o "$work/array" -j 1
JOB
timeout 300 sbatch --wait "$work/sweep.sbatch" >"$work/sbatch.out" 2>&1 || fail "the job array failed: $(cat "$work/sbatch.out")"
for i in 0 1 2; do
  [ -f "$work/array/part-$i-of-3.jsonl" ] || fail "array task $i wrote no part-$i-of-3.jsonl"
  grep -q "shard $i/3 (from the Slurm job array)" "$work"/job-*_"$i".log || fail "array task $i did not take its shard from Slurm"
done
timeout 60 "$BIN/psins-sim" sweep merge "$work/array" -q || fail "merge failed"
for f in sweep.csv sweep.jsonl sweep.def.json; do
  cmp "$work/local/$f" "$work/array/$f" || fail "$f of the job array differs from the local sweep"
done
say "passed: 6 points in 3 array tasks, merged = local sweep byte for byte"
