#!/usr/bin/env bash
# Make a Docker engine available and build the local images runpod's tests and examples use.
# 1. If an engine answers (DOCKER_HOST or the default socket), use it.
# 2. Otherwise, as root on Debian: install docker.io with apt-get when dockerd is missing, start dockerd in
#    the background, and wait until it answers.
# 3. Build local images (no registry is reachable): runpod-test/busybox from Debian's busybox-static.
set -euo pipefail

log() { printf 'engine-up: %s\n' "$*" >&2; }
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
answers() { timeout 5 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

need_pkgs=()
command -v docker >/dev/null 2>&1 || need_pkgs+=(docker.io)

if ! answers; then
  if [ -n "${DOCKER_HOST:-}" ]; then
    log "DOCKER_HOST=$DOCKER_HOST does not answer; unset it to let this script start a local engine"
    exit 3
  fi
  [ "$(id -u)" = 0 ] || { log "no engine answers and this script is not root: start dockerd yourself"; exit 3; }
  command -v dockerd >/dev/null 2>&1 || need_pkgs+=(docker.io)
fi
[ -x /bin/busybox ] || need_pkgs+=(busybox-static)
command -v registry >/dev/null 2>&1 || [ -x /usr/bin/docker-registry ] || need_pkgs+=(docker-registry)
command -v htpasswd >/dev/null 2>&1 || need_pkgs+=(apache2-utils)
# The second-engine tests make TLS certificates for a dockerd on a loopback port; ip makes its bridge.
command -v openssl >/dev/null 2>&1 || need_pkgs+=(openssl)
command -v ip >/dev/null 2>&1 || need_pkgs+=(iproute2)
# The ssh:// engine test starts its own sshd on a loopback port (ssh-keygen, ssh-agent come with it).
[ -x /usr/sbin/sshd ] || need_pkgs+=(openssh-server)

install_packages "${need_pkgs[@]}"

if ! answers; then
  # A dockerd that was killed leaves its pid file; the next one refuses to start until it is gone.
  if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
    rm -f /var/run/docker.pid
  fi
  if ! pgrep -x dockerd >/dev/null; then
    log "starting dockerd (log: /var/log/runpod-dockerd.log)"
    nohup dockerd >/var/log/runpod-dockerd.log 2>&1 </dev/null &
  fi
  for _ in $(seq 1 120); do
    answers && break
    sleep 0.5
  done
  answers || { log "dockerd did not answer within 60s; see /var/log/runpod-dockerd.log"; tail -20 /var/log/runpod-dockerd.log >&2 || true; exit 3; }
  # The API answers a moment before the default bridge has its address; tests reach the host through it.
  for _ in $(seq 1 20); do
    ip -4 addr show docker0 2>/dev/null | grep -q inet && break
    sleep 0.5
  done
fi
log "engine $(docker version --format '{{.Server.Version}}') answers"

# runpod-test/busybox: a root filesystem holding only Debian's static busybox and its applet links.
# Rebuilt only when absent, so the image id stays stable across runs.
if ! docker image inspect runpod-test/busybox:1 >/dev/null 2>&1; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/rootfs/bin" "$tmp/rootfs/tmp" "$tmp/rootfs/etc" "$tmp/rootfs/root" "$tmp/rootfs/var/www"
  cp /bin/busybox "$tmp/rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$tmp/rootfs/bin/$applet"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$tmp/rootfs/etc/passwd"
  echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >>"$tmp/rootfs/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$tmp/rootfs/etc/group"
  chmod 1777 "$tmp/rootfs/tmp"
  tar -C "$tmp/rootfs" -c . | docker import \
    --change 'ENV PATH=/bin' --change 'CMD ["sh"]' - runpod-test/busybox:1 >/dev/null
  log "built runpod-test/busybox:1"
fi

# runpod-test/perl-net: busybox and the host's own perl (Debian's perl-base: the interpreter, its libraries and
# modules), for tests that need a UDP client and server: the static busybox nc has no UDP mode.
if ! docker image inspect runpod-test/perl-net:1 >/dev/null 2>&1; then
  if ! command -v perl >/dev/null 2>&1; then
    log "perl is missing: installing Debian's perl-base"
    apt-get install -y -qq perl-base >/dev/null
  fi
  ptmp=$(mktemp -d)
  mkdir -p "$ptmp/rootfs/bin" "$ptmp/rootfs/tmp" "$ptmp/rootfs/etc"
  cp /bin/busybox "$ptmp/rootfs/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$ptmp/rootfs/bin/$applet"
  done
  perlbin=$(readlink -f "$(command -v perl)")
  # The interpreter, every library it loads, and the perl-base module tree, at their own paths.
  for f in "$perlbin" $(ldd "$perlbin" | grep -o '/[^ ]*') ; do
    mkdir -p "$ptmp/rootfs$(dirname "$f")"
    cp -L "$f" "$ptmp/rootfs$f"
  done
  ln -sf "$perlbin" "$ptmp/rootfs/bin/perl"
  for d in $(perl -e 'print join(" ", grep { -d && m{perl-base} } @INC)'); do
    mkdir -p "$ptmp/rootfs$d"
    cp -a "$d/." "$ptmp/rootfs$d/"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$ptmp/rootfs/etc/passwd"
  chmod 1777 "$ptmp/rootfs/tmp"
  tar -C "$ptmp/rootfs" -c . | docker import \
    --change 'ENV PATH=/bin' --change 'CMD ["sh"]' - runpod-test/perl-net:1 >/dev/null
  rm -rf "$ptmp"
  log "built runpod-test/perl-net:1"
fi
