#!/usr/bin/env bash
# Usage: scripts/check-fresh-machine.sh [--keep] [DIR]
#
# Proves the README's contract: on a fresh Debian 12 (bookworm) machine with
# nothing but apt, scripts/test.sh and scripts/run.sh work (scripts/setup.sh
# and scripts/fuzz.sh install what is missing). It debootstraps a NEW minimal
# bookworm chroot into DIR (default: a fresh directory under $TMPDIR or
# /var/tmp; a non-empty DIR is refused), gives it the host's Debian apt
# sources (where LLVM 22 comes from), clones this repository's committed HEAD
# (not the working tree) into its /root, and runs there, as root with a clean
# environment: scripts/test.sh, scripts/run.sh, then a simulated failed setup
# and configure (ninja-build removed, build/build.ninja deleted while
# CMakeCache.txt stays) and scripts/run.sh again, which must recover. It ends
# with a summary (packages installed, test.sh's summary line, run.sh's
# results, durations) and exits non-zero if any step failed. The chroot is
# removed at the end unless --keep is given; its mounts are always undone
# (also on failure or Ctrl-C).
#
# It takes about 4-6 minutes on 2 cores (debootstrap ~1 min, apt ~1 min,
# test.sh ~3 min, run.sh and the recovery seconds), needs root (it re-runs
# itself with sudo otherwise), network access to the Debian mirrors, and about
# 3 GB of disk.
# It is not part of scripts/test.sh.
set -euo pipefail

keep=0
dir=
for arg in "$@"; do
  case $arg in
    --keep) keep=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "check-fresh-machine: unknown option $arg" >&2; exit 2 ;;
    *) [ -z "$dir" ] || { echo "check-fresh-machine: one DIR only" >&2; exit 2; }
       dir=$arg ;;
  esac
done

if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "check-fresh-machine: needs root (or sudo)" >&2; exit 1; }
  exec sudo -- "$(readlink -f "$0")" "$@"
fi

repo=$(cd "$(dirname "$(readlink -f "$0")")/.." && git rev-parse --show-toplevel)
head=$(git -C "$repo" -c safe.directory='*' rev-parse HEAD)
start_all=$SECONDS

# 1. debootstrap on the host.
if ! command -v debootstrap >/dev/null 2>&1; then
  echo "=== installing debootstrap on the host"
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap
fi

# 2. The chroot's directory: new, or empty.
if [ -z "$dir" ]; then
  dir=$(mktemp -d "${TMPDIR:-/var/tmp}/tilus-fresh.XXXXXX")
else
  if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
    echo "check-fresh-machine: $dir is not empty; give a new or empty directory" >&2
    exit 2
  fi
  mkdir -p "$dir"
fi
dir=$(cd "$dir" && pwd)
# The chroot's / must be readable by apt's _apt user (mktemp -d makes 0700).
chmod 755 "$dir"

# The mirror for debootstrap: the first URI the host's apt uses for the
# bookworm suite (deb822 .sources or one-line sources.list), else
# deb.debian.org.
mirror=
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  mirror=$(awk 'BEGIN { RS = ""; FS = "\n" }
    { uris = ""; ok = 0
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^URIs:/) { sub(/^URIs: */, "", $i); split($i, u, " "); uris = u[1] }
        if ($i ~ /^Suites:/ && $i ~ /[ :]bookworm( |$)/) ok = 1
      }
      if (ok && uris != "") { print uris; exit } }' /etc/apt/sources.list.d/debian.sources)
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror=$(awk '$1 == "deb" && $0 ~ / bookworm / { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }' \
             /etc/apt/sources.list | head -n 1)
fi
mirror=${mirror:-http://deb.debian.org/debian}

mounted=()
cleanup() {
  local rc=$? m i busy
  set +e
  trap - EXIT INT TERM
  # Processes still running in the chroot (an interrupted apt-get, a build)
  # hold its mounts busy: stop them first.
  for m in /proc/[0-9]*; do
    [ "$(readlink "$m/root" 2>/dev/null)" = "$dir" ] && kill -TERM "${m#/proc/}" 2>/dev/null
  done
  for i in 1 2 3 4 5 6 7 8 9 10; do
    busy=0
    for m in /proc/[0-9]*; do
      [ "$(readlink "$m/root" 2>/dev/null)" = "$dir" ] && busy=1 && break
    done
    [ "$busy" = 0 ] && break
    sleep 1
  done
  for (( i=${#mounted[@]}-1; i>=0; i-- )); do
    m=${mounted[$i]}
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || echo "check-fresh-machine: could not unmount $m" >&2
  done
  if grep -q " $dir/" /proc/mounts; then
    echo "check-fresh-machine: mounts remain under $dir; not removing it:" >&2
    grep " $dir/" /proc/mounts >&2
    [ "$rc" -ne 0 ] || rc=1
  elif [ "$keep" = 1 ]; then
    echo "chroot kept in $dir"
  else
    if rm -rf --one-file-system "$dir"; then
      echo "chroot $dir removed"
    else
      echo "check-fresh-machine: could not remove all of $dir" >&2
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo "check-fresh-machine: interrupted" >&2; exit 130' INT TERM

echo "=== debootstrap --variant=minbase bookworm $dir $mirror"
t=$SECONDS
debootstrap --variant=minbase bookworm "$dir" "$mirror" >"$dir.debootstrap.log" 2>&1 || {
  tail -n 20 "$dir.debootstrap.log" >&2; rm -f "$dir.debootstrap.log"; exit 1; }
rm -f "$dir.debootstrap.log"
t_debootstrap=$(( SECONDS - t ))

# The host's Debian apt sources (only the Debian ones: others need keys the
# chroot lacks), else bookworm, bookworm-updates and bookworm-security.
rm -f "$dir/etc/apt/sources.list"
copied=0
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  cp /etc/apt/sources.list.d/debian.sources "$dir/etc/apt/sources.list.d/"
  copied=1
fi
if [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
  cp /etc/apt/sources.list "$dir/etc/apt/sources.list"
  copied=1
fi
if [ "$copied" = 0 ]; then
  cat >"$dir/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
fi
cp -L /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true

# 3. The repository at HEAD (the committed state).
echo "=== git clone $repo (HEAD $head) into $dir/root/tilus-mlir"
git -c safe.directory='*' clone -q --no-checkout "$repo" "$dir/root/tilus-mlir"
git -C "$dir/root/tilus-mlir" -c advice.detachedHead=false checkout -q "$head"

# 4. Mounts, undone by cleanup.
for m in proc sys dev dev/pts; do
  mkdir -p "$dir/$m"
  case $m in
    proc) mount -t proc proc "$dir/proc" ;;
    sys) mount -t sysfs sysfs "$dir/sys" ;;
    *) mount --bind "/$m" "$dir/$m" ;;
  esac
  mounted+=("$dir/$m")
done

in_chroot() {
  chroot "$dir" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
    bash -c "cd /root/tilus-mlir && $1"
}
count_packages() { in_chroot "dpkg-query -W -f='\${db:Status-Abbrev}\n' | grep -c '^ii'"; }

logs=$(mktemp -d)
# Runs "$2" in the chroot, its output shown and kept in $logs/$1.log; sets rc.
step() {
  echo "=== [chroot] $2"
  set +e
  in_chroot "$2" 2>&1 | tee "$logs/$1.log"
  rc=${PIPESTATUS[0]}
  set -e
}

pkgs_before=$(count_packages)
failures=0

t=$SECONDS; step test scripts/test.sh; test_rc=$rc; t_test=$(( SECONDS - t ))
pkgs_after_test=$(count_packages)
test_summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$logs/test.log" | tail -n 1 || true)
[ "$test_rc" = 0 ] && [ -n "$test_summary" ] || failures=$(( failures + 1 ))

t=$SECONDS; step run scripts/run.sh; run_rc=$rc; t_run=$(( SECONDS - t ))
run_examples=$(grep -c -- '--emit-artifact' "$logs/run.log" || true)
[ "$run_rc" = 0 ] || failures=$(( failures + 1 ))

# The failed configure: ninja-build gone (setup.sh must reinstall it) and
# build.ninja deleted with CMakeCache.txt left (build.sh must reconfigure).
echo "=== [chroot] simulating a failed setup and configure"
in_chroot 'dpkg -r ninja-build >/dev/null && rm -f build/build.ninja && test -f build/CMakeCache.txt'
t=$SECONDS; step recover scripts/run.sh; recover_rc=$rc; t_recover=$(( SECONDS - t ))
if in_chroot 'dpkg-query -W -f="\${db:Status-Abbrev}" ninja-build | grep -q "^ii" && test -f build/build.ninja'; then
  recovered=yes
else
  recovered=no
fi
[ "$recover_rc" = 0 ] && [ "$recovered" = yes ] || failures=$(( failures + 1 ))
pkgs_after=$(count_packages)
rm -rf "$logs"

verdict() { if [ "$1" = 0 ]; then echo ok; else echo "FAILED (exit $1)"; fi; }
echo
echo "=== check-fresh-machine summary (HEAD ${head:0:12}, chroot $dir, mirror $mirror)"
echo "packages in the chroot: $pkgs_before after debootstrap, $pkgs_after_test after test.sh (+$(( pkgs_after_test - pkgs_before ))), $pkgs_after at the end"
echo "debootstrap:          ${t_debootstrap}s"
echo "scripts/test.sh:      $(verdict "$test_rc"), \"${test_summary:-no summary line}\", ${t_test}s"
echo "scripts/run.sh:       $(verdict "$run_rc"), $run_examples examples compiled to artifacts, ${t_run}s"
echo "recovery run.sh:      $(verdict "$recover_rc"), ninja-build reinstalled and reconfigured: $recovered, ${t_recover}s"
echo "total:                $(( SECONDS - start_all ))s"
if [ "$failures" -ne 0 ]; then
  echo "RESULT: FAILED ($failures step(s))"
  exit 1
fi
echo "RESULT: ok"
