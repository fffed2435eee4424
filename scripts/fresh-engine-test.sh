#!/usr/bin/env bash
# Run `npm test` N times in a row (default 5), each on a freshly started Docker engine with an empty state
# directory: what a newcomer's first `npm test` sees. For this project's own machines (root, the local dockerd
# that scripts/engine-up.sh starts), not for a workstation whose engine holds anything of value: the engine's
# state directory is moved aside for the runs and put back at the end.
#   bash scripts/fresh-engine-test.sh [N]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-5}
state=/var/lib/docker
# Inside the state directory, not beside it: on these machines it is a mount point, which cannot be renamed.
aside="$state/.before-fresh-runs"
log() { printf 'fresh-engine-test: %s\n' "$*" >&2; }

[ "$(id -u)" = 0 ] || { log "must run as root (it stops and starts dockerd)"; exit 2; }
[ -z "${DOCKER_HOST:-}" ] || { log "DOCKER_HOST is set: this script only handles the local engine"; exit 2; }
[ ! -e "$aside" ] || { log "$aside exists from an earlier run: move its entries back into $state first"; exit 2; }

stop_engine() {
  local pid
  pid=$(cat /var/run/docker.pid 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 120); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && { log "dockerd $pid did not stop; killing it"; kill -KILL "$pid"; sleep 1; }
  fi
  # A dockerd that was killed leaves its pid file, and the next one refuses to start until it is gone.
  rm -f /var/run/docker.pid
}

# The bridge interfaces of user-defined networks (br-<network id>) that the engine had before: a stopped dockerd
# leaves its bridges on the host, and one whose state is then deleted leaves them for good, each holding one of the
# address pools every engine on the host draws from (about thirty): the runs' leftovers would exhaust them.
bridges() { ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep '^br-' || true; }
bridges_before=$(bridges)

# Everything in the state directory but the earlier state put aside, and the bridges that state's networks had.
empty_state() {
  find "$state" -mindepth 1 -maxdepth 1 ! -path "$aside" -exec rm -rf {} +
  local b
  for b in $(bridges); do
    grep -qx "$b" <<<"$bridges_before" || ip link delete "$b" 2>/dev/null || true
  done
}

restore() {
  stop_engine
  if [ -e "$aside" ]; then
    empty_state
    find "$aside" -mindepth 1 -maxdepth 1 -exec mv -t "$state" {} +
    rmdir "$aside"
    log "put the engine's earlier state back in $state"
  fi
}

stop_engine
mkdir -p "$state" "$aside"
find "$state" -mindepth 1 -maxdepth 1 ! -path "$aside" -exec mv -t "$aside" {} +
trap restore EXIT

for i in $(seq 1 "$runs"); do
  stop_engine
  empty_state
  log "run $i of $runs: a fresh engine, empty $state"
  started=$(date +%s)
  if ! npm test >"/tmp/fresh-engine-test-$i.log" 2>&1; then
    log "run $i failed after $(( $(date +%s) - started ))s; see /tmp/fresh-engine-test-$i.log"
    grep -E '^ℹ (tests|pass|fail)' "/tmp/fresh-engine-test-$i.log" >&2 || true
    exit 1
  fi
  log "run $i passed in $(( $(date +%s) - started ))s: $(grep -E '^ℹ (pass|fail)' "/tmp/fresh-engine-test-$i.log" | tr '\n' ' ')"
done
log "$runs runs in a row passed, each on a fresh engine"
