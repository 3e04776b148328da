#!/usr/bin/env bash
# The SLURM job array of tools/cluster/, run for real: starts a private single-node SLURM (munged,
# slurmctld, slurmd from Debian's munge and slurm-wlm, all under a scratch folder, on ports of its
# own), submits summarize-array.sbatch as a 3-task array over a folder of generated rank traces,
# waits for it, and checks that every rank's summary was written and analyses like the traces.
# Exits 77 (CTest's skip) with the reason when the daemons are not installed or cannot start
# (no root, no hostname resolution, a port in use).
#
# usage: slurm_array_test.sh RANKSCOPE_EXE DEMO_DIR SOURCE_DIR
set -uo pipefail

exe=$(readlink -f "$1")
demo=$(readlink -f "$2")
src=$(readlink -f "$3")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; dump; exit 1; }

for tool in munged slurmctld slurmd sbatch squeue sacct scontrol; do
  command -v "$tool" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin:/sbin command -v "$tool" >/dev/null 2>&1 \
    || skip "$tool is not installed (apt-get install slurm-wlm munge)"
done
export PATH=$PATH:/usr/sbin:/sbin
[[ $(id -u) -eq 0 ]] || skip "a private slurmd must run as root to start job steps"

work=$(mktemp -d /tmp/rankscope-slurm-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  sleep 0.5
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
dump() {
  for f in "$work"/log/*.log "$work"/out/*.out; do
    [[ -f $f ]] && { echo "--- $f"; tail -n 20 "$f"; }
  done
}
mkdir -p "$work"/{munge,state,spool,log,traces,summaries,out}
chmod 700 "$work/munge"

# munge: a key of our own and a socket in the scratch folder (never the system's).
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" --seed-file="$work/munge/seed" \
  || skip "munged would not start: $(tail -n 3 "$work/log/munged.log" 2>/dev/null)"
pids+=("$(cat "$work/munge/munged.pid")")

host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
cpus=$(nproc)
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 ))
cat >"$work/slurm.conf" <<CONF
ClusterName=rankscopetest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

slurmctld -i -f "$SLURM_CONF" || skip "slurmctld would not start: $(tail -n 3 "$work/log/slurmctld.log" 2>/dev/null)"
for _ in $(seq 50); do [[ -s $work/slurmctld.pid ]] && break; sleep 0.2; done
[[ -s $work/slurmctld.pid ]] && pids+=("$(cat "$work/slurmctld.pid")")
slurmd -f "$SLURM_CONF" || skip "slurmd would not start: $(tail -n 3 "$work/log/slurmd.log" 2>/dev/null)"
for _ in $(seq 50); do [[ -s $work/slurmd.pid ]] && break; sleep 0.2; done
[[ -s $work/slurmd.pid ]] && pids+=("$(cat "$work/slurmd.pid")")

up=
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
  [[ $state == idle* ]] && { up=1; break; }
  sleep 0.5
done
[[ -n $up ]] || skip "the node did not come up (state '${state:-none}'): $(tail -n 3 "$work/log/slurmctld.log" 2>/dev/null)"
echo "SLURM $(sinfo -V) up on $host, port $port"

# Three ranks of the demo job: each array task summarises one file.
cp "$demo"/rank-0.pt.trace.json.gz "$demo"/rank-1.pt.trace.json.gz "$demo"/rank-2.pt.trace.json.gz "$work/traces/"
job=$(cd "$src" && RANKSCOPE="$exe" sbatch --parsable --array=0-2 --chdir="$src" --output="$work/out/%A_%a.out" \
        --export=ALL,RANKSCOPE="$exe",RANKSCOPE_CLUSTER_DIR="$src/tools/cluster" \
        "$src/tools/cluster/summarize-array.sbatch" "$work/traces" "$work/summaries") \
  || fail "sbatch refused the array"
echo "submitted array job $job"
for _ in $(seq 240); do
  [[ -z $(squeue -h -j "$job" 2>/dev/null) ]] && break
  sleep 0.5
done
[[ -z $(squeue -h -j "$job" 2>/dev/null) ]] || fail "the array did not finish in 2 minutes"

for r in 0 1 2; do
  f=$work/summaries/rank-$r.pt.trace.json.gz.rankscope-summary
  [[ -s $f ]] || fail "task $r wrote no summary ($f)"
  grep -q "rank-$r.pt.trace.json.gz -> " "$work"/out/*_"$r".out || fail "task $r's output does not name its file"
done
echo "summaries: $(ls "$work/summaries" | tr '\n' ' ')"

# The summaries analyse like the traces they were written from.
"$exe" analyze --json --time-zone=UTC "$work/traces" >"$work/traces.json" 2>/dev/null
"$exe" analyze --json --time-zone=UTC "$work/summaries" >"$work/summaries.json" 2>/dev/null
command -v python3 >/dev/null || skip "the array ran and wrote every summary, but python3 is missing to compare the analyses"
python3 - "$work/traces.json" "$work/summaries.json" <<'PY' || fail "findings differ between traces and summaries"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for key in ("summary", "findings", "spikes", "ranks"):
    if a[key] != b[key]:
        print("differs:", key); sys.exit(1)
print("findings equal:", len(a["findings"]), "findings,", len(a["ranks"]), "ranks")
PY
echo "PASS"
