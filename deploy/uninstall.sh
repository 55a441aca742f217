#!/usr/bin/env bash
# Remove the Clank! Table Companion's service and program:
#
#     sudo ./deploy/uninstall.sh [--purge]
#
# The game database, its seal key, the enrolled tags and the backups stay in
# /var/lib/clank-companion and /var/backups/clank-companion: installing again picks
# them up. --purge also removes the settings (/etc/clank-companion), your drop-ins
# for the service and the service account, but still never the games. SPI, the serial port, the Debian packages and
# the console boot are left as they are (other projects may use them).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PURGE=0
case "${1:-}" in
    "") ;;
    --purge) PURGE=1 ;;
    -h | --help)
        sed -n '2,10s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
        exit 0
        ;;
    *) die "unknown option: $1 (see --help)" ;;
esac

require_root
for unit in "$TIMER" "$WEB_SERVICE" "$SERVICE"; do
    if systemctl is-active --quiet "$unit"; then
        systemctl stop "$unit"
        changed "stopped $unit"
    fi
    if systemctl is-enabled --quiet "$unit"; then
        systemctl disable --quiet "$unit"
        changed "no longer starting $unit at boot"
    fi
done
removed_units=0
for unit in "${UNITS[@]}"; do
    if [ -e "$root$UNIT_DIR/$unit" ]; then
        rm -f "$root$UNIT_DIR/$unit"
        changed "removed $UNIT_DIR/$unit"
        removed_units=1
    fi
done
if [ "$removed_units" = 1 ]; then
    systemctl daemon-reload
fi
# remove PATH (under the root) if it is there, and say so: remove PATH MESSAGE
remove() {
    if [ -L "$root$1" ] || [ -e "$root$1" ]; then
        rm -rf "$root$1"
        changed "$2"
    fi
}
remove "$LINK" "removed $LINK"
remove "$OPT" "removed the program $OPT"
if [ "$PURGE" = 1 ]; then
    remove "$UNIT_DIR/$SERVICE.d" "removed your changes to the service ($UNIT_DIR/$SERVICE.d)"
    remove "$UNIT_DIR/$WEB_SERVICE.d" "removed your changes to the phones' page ($UNIT_DIR/$WEB_SERVICE.d)"
    remove "$ETC" "removed the settings $ETC"
    if getent passwd "$SERVICE_USER" >/dev/null; then
        userdel "$SERVICE_USER"
        changed "removed the service account $SERVICE_USER"
    fi
fi
report
say ""
say "Kept: the games, tags and seal key in $STATE and the backups in $BACKUPS."
[ "$PURGE" = 1 ] || say "Kept: the settings in $ETC and the service account $SERVICE_USER (--purge removes them)."
