#!/usr/bin/env bash
# Install the Clank! Table Companion as a kiosk on Raspberry Pi OS Bookworm (64-bit),
# Raspberry Pi 4 or 5. Run it from a copy of the project:
#
#     sudo ./deploy/install.sh [--reader SPEC] [--rotate 0|90|180|270] [--no-start]
#
#   --reader SPEC   the tag reader: mfrc522 (default), pn532:/dev/serial0,
#                   rdm6300:/dev/serial0 or fake; changes an existing setting too
#   --rotate DEG    turn picture and touch together (kept until given again)
#   --no-start      install everything but do not start the service
#
# Running it again is safe: it changes only what is not yet as it should be, and
# prints what it changed. The game database is never touched.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
    sed -n '2,14s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    exit "${1:-0}"
}

READER=""
ROTATE=""
NO_START=0
while [ $# -gt 0 ]; do
    case "$1" in
        --reader)
            [ $# -ge 2 ] || usage 2
            READER=$2
            shift 2
            ;;
        --rotate)
            [ $# -ge 2 ] || usage 2
            ROTATE=$2
            shift 2
            ;;
        --no-start)
            NO_START=1
            shift
            ;;
        -h | --help) usage 0 ;;
        *)
            say "unknown option: $1" >&2
            usage 2
            ;;
    esac
done
if [ -n "$READER" ] && ! valid_reader "$READER"; then
    die "--reader $READER: not a reader spec (examples: mfrc522, pn532:/dev/serial0)"
fi
case "$ROTATE" in
    "" | 0 | 90 | 180 | 270) ;;
    *) die "--rotate $ROTATE: choose 0, 90, 180 or 270" ;;
esac

require_root
check_system
install_all
report
