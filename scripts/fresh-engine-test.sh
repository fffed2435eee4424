#!/usr/bin/env bash
# Run `npm test` N times in a row (default 3), each on what a freshly made machine has: no engine state at all.
# Before each run the engine is stopped and everything an earlier engine left on the host goes:
#   - /var/lib/docker's contents (images, containers, volumes, networks, the managed containerd's content store),
#     /run/docker (its runtime state: the managed containerd's sockets and tasks, network namespaces, plugins),
#     /var/run/docker.pid and docker.sock, and mounts a killed engine left below those;
#   - the engine's configuration: /etc/docker/daemon.json and key.json (a fresh install has neither);
#   - the host's docker0 and every br-<network id> bridge (a stopped dockerd leaves them; a docker0 made by an
#     earlier engine keeps that engine's address config, which a fresh engine's default bridge does not have);
#   - the engine's iptables rules (the DOCKER chains and the rules naming docker0 or a br- bridge);
#   - runpod's own code cache in this user's cache directory.
# Then `npm test` starts the engine with the project's own script (scripts/engine-up.sh, which builds the test
# images anew) and runs the whole suite.
# For this project's own machines (root, the local dockerd that scripts/engine-up.sh starts), not for a workstation
# whose engine holds anything of value: the engine's earlier state and configuration are moved aside for the runs,
# put back at the end, and the engine is started again on them.
#   bash scripts/fresh-engine-test.sh [N]
#   bash scripts/fresh-engine-test.sh --restore   (after a run that was cut off before it could put the state back)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
state=/var/lib/docker
runtime=/run/docker
config=/etc/docker
# Inside the state directory, not beside it: on these machines it is a mount point, which cannot be renamed.
aside="$state/.before-fresh-runs"
log() { printf 'fresh-engine-test: %s\n' "$*" >&2; }

[ "$runs" = --restore ] || [[ "$runs" =~ ^[1-9][0-9]*$ ]] || { log "usage: bash scripts/fresh-engine-test.sh [N | --restore] (N: how many runs, at least 1)"; exit 2; }
[ "$(id -u)" = 0 ] || { log "must run as root (it stops and starts dockerd)"; exit 2; }
[ -z "${DOCKER_HOST:-}" ] || { log "DOCKER_HOST is set: this script only handles the local engine"; exit 2; }
if [ "$runs" = --restore ]; then
  [ -e "$aside" ] || { log "nothing to restore: $aside does not exist"; exit 2; }
else
  [ ! -e "$aside" ] || { log "$aside exists from a run that was cut off: bash scripts/fresh-engine-test.sh --restore puts it back"; exit 2; }
fi
# dockerd uses a system containerd when its socket is there, and keeps its containers' state in it: that is a
# service of the host, which this script does not stop or empty.
[ ! -S /run/containerd/containerd.sock ] || { log "a system containerd runs (/run/containerd/containerd.sock): its state is not this script's to remove"; exit 2; }

alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# Stop dockerd (it stops its containers and its own containerd first); if it had to be killed, or was killed
# before, what it left running goes too: each container's init process, then the managed containerd.
stop_engine() {
  local pid f
  pid=$(cat /var/run/docker.pid 2>/dev/null || true)
  if alive "$pid"; then
    kill -TERM "$pid"
    for _ in $(seq 1 120); do alive "$pid" || break; sleep 0.5; done
    if alive "$pid"; then log "dockerd $pid did not stop; killing it"; kill -KILL "$pid"; sleep 1; fi
  fi
  for f in "$runtime"/containerd/daemon/io.containerd.runtime.v2.task/moby/*/init.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
  pid=$(cat "$runtime/containerd/containerd.pid" 2>/dev/null || true)
  if alive "$pid"; then
    kill -TERM "$pid"
    for _ in $(seq 1 20); do alive "$pid" || break; sleep 0.5; done
    if alive "$pid"; then kill -KILL "$pid"; sleep 1; fi
  fi
  # A dockerd that was killed leaves its pid file, and the next one refuses to start until it is gone.
  rm -f /var/run/docker.pid
}

# Mounts below a directory (deepest first): a killed engine's overlay, shm and netns mounts.
unmount_below() {
  local m
  for m in $(awk -v d="$1/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
}

# The host's engine bridges: docker0 and the br-<network id> of user-defined networks.
bridges() { ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(docker0|br-[0-9a-f]{12})$' || true; }

# The engine's iptables rules: its chains and every rule that jumps to them or names one of its bridges. dockerd
# makes them again at start; a fresh machine has none.
drop_engine_rules() {
  command -v iptables-save >/dev/null 2>&1 || return 0
  local rules
  rules=$(iptables-save)
  grep -qE 'DOCKER|docker0|br-[0-9a-f]{12}' <<<"$rules" || return 0
  grep -vE 'DOCKER|docker0|br-[0-9a-f]{12}' <<<"$rules" | iptables-restore || log "could not remove the engine's iptables rules"
}

# Everything an engine left on the host, but the earlier state put aside.
empty_state() {
  local b
  unmount_below "$state"
  unmount_below "$runtime"
  find "$state" -mindepth 1 -maxdepth 1 ! -path "$aside" -exec rm -rf {} +
  rm -rf "$runtime" /var/run/docker.sock
  rm -f "$config/daemon.json" "$config/key.json"
  for b in $(bridges); do ip link delete "$b" 2>/dev/null || log "could not delete the bridge $b"; done
  drop_engine_rules
  rm -rf "${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/runpod"
}

# What a fresh machine has, checked before each run: a run on anything else would not be a first run.
check_fresh() {
  local left=()
  [ -z "$(find "$state" -mindepth 1 -maxdepth 1 ! -path "$aside" -print -quit)" ] || left+=("$state is not empty")
  [ ! -e "$runtime" ] || left+=("$runtime exists")
  [ ! -e "$config/daemon.json" ] || left+=("$config/daemon.json exists")
  [ -z "$(bridges)" ] || left+=("bridges: $(bridges | tr '\n' ' ')")
  if [ ${#left[@]} -gt 0 ]; then
    log "not a fresh machine: ${left[*]}"
    exit 1
  fi
}

saved_config="$aside/etc-docker"
restore() {
  local code=$?
  stop_engine
  if [ -e "$aside" ]; then
    empty_state
    if [ -d "$saved_config" ]; then
      for f in daemon.json key.json; do [ ! -e "$saved_config/$f" ] || mv "$saved_config/$f" "$config/$f"; done
      rm -rf "$saved_config"
    fi
    find "$aside" -mindepth 1 -maxdepth 1 -exec mv -t "$state" {} +
    rmdir "$aside"
    log "put the engine's earlier state back in $state; starting it again"
    bash scripts/engine-up.sh >/dev/null || log "the engine did not start on its earlier state: see /var/log/runpod-dockerd.log"
  fi
  exit "$code"
}

if [ "$runs" = --restore ]; then trap restore EXIT; exit 0; fi

stop_engine
unmount_below "$state"
unmount_below "$runtime"
mkdir -p "$state" "$aside"
find "$state" -mindepth 1 -maxdepth 1 ! -path "$aside" -exec mv -t "$aside" {} +
mkdir -p "$saved_config"
for f in daemon.json key.json; do [ ! -e "$config/$f" ] || mv "$config/$f" "$saved_config/$f"; done
trap restore EXIT

for i in $(seq 1 "$runs"); do
  stop_engine
  empty_state
  check_fresh
  log "run $i of $runs: no engine state, no docker0 or br- bridges, no daemon.json"
  started=$(date +%s)
  if ! npm test >"/tmp/fresh-engine-test-$i.log" 2>&1; then
    log "run $i failed after $(($(date +%s) - started))s; see /tmp/fresh-engine-test-$i.log"
    grep -E '^ℹ (tests|pass|fail)' "/tmp/fresh-engine-test-$i.log" >&2 || true
    exit 1
  fi
  # As .ci/run: the suite leaves no runpod container behind (the engine was empty when it began).
  left=$(docker ps -aq --filter label=app.kubernetes.io/managed-by=runpod | wc -l)
  if [ "$left" -gt 0 ]; then
    log "run $i left $left runpod container(s) behind:"
    docker ps -a --filter label=app.kubernetes.io/managed-by=runpod --format '{{.Names}} {{.Status}}' >&2
    exit 1
  fi
  log "run $i passed in $(($(date +%s) - started))s: $(grep -E '^ℹ (pass|fail)' "/tmp/fresh-engine-test-$i.log" | tr '\n' ' ')"
done
log "$runs runs in a row passed, each on a fresh engine"
