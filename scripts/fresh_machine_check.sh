#!/usr/bin/env bash
# The README's `make test` as a new user meets it: on a fresh Debian 12 root
# (`debootstrap --variant=minbase bookworm`) with `make` added and nothing else, then `make docs`
# and the wheel check (scripts/wheel_check.sh) in the same root. .ci/run calls this on every submission; run it
# by hand the same way (as root):
#
#   sudo bash scripts/fresh_machine_check.sh            # tests HEAD of this checkout
#   sudo bash scripts/fresh_machine_check.sh --keep     # leave the root for a look afterwards
#
# What the root gets from this machine, and nothing else: what lets its package clients reach
# the registries (the apt sources and settings, the system CA store, the files that
# SSL_CERT_FILE, SSL_CERT_DIR, PIP_CERT and REQUESTS_CA_BUNDLE name, pip's global configuration),
# copied in as they are and never printed; a clone of the commit with a copy of ../shared beside
# it; and the ccache folder, bind-mounted so that a second run compiles nothing new.
#
# Environment: SAMPAN_FRESH_ROOT (the root's folder; default $TMPDIR/sampan-fresh-root.XXXX),
# SAMPAN_JOBS (compile jobs inside, default 2), CCACHE_DIR (the host's cache to share; default
# ~/.cache/sampan-ccache; SAMPAN_FRESH_CCACHE=0 gives the root no cache, a cold run).
#
# Exit status: 0 all passed; 1 something inside the root failed (set-up, build, tests, docs, wheel);
# 3 the root could not be created for a reason outside the project (debootstrap failed, e.g. the
# Debian mirror is unreachable); 2 wrong usage.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
keep=0
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "fresh_machine_check: unknown argument '$arg' (expected --keep or --help)" >&2; exit 2 ;;
  esac
done

say() { printf 'fresh-root: %s\n' "$*"; }
die() { printf 'fresh-root: error: %s\n' "$*" >&2; exit "${2:-1}"; }
# Registry addresses never reach the log: every URL's host is masked in what the root prints.
mask_hosts() { sed -uE 's#([a-zA-Z][a-zA-Z0-9+.-]*://)[^/[:space:]"'"'"']+#\1<host>#g'; }

[[ $(id -u) -eq 0 ]] || die "must run as root (debootstrap, chroot and mount need it)" 2
[[ -d $repo/.git ]] || die "$repo is not a git checkout" 2

# ---------------------------------------------------------------------------------------------
# Stage timing: every stage prints its wall time; the summary lists them all at the end.
# ---------------------------------------------------------------------------------------------
summary=()
stage_start() { stage_name=$1; stage_t0=$(date +%s); printf '\n== fresh-root stage: %s\n' "$stage_name"; }
stage_end() {
  local seconds=$(( $(date +%s) - stage_t0 ))
  summary+=("$(printf '%-44s %5d s  %s' "$stage_name" "$seconds" "$1")")
  printf '== fresh-root stage: %s: %s in %d s\n' "$stage_name" "$1" "$seconds"
}
print_summary() {
  printf '\n== fresh-root summary (stage, wall time, result)\n'
  local line
  for line in "${summary[@]}"; do printf '  %s\n' "$line"; done
}

# ---------------------------------------------------------------------------------------------
# The root, and cleaning up on every exit path
# ---------------------------------------------------------------------------------------------
root="${SAMPAN_FRESH_ROOT:-}"
if [[ -z $root ]]; then
  root="$(mktemp -d "${TMPDIR:-/var/tmp}/sampan-fresh-root.XXXXXX")"
else
  [[ ! -e $root || -z "$(ls -A "$root")" ]] || die "SAMPAN_FRESH_ROOT=$root exists and is not empty" 2
  mkdir -p "$root"
fi
root="$(cd "$root" && pwd)"
# Inside the root the clone is named like this checkout, with the copy of shared/ beside it.
inner_repo="/src/$(basename "$repo")"

mounted_under_root() { awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts; }
cleanup() {
  local status=$?
  # Deepest first; -l as a last resort for a mount a stray process still holds.
  local m
  for m in $(mounted_under_root | sort -r); do
    umount -R "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true
  done
  if [[ -n "$(mounted_under_root)" ]]; then
    printf 'fresh-root: error: still mounted under %s (left in place, not removed):\n%s\n' \
      "$root" "$(mounted_under_root)" >&2
    exit 1
  fi
  if ((keep)); then
    say "kept the root at $root"
  else
    # Nothing is mounted there any more (checked above); --one-file-system as a second guard.
    rm -rf --one-file-system "$root"
  fi
  print_summary
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------------------------------------
# 1. debootstrap (installed on this machine first if it is missing)
# ---------------------------------------------------------------------------------------------
stage_start "create the Debian 12 root (debootstrap)"
if ! command -v debootstrap >/dev/null 2>&1; then
  say "installing debootstrap on this machine"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; } 2>&1 | mask_hosts \
    || { stage_end "FAILED"; die "debootstrap could not be installed (the Debian mirror unreachable?)" 3; }
fi
# The mirror this machine's apt uses (its first bookworm source), never printed.
mirror="$(
  { cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
      /^URIs:/ { uri = $2 } /^Suites:/ { if ($0 ~ /bookworm( |$)/ && uri != "" && first == "") first = uri }
      /^$/ { uri = "" } END { print first }'
    grep -hE '^deb +(\[[^]]*\] +)?[a-z]+://[^ ]+ +bookworm( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | sed -E 's/^deb +(\[[^]]*\] +)?//' | awk '{ print $1 }'
  } | grep -m1 . || true)"
[[ -n $mirror ]] || mirror="http://deb.debian.org/debian"
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" 2>&1 | mask_hosts; then
  stage_end "FAILED"
  die "debootstrap could not create the root (outside the project: the Debian mirror unreachable?)" 3
fi
stage_end "ok"

# ---------------------------------------------------------------------------------------------
# 2. What lets the root's package clients reach the registries, copied in as it is
# ---------------------------------------------------------------------------------------------
stage_start "registry access, make, the clone and ../shared"
copy_in() {  # copy_in PATH...: files and folders to the same place in the root, links followed
  local path
  for path in "$@"; do
    [[ -e $path ]] || continue
    mkdir -p "$root$(dirname "$path")"
    rm -rf --one-file-system "${root:?}$path"
    cp -rL "$path" "$root$path"
  done
}
rm -f "$root/etc/apt/sources.list"
copy_in /etc/apt/sources.list /etc/apt/sources.list.d /etc/apt/apt.conf.d /etc/apt/trusted.gpg.d \
        /etc/apt/keyrings /etc/apt/auth.conf /etc/apt/auth.conf.d /etc/resolv.conf
# Keyrings the sources name (Signed-By) that are not Debian's own, which the root already has.
for keyring in $(grep -hoE '(Signed-By:|signed-by=)[[:space:]]*/[^] ]+' /etc/apt/sources.list.d/* /etc/apt/sources.list 2>/dev/null \
                 | sed -E 's/^(Signed-By:|signed-by=)[[:space:]]*//' | sort -u); do
  copy_in "$keyring"
done
copy_in /etc/ssl/certs /usr/local/share/ca-certificates /etc/pip.conf /etc/xdg/pip
cert_env=()
for var in SSL_CERT_FILE SSL_CERT_DIR PIP_CERT REQUESTS_CA_BUNDLE; do
  if [[ -n ${!var:-} ]]; then
    copy_in "${!var}"
    cert_env+=("$var=${!var}")
  fi
done

in_root() {  # in_root COMMAND...: run in the root with a clean environment
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb CI="${CI:-}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    DEBIAN_FRONTEND=noninteractive SAMPAN_JOBS="${SAMPAN_JOBS:-2}" \
    CCACHE_DIR=/root/.cache/sampan-ccache "${cert_env[@]}" "$@"
}

mount -t proc proc "$root/proc"
mount -t sysfs sysfs "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
if [[ ${SAMPAN_FRESH_CCACHE:-1} != 0 ]]; then
  host_ccache="${CCACHE_DIR:-$HOME/.cache/sampan-ccache}"
  mkdir -p "$host_ccache" "$root/root/.cache/sampan-ccache"
  mount --bind "$host_ccache" "$root/root/.cache/sampan-ccache"
  say "ccache: the host's cache is bind-mounted (a warm run)"
else
  say "ccache: none shared (SAMPAN_FRESH_CCACHE=0: a cold run)"
fi

if ! { in_root apt-get update -qq && in_root apt-get install -y -qq --no-install-recommends make; } 2>&1 | mask_hosts; then
  stage_end "FAILED"; die "apt-get could not install make inside the root"
fi
commit="$(git -C "$repo" rev-parse HEAD)"
git clone -q --no-hardlinks "$repo" "$root$inner_repo"
git -C "$root$inner_repo" checkout -q --detach "$commit"
if [[ -d $repo/../shared ]]; then
  cp -r "$repo/../shared" "$root$(dirname "$inner_repo")/shared"
else
  say "warning: $repo/../shared does not exist; the tests that read it skip, naming it"
fi
say "testing commit $commit"
stage_end "ok"

# ---------------------------------------------------------------------------------------------
# 3. The README's test command, then the wheel check, inside the root
# ---------------------------------------------------------------------------------------------
failed=()
stage_start "make test (set-up, build, ctest, pytest, notebooks)"
if in_root bash -c 'cd "$1" && make test' _ "$inner_repo" 2>&1 | mask_hosts; then stage_end "ok"; else stage_end "FAILED"; failed+=("make test"); fi

stage_start "make docs (guides and API reference, warnings as errors)"
if in_root bash -c 'cd "$1" && make docs' _ "$inner_repo" 2>&1 | mask_hosts; then stage_end "ok"; else stage_end "FAILED"; failed+=("make docs"); fi

if [[ -f $root$inner_repo/scripts/wheel_check.sh ]]; then
  stage_start "wheel: pip wheel ., install into a new venv, use it"
  if in_root bash -c 'cd "$1" && bash scripts/wheel_check.sh' _ "$inner_repo" 2>&1 | mask_hosts; then
    stage_end "ok"
  else
    stage_end "FAILED"; failed+=("wheel check")
  fi
fi

if ((${#failed[@]})); then
  say "FAILED inside the fresh root: ${failed[*]}"
  exit 1
fi
say "every stage passed inside the fresh root"
