#!/usr/bin/env bash
# Make the validators the boot-integration tests run available (test/unit/systemd*.test.ts):
#   systemd-analyze (Debian's systemd) checks the units `runpod systemd` writes;
#   cloud-init checks README's #cloud-config example (`cloud-init schema`).
# Idempotent: apt-get runs only when a tool is missing. Nothing is started or enabled: on a machine without a
# running systemd (a container, CI) both tools still work offline on files.
set -euo pipefail

log() { printf 'tools-up: %s\n' "$*" >&2; }
# shellcheck source=lib/apt.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"

need_pkgs=()
command -v systemd-analyze >/dev/null 2>&1 || need_pkgs+=(systemd)
command -v cloud-init >/dev/null 2>&1 || need_pkgs+=(cloud-init)

install_packages "${need_pkgs[@]}"
log "systemd-analyze $(systemd-analyze --version | head -1 | cut -d' ' -f2), cloud-init $(cloud-init --version 2>&1 | awk '{print $2}')"
