#!/usr/bin/env bash
# Update an installed companion to the version in this copy of the project:
#
#     git pull
#     sudo ./deploy/update.sh
#
# It first backs up the game database (with the tags enrolled in it and its seal key)
# to /var/backups/clank-companion, then reinstalls the app, refreshes the service
# files and restarts the companion. The database, the tags and your settings stay.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

case "${1:-}" in
    "") ;;
    -h | --help)
        sed -n '2,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
        exit 0
        ;;
    *) die "unknown option: $1 (see --help)" ;;
esac

require_root
check_system
[ -x "$root$VENV/bin/clank-companion" ] ||
    die "the companion is not installed here yet: sudo ./deploy/install.sh"
if [ -f "$root$STATE/games.db" ]; then
    if systemctl start "$BACKUP_SERVICE"; then
        say "Backed up the game database to $BACKUPS."
    else
        die "the backup failed (journalctl -u $BACKUP_SERVICE); nothing was updated"
    fi
fi
READER=""
ROTATE=""
install_all
report
