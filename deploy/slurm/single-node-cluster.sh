#!/bin/bash
# A throw-away single-node Slurm cluster for tests: munged, slurmctld and slurmd from Debian's
# slurm-wlm + munge, everything (key, sockets, conf, state, spool, logs, pid files) inside DIR.
#
#   deploy/slurm/single-node-cluster.sh start DIR   # prints "export SLURM_CONF=DIR/slurm.conf"
#   deploy/slurm/single-node-cluster.sh stop DIR    # safe to call twice, or on a half-started DIR
#
# start: generates a munge key into DIR, runs munged on DIR/munge.socket, writes DIR/slurm.conf
# (this host as its only node with the CPU count and memory `slurmd -C` reports, SlurmUser=root,
# proctrack/linuxproc, task/none, no cgroups, no accounting daemon, two free TCP ports), starts
# slurmctld and slurmd with SLURM_CONF pointing at it, and waits (at most 60 s) until `sinfo`
# shows the node idle. Clients then need only SLURM_CONF=DIR/slurm.conf.
# stop: cancels every job, waits for them to end, kills the daemons by their pid files, then
# any process still carrying SLURM_CONF=DIR/slurm.conf in its environment (slurmstepd and job
# steps outlive slurmd otherwise) — only processes this cluster started.
#
# The daemons' standard streams go to DIR/log/*.out, never to the caller's: a caller reading this
# script's output to its end (a test's pipe) would otherwise wait for the daemons to exit.
# Runs as root (SlurmUser=root: no slurm account, no chown). Nothing is written outside DIR by
# this script; the daemons write nothing outside DIR either with this conf (checked on Debian
# 12's slurm-wlm 22.05 and munge 0.5.15 with `find / -xdev -newer` around a start, a job and a
# stop: only DIR changed).
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
dir=$2

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# The pid in a pid file, if that process still runs the named program.
pid_of() {
  local file=$1 program=$2 pid
  [ -s "$file" ] || return 1
  pid=$(tr -dc '0-9' < "$file")
  pid_alive "$pid" || return 1
  tr '\0' ' ' 2>/dev/null < "/proc/$pid/cmdline" | grep -q "$program" || return 1
  echo "$pid"
}

# Processes whose environment names this cluster's conf (slurmd, slurmstepd, job steps).
cluster_pids() {
  local conf=$1 p
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    tr '\0' '\n' 2>/dev/null < "$p/environ" | grep -qxF "SLURM_CONF=$conf" && echo "${p#/proc/}"
  done
  return 0
}

stop_pid() {
  local pid=$1 i
  pid_alive "$pid" || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do pid_alive "$pid" || return 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
}

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...: poll COMMAND until it succeeds
  local limit=$1 what=$2 i
  shift 2
  for i in $(seq 1 $((limit * 5))); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  echo "single-node-cluster: $what not ready after ${limit}s" >&2
  return 1
}

do_stop() {
  [ -d "$dir" ] || return 0
  dir=$(cd "$dir" && pwd)
  local conf="$dir/slurm.conf" pid i
  if [ -f "$conf" ] && pid_of "$dir/slurmctld.pid" slurmctld >/dev/null; then
    SLURM_CONF=$conf scancel --full --quiet --user=root 2>/dev/null || true
    for i in $(seq 1 100); do
      [ -z "$(SLURM_CONF=$conf squeue --noheader --format=%i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  for name in slurmd slurmctld; do
    if pid=$(pid_of "$dir/$name.pid" "$name"); then stop_pid "$pid"; fi
    rm -f "$dir/$name.pid"
  done
  for pid in $(cluster_pids "$conf"); do stop_pid "$pid"; done
  if pid=$(pid_of "$dir/munged.pid" munged); then stop_pid "$pid"; fi
  rm -f "$dir/munged.pid"
}

# Closes every descriptor above 2 this script inherited (bash's own 255 is close-on-exec), so the
# daemons keep none of the caller's: swift-corelibs-foundation's Process learns that its child
# exited when a socket the child inherited closes, and a daemon holding it would hide the exit.
close_inherited() {
  local fd
  for fd in $(ls /proc/$$/fd); do
    case $fd in 0|1|2|255) ;; *) eval "exec $fd>&-" 2>/dev/null || true ;; esac
  done
}

do_start() {
  close_inherited
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  chmod 0700 "$dir"
  [ "$(id -u)" -eq 0 ] || { echo "single-node-cluster: run as root (SlurmUser=root)" >&2; exit 1; }
  for tool in munged mungekey slurmctld slurmd sinfo; do
    command -v "$tool" >/dev/null || { echo "single-node-cluster: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 1; }
  done
  mkdir -p "$dir/state" "$dir/spool" "$dir/log" "$dir/munge"
  chmod 0700 "$dir/munge"

  # munge: its own key and socket; munged's directory checks want DIR/munge owned by us, 0700.
  [ -s "$dir/munge/munge.key" ] || mungekey --create --keyfile="$dir/munge/munge.key"
  chmod 0400 "$dir/munge/munge.key"
  local socket="$dir/munge/munge.socket"
  if ! pid_of "$dir/munged.pid" munged >/dev/null; then
    munged --force --socket="$socket" --key-file="$dir/munge/munge.key" --pid-file="$dir/munged.pid" \
      --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munged.seed" </dev/null >>"$dir/log/munged.out" 2>&1
  fi
  wait_for 20 munged test -S "$socket"

  # slurm.conf: this host as the only node, as `slurmd -C` sees it.
  local node cpus boards sockets cores threads memory ctld_port slurmd_port
  node=$(hostname -s)
  local line
  line=$(slurmd -C | head -n 1)
  field() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
  cpus=$(field CPUs); boards=$(field Boards); sockets=$(field SocketsPerBoard)
  cores=$(field CoresPerSocket); threads=$(field ThreadsPerCore); memory=$(field RealMemory)
  ctld_port=$(free_port); slurmd_port=$(free_port)
  while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done
  cat > "$dir/slurm.conf.tmp" <<EOF
# Generated by deploy/slurm/single-node-cluster.sh: a throw-away single-node cluster in $dir.
ClusterName=medleytest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MailProg=/bin/true
MinJobAge=3600
KillWait=5
InactiveLimit=0
SlurmdTimeout=60
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus Boards=$boards SocketsPerBoard=$sockets CoresPerSocket=$cores ThreadsPerCore=$threads RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
  mv "$dir/slurm.conf.tmp" "$dir/slurm.conf"
  export SLURM_CONF="$dir/slurm.conf"

  if ! pid_of "$dir/slurmctld.pid" slurmctld >/dev/null; then slurmctld -i </dev/null >>"$dir/log/slurmctld.out" 2>&1; fi
  wait_for 30 slurmctld scontrol ping
  if ! pid_of "$dir/slurmd.pid" slurmd >/dev/null; then slurmd -N "$node" </dev/null >>"$dir/log/slurmd.out" 2>&1; fi
  node_idle() { sinfo --noheader --nodes="$node" --format=%T | grep -qx idle; }
  if ! wait_for 60 "node $node (idle in sinfo)" node_idle; then
    sinfo >&2 || true
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    exit 1
  fi
  echo "export SLURM_CONF=$SLURM_CONF"
}

case $action in
  start)
    # A start that fails half-way stops what it had started.
    trap 'status=$?; if [ "$status" -ne 0 ]; then do_stop || true; fi; exit "$status"' EXIT
    do_start ;;
  stop) do_stop ;;
  *) usage ;;
esac
