# Sourced by engine-up.sh and tools-up.sh (each defines log first): install the Debian packages named, when any
# are, with apt-get as root; not root, say which are missing and exit 3.
install_packages() {
  [ $# -gt 0 ] || return 0
  [ "$(id -u)" = 0 ] || { log "missing packages ($*) and not root: install them"; exit 3; }
  log "installing $*"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
