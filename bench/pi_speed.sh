#!/usr/bin/env bash
# Run a command (and every process it starts) at about a Raspberry Pi 4's CPU speed: a CPU
# cgroup holds them to a share of one core. A Pi 4's core runs Python three to four times
# slower than a desktop's, so the default share is 25 %. Drawing here is OpenGL in software
# (Mesa's llvmpipe), which the Pi's GPU does instead: figures of drawing are pessimistic,
# figures of Python work about right. Compare with the bare app measured in the same run.
#   bench/pi_speed.sh [--share PERCENT] COMMAND [ARGS...]
# Needs root, and a CPU cgroup (v1 "cpu" or v2).
set -euo pipefail
share=25
if [ "${1:-}" = "--share" ]; then share=${2:-}; shift $(($# < 2 ? $# : 2)); fi
case "$share" in
    [1-9] | [1-9][0-9] | 100) ;;
    *) echo "pi_speed: --share is a whole percent of one core, 1 to 100 (not '$share')" >&2; exit 2 ;;
esac
if [ $# -eq 0 ]; then sed -n 2,8p "$0"; exit 2; fi
period=10000  # us: a fine grain, so a short task is not held for long
quota=$((period * share / 100))
group="companion-pi-speed-$$"
if [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu ]; then
    dir=/sys/fs/cgroup/cpu/$group
    mkdir "$dir"
    echo "$period" > "$dir/cpu.cfs_period_us"
    echo "$quota" > "$dir/cpu.cfs_quota_us"
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup ]; then
    dir=/sys/fs/cgroup/$group
    mkdir "$dir"
    echo "+cpu" > /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true
    echo "$quota $period" > "$dir/cpu.max"
else
    echo "pi_speed: no CPU cgroup this user may write (run as root)" >&2
    exit 2
fi
trap 'rmdir "$dir" 2>/dev/null || true' EXIT
echo "at Pi speed: ${share} % of one core" >&2
set +e
# the command runs in a shell moved into the group first, so all it starts is held too
# (COMPANION_PI_SPEED tells the benchmarks the share they run at)
COMPANION_PI_SPEED=$share bash -c 'echo $$ > "$1/cgroup.procs"; shift; exec "$@"' pi_speed "$dir" "$@"
status=$?
exit $status
