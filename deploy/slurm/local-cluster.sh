#!/usr/bin/env bash
# A one-node Slurm cluster (munged, slurmctld, slurmd) whose state lives in
# one folder, for trying deploy/slurm on a single machine and for the test
# suite. Needs root and Debian's slurm-wlm and munge packages; writes nothing
# outside DIR. Usage:
#   deploy/slurm/local-cluster.sh start DIR   # then: export SLURM_CONF=DIR/slurm.conf
#   deploy/slurm/local-cluster.sh stop DIR
# SLURMCTLD_PORT and SLURMD_PORT pick the ports (default 16817, 16818).
set -euo pipefail
what=${1:?usage: local-cluster.sh start|stop DIR}
dir=${2:?usage: local-cluster.sh start|stop DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
export SLURM_CONF=$dir/slurm.conf

stop() {
  scontrol shutdown >/dev/null 2>&1 || true
  [[ -S $dir/munge/munge.socket ]] && munged --socket="$dir/munge/munge.socket" --stop >/dev/null 2>&1 || true
  # Whatever did not stop within ten seconds is killed: nothing is left running.
  for pidfile in "$dir"/slurmctld.pid "$dir"/slurmd.pid "$dir"/munge/munged.pid; do
    [[ -f $pidfile ]] || continue
    pid=$(cat "$pidfile")
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

if [[ $what == stop ]]; then
  stop
  exit 0
fi
[[ $what == start ]] || { echo "local-cluster.sh: unknown command '$what' (start, stop)" >&2; exit 2; }
for tool in munged mungekey slurmctld slurmd sbatch; do
  command -v "$tool" >/dev/null || { echo "local-cluster.sh: $tool is missing (apt-get install slurm-wlm munge)" >&2; exit 2; }
done
# munged refuses a socket folder others cannot enter.
chmod 755 "$dir"
mkdir -p "$dir"/{munge,spool/ctld,spool/d,log}
chmod 755 "$dir/munge"
[[ -f $dir/munge/munge.key ]] || mungekey -c -k "$dir/munge/munge.key"
node=$(hostname -s)
hardware=$(slurmd -C | head -1)
cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$hardware")
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$hardware")
cat >"$SLURM_CONF" <<EOF
ClusterName=graphlancer
SlurmctldHost=$node
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
SlurmctldPort=${SLURMCTLD_PORT:-16817}
SlurmdPort=${SLURMD_PORT:-16818}
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=$node CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
slurmctld
slurmd
for _ in $(seq 300); do
  [[ $(sinfo -h -o %T 2>/dev/null) == idle ]] && { echo "local-cluster.sh: $node is idle; export SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.1
done
echo "local-cluster.sh: the node did not become idle in 30 s; logs in $dir/log" >&2
stop
exit 2
