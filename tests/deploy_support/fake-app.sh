#!/bin/sh
d="$STATE_DIRECTORY"
echo "$$" >>"$d/starts"
{
    echo "pid=$$"
    echo "state_directory=$STATE_DIRECTORY"
    echo "runtime_directory=$RUNTIME_DIRECTORY"
    echo "pwd=$(pwd)"
    echo "kivy_home=$KIVY_HOME"
    echo "lg_wd=$LG_WD"
    echo "sdl=$SDL_VIDEODRIVER"
    for dir in usr etc; do
        if touch "/$dir/clank-probe" 2>/dev/null; then
            rm -f "/$dir/clank-probe"
            echo "$dir=writable"
        else
            echo "$dir=read-only"
        fi
    done
    if touch "$d/probe" 2>/dev/null; then echo state=writable; else echo state=read-only; fi
    if [ -e @MARKER@ ]; then echo tmp=shared; else echo tmp=private; fi
    echo "net=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\n' ' ')"
    echo "nnp=$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' /proc/self/status)"
    echo "home_entries=$(find /root -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)"
    echo "seccomp=$(sed -n 's/^Seccomp:[[:space:]]*//p' /proc/self/status)"
    echo "proc=$(awk '$5 == "/proc" { print $NF }' /proc/self/mountinfo | tail -n 1)"
    echo end
} >"$d/probe.txt"
while :; do
    if [ -f "$d/exit-code" ]; then
        code=$(cat "$d/exit-code")
        rm -f "$d/exit-code"
        exit "$code"
    fi
    sleep 0.1
done
