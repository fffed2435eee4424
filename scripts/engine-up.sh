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

# A root filesystem of busybox's applets (for images built from the host's own programs), in $1.
busybox_rootfs() {
  mkdir -p "$1/bin" "$1/tmp" "$1/etc"
  cp /bin/busybox "$1/bin/busybox"
  for applet in $(/bin/busybox --list); do
    [ "$applet" = busybox ] || ln -sf busybox "$1/bin/$applet"
  done
  echo 'root:x:0:0:root:/root:/bin/sh' >"$1/etc/passwd"
  chmod 1777 "$1/tmp"
}

# A host program and every library it loads, at their own paths under the root filesystem $1.
copy_program() {
  local f
  for f in "$2" $(ldd "$2" | grep -o '/[^ ]*'); do
    mkdir -p "$1$(dirname "$f")"
    cp -L "$f" "$1$f"
  done
}

# runpod-test/perl-net: busybox and the host's own perl (Debian's perl-base: the interpreter, its libraries and
# modules), for tests that need a UDP client and server: the static busybox nc has no UDP mode.
if ! docker image inspect runpod-test/perl-net:1 >/dev/null 2>&1; then
  if ! command -v perl >/dev/null 2>&1; then
    log "perl is missing: installing Debian's perl-base"
    apt-get install -y -qq perl-base >/dev/null
  fi
  ptmp=$(mktemp -d)
  busybox_rootfs "$ptmp/rootfs"
  perlbin=$(readlink -f "$(command -v perl)")
  # The interpreter, every library it loads, and the perl-base module tree, at their own paths.
  copy_program "$ptmp/rootfs" "$perlbin"
  ln -sf "$perlbin" "$ptmp/rootfs/bin/perl"
  for d in $(perl -e 'print join(" ", grep { -d && m{perl-base} } @INC)'); do
    mkdir -p "$ptmp/rootfs$d"
    cp -a "$d/." "$ptmp/rootfs$d/"
  done
  tar -C "$ptmp/rootfs" -c . | docker import \
    --change 'ENV PATH=/bin' --change 'CMD ["sh"]' - runpod-test/perl-net:1 >/dev/null
  rm -rf "$ptmp"
  log "built runpod-test/perl-net:1"
fi

# runpod-test/bash: busybox and the host's own bash, the stand-in for docker.io/library/bash in the Kubernetes
# documentation's examples (the Indexed Job's bash arrays).
if ! docker image inspect runpod-test/bash:1 >/dev/null 2>&1; then
  btmp=$(mktemp -d)
  busybox_rootfs "$btmp/rootfs"
  bashbin=$(readlink -f /bin/bash)
  copy_program "$btmp/rootfs" "$bashbin"
  [ "$bashbin" = /bin/bash ] || ln -sf "$bashbin" "$btmp/rootfs/bin/bash"
  tar -C "$btmp/rootfs" -c . | docker import \
    --change 'ENV PATH=/bin' --change 'CMD ["bash"]' - runpod-test/bash:1 >/dev/null
  rm -rf "$btmp"
  log "built runpod-test/bash:1"
fi
