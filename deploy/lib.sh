# shellcheck shell=bash disable=SC2034 # some names are used only by the scripts sourcing this
# Shared by install.sh, update.sh and uninstall.sh: where everything goes, the checks,
# and one function per installation step. Every step looks before it leaps, so running
# the installer again changes nothing that is already as it should be.
#
# CLANK_ROOT (empty on a real Pi) puts every file the scripts write under another
# folder; the tests use it, with stand-ins for apt-get, raspi-config and systemctl.

root="${CLANK_ROOT:-}"
root="${root%/}"

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRC=$(cd "$HERE/.." && pwd)

SERVICE_USER=clank
SERVICE_GROUPS=(video render input spi gpio dialout)
OPT=/opt/clank-companion
VENV=$OPT/venv
ETC=/etc/clank-companion
STATE=/var/lib/clank-companion
BACKUPS=/var/backups/clank-companion
UNIT_DIR=/etc/systemd/system
UNITS=(clank-companion.service clank-companion-web.service clank-companion-backup.service
    clank-companion-backup.timer)
SERVICE=clank-companion.service
WEB_SERVICE=clank-companion-web.service
WEB_TOKEN=$STATE/games.db.web-token
BACKUP_SERVICE=clank-companion-backup.service
TIMER=clank-companion-backup.timer
LINK=/usr/local/bin/clank-companion

# Debian packages: the venv and the two compiled Python packages (spidev, RPi.GPIO),
# and what the SDL2 inside Kivy's wheel loads to draw on KMS/DRM (EGL on GBM, OpenGL
# ES, Mesa's V3D driver) and to find the input devices.
PACKAGES=(
    python3-venv python3-dev build-essential
    libegl1 libegl-mesa0 libgles2 libgl1 libgl1-mesa-dri libgbm1 libdrm2 libudev1 libmtdev1
)
# In place of RPi.GPIO (which the mfrc522 package asks for but which fails on a Pi 5):
# the same module on top of lgpio, for Pi 4 and Pi 5 alike.
GPIO_SHIM="rpi-lgpio==0.6"

changes=()
APP_CHANGED=0
UNITS_CHANGED=0
SETTINGS_CHANGED=0
ACCOUNT_CHANGED=0
WEB_CHANGED=0
REBOOT=0
NEW_PIN=""

say() { printf '%s\n' "$*"; }
die() {
    printf 'error: %s\n' "$*" >&2
    exit 1
}
changed() { changes+=("$*"); }

# Stopped by an error halfway: still say what was done; a new run carries on.
report_on_error() {
    local rc=$? c
    if [ "$rc" -ne 0 ] && [ ${#changes[@]} -gt 0 ]; then
        {
            say ""
            say "Stopped by the error above. Changed until then:"
            for c in "${changes[@]}"; do say "  - $c"; done
            say "Running the same command again carries on from there."
        } >&2
    fi
    if [ "$rc" -ne 0 ]; then
        show_pin >&2 # the settings were written: a new run would not show it again
    fi
}

# The new admin PIN, once: the settings keep only its hash.
show_pin() {
    [ -n "$NEW_PIN" ] || return 0
    say ""
    say "Admin PIN for the Settings screen: $NEW_PIN"
    say "Write it down now: it is shown only this once (the settings keep only its hash)."
    NEW_PIN=""
}
trap report_on_error EXIT

require_root() {
    [ "$(id -u)" = 0 ] || die "run this as root: sudo $0"
}

os_field() { # os_field KEY FILE -> the value of KEY= in an os-release file
    sed -n "s/^$1=//p" "$2" | head -n 1 | tr -d '"'
}

# Raspberry Pi OS Bookworm, 64-bit, on a Pi 4 or Pi 5; anything else is refused
# before anything is touched.
check_system() {
    local release="$root/etc/os-release" model_file="$root/proc/device-tree/model"
    local id="" codename="" pretty="" arch model problems=()
    if [ -r "$release" ]; then
        id=$(os_field ID "$release")
        codename=$(os_field VERSION_CODENAME "$release")
        pretty=$(os_field PRETTY_NAME "$release")
    fi
    arch=$(dpkg --print-architecture 2>/dev/null || echo unknown)
    if [ -r "$model_file" ]; then
        model=$(tr -d '\0' <"$model_file")
    else
        model="no Raspberry Pi model ($model_file is missing)"
    fi
    case "$id" in
        debian | raspbian) ;;
        *) problems+=("the system is ${pretty:-unknown}, not Raspberry Pi OS") ;;
    esac
    [ "$codename" = bookworm ] ||
        problems+=("Raspberry Pi OS Bookworm is needed; this is ${codename:-an unknown release}")
    [ "$arch" = arm64 ] || problems+=("the 64-bit system (arm64) is needed; this is $arch")
    case "$model" in
        "Raspberry Pi 4"* | "Raspberry Pi 5"*) ;;
        *) problems+=("a Raspberry Pi 4 or 5 is needed; this is $model") ;;
    esac
    command -v raspi-config >/dev/null ||
        problems+=("raspi-config is missing, so this is not Raspberry Pi OS")
    if [ ${#problems[@]} -gt 0 ]; then
        {
            say "This installer supports Raspberry Pi OS Bookworm (64-bit) on a Raspberry Pi 4 or 5."
            local p
            for p in "${problems[@]}"; do say "  - $p"; done
            say "Nothing was changed."
        } >&2
        exit 2
    fi
    MODEL=$model
    say "Found $MODEL, ${pretty:-Raspberry Pi OS} ($arch)."
}

install_packages() {
    local missing=() p
    for p in "${PACKAGES[@]}"; do
        # shellcheck disable=SC2016 # a dpkg-query format, not a shell expression
        [ "$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)" = installed ] ||
            missing+=("$p")
    done
    [ ${#missing[@]} -gt 0 ] || return 0
    say "Installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    changed "installed the Debian packages ${missing[*]}"
}

setup_account() {
    local g have missing=()
    for g in "${SERVICE_GROUPS[@]}"; do
        getent group "$g" >/dev/null ||
            die "the group $g is missing (Raspberry Pi OS has it); nothing else was changed"
    done
    if ! getent passwd "$SERVICE_USER" >/dev/null; then
        useradd --system --user-group --home-dir "$STATE" --no-create-home \
            --shell /usr/sbin/nologin --comment "Clank! Table Companion" "$SERVICE_USER"
        changed "created the service account $SERVICE_USER"
        ACCOUNT_CHANGED=1
    fi
    have=" $(id -nG "$SERVICE_USER") "
    for g in "${SERVICE_GROUPS[@]}"; do
        case "$have" in
            *" $g "*) ;;
            *) missing+=("$g") ;;
        esac
    done
    if [ ${#missing[@]} -gt 0 ]; then
        usermod --append --groups "$(
            IFS=,
            echo "${missing[*]}"
        )" "$SERVICE_USER"
        changed "added $SERVICE_USER to the groups ${missing[*]}"
        ACCOUNT_CHANGED=1
    fi
}

# The companion draws on the display itself: a desktop started at boot would hold it.
console_boot() {
    if [ "$(systemctl get-default)" = graphical.target ]; then
        systemctl set-default multi-user.target
        changed "the desktop no longer starts at boot (the companion needs the display)"
        REBOOT=1
    fi
}

# raspi-config's get_* print 0 when the interface is on.
enable_interfaces() {
    if [ "$(raspi-config nonint get_spi)" != 0 ]; then
        raspi-config nonint do_spi 0
        changed "switched on SPI (the MFRC522 reader)"
        REBOOT=1
    fi
    if [ "$(raspi-config nonint get_serial_cons)" = 0 ]; then
        raspi-config nonint do_serial_cons 1
        changed "switched off the login console on the serial port (it would talk over the reader)"
        REBOOT=1
    fi
    if [ "$(raspi-config nonint get_serial_hw)" != 0 ]; then
        raspi-config nonint do_serial_hw 0
        changed "switched on the UART on GPIO 14/15 (the PN532 or RDM6300 reader)"
        REBOOT=1
    fi
}

# ensure_dir PATH OWNER:GROUP MODE: create it if missing; owner and mode always set.
ensure_dir() {
    if [ ! -d "$root$1" ]; then
        mkdir -p "$root$1"
        changed "created $1"
    fi
    chown "$2" "$root$1"
    chmod "$3" "$root$1"
}

make_folders() {
    ensure_dir "$OPT" root:root 0755
    ensure_dir "$ETC" "root:$SERVICE_USER" 0770
    ensure_dir "$STATE" "$SERVICE_USER:$SERVICE_USER" 0750
    ensure_dir "$STATE/kivy" "$SERVICE_USER:$SERVICE_USER" 0750
    ensure_dir "$BACKUPS" "$SERVICE_USER:$SERVICE_USER" 0750
}

# The parts of the project that make up the installed program.
APP_FILES=(pyproject.toml setup.py README.md companion hardware kv examples)

# What was installed last time: the source files and the pip steps below.
source_fingerprint() {
    (
        cd "$SRC" || exit 1
        find "${APP_FILES[@]}" -type f ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1
    )
}

install_app() {
    local venv="$root$VENV" stamp="$root$OPT/installed-from" want py
    py="$venv/bin/python"
    want="$(source_fingerprint) $GPIO_SHIM"
    if [ ! -x "$py" ]; then
        python3 -m venv "$venv"
        changed "created the Python environment $VENV"
    fi
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
        return 0
    fi
    say "Installing the companion from $SRC (this takes a few minutes the first time) ..."
    # pip builds from a copy, so nothing in your copy of the project becomes root's
    rm -rf "$root$OPT/src"
    mkdir -p "$root$OPT/src"
    (cd "$SRC" && cp -R "${APP_FILES[@]}" "$root$OPT/src/")
    find "$root$OPT/src" -name __pycache__ -prune -exec rm -rf {} +
    "$py" -m pip install --quiet --upgrade pip
    "$py" -m pip uninstall --quiet --yes clank-companion
    "$py" -m pip install --quiet "$root$OPT/src[pi]"
    # mfrc522 brought RPi.GPIO; rpi-lgpio provides the same module and works on the Pi 5.
    "$py" -m pip uninstall --quiet --yes RPi.GPIO
    "$py" -m pip install --quiet --force-reinstall --no-deps "$GPIO_SHIM"
    "$py" -m pip install --quiet "lgpio>=0.2.2"
    # The package's build put the screen layouts and example games under
    # $VENV/share/clank-companion and compiled the translations (setup.py).
    printf '%s\n' "$want" >"$stamp"
    changed "installed the companion ($("$venv/bin/clank-companion" --version)) into $VENV"
    APP_CHANGED=1
}

link_command() {
    if [ "$(readlink "$root$LINK" 2>/dev/null)" != "$VENV/bin/clank-companion" ]; then
        mkdir -p "$(dirname "$root$LINK")"
        ln -sfn "$VENV/bin/clank-companion" "$root$LINK"
        changed "linked the clank-companion command into $(dirname "$LINK")"
    fi
}

valid_reader() {
    [[ "$1" =~ ^[a-z0-9]+([:,][A-Za-z0-9_./=,:-]*)?$ ]]
}

# A new admin PIN: 6 digits, each of the million equally likely (Python's secrets: the
# system's random source, drawn without the bias of a remainder).
new_pin() {
    local pin
    pin=$("$root$VENV/bin/python" -c 'import secrets
print(f"{secrets.randbelow(10**6):06d}")') || die "could not draw an admin PIN"
    [[ "$pin" =~ ^[0-9]{6}$ ]] || die "could not draw an admin PIN"
    printf '%s' "$pin"
}

# The admin PIN as the settings keep it: a salted scrypt hash made by the installed
# companion (companion.pin). The PIN goes in on stdin, never on a command line.
pin_hash() {
    printf '%s' "$1" | "$root$VENV/bin/python" -c 'import sys
from companion.pin import hash_pin
print(hash_pin(sys.stdin.read()))'
}

# READER (optional): the reader spec; ROTATE (optional): 0, 90, 180 or 270.
write_settings() {
    local file="$root$ETC/config.toml" pin hashed current
    if [ ! -f "$file" ]; then
        pin=$(new_pin)
        hashed=$(pin_hash "$pin") || die "could not hash the admin PIN with the companion"
        # the settings keep only the hash: the PIN is shown once, at the end
        sed -e "s|@READER@|${READER:-mfrc522}|" -e "s|@ADMIN_PIN_HASH@|$hashed|" \
            "$HERE/config.toml" >"$file.new"
        mv "$file.new" "$file"
        changed "wrote the settings $ETC/config.toml (reader ${READER:-mfrc522}, a new admin PIN)"
        NEW_PIN=$pin # shown once, at the very end (or with the error that stops the run)
        SETTINGS_CHANGED=1
    elif [ -n "${READER:-}" ]; then
        current=$(sed -n 's/^spec *= *"\(.*\)"/\1/p' "$file" | head -n 1)
        if [ "$current" != "$READER" ]; then
            sed -i "s|^spec *= *\".*\"|spec = \"$READER\"|" "$file"
            changed "set the reader to $READER in $ETC/config.toml"
            SETTINGS_CHANGED=1
        fi
    fi
    chown "root:$SERVICE_USER" "$file"
    chmod 0660 "$file"
    if [ "$SETTINGS_CHANGED" = 1 ]; then
        "$root$VENV/bin/python" -c 'import sys
from pathlib import Path
from companion.config import ConfigError, load_config
try:
    load_config(Path(sys.argv[1]))
except ConfigError as e:
    sys.exit(str(e))' "$file" || die "the companion refuses the settings in $ETC/config.toml"
    fi
}

# Kivy's own settings: exactly one touch input (no duplicate touches), no cursor, no
# Escape-to-quit, and the screen rotation (kept from last time unless ROTATE is given).
write_kivy_settings() {
    local file="$root$STATE/kivy/config.ini" rotation="${ROTATE:-}"
    if [ -z "$rotation" ] && [ -f "$file" ]; then
        rotation=$(sed -n 's/^rotation = //p' "$file" | head -n 1)
    fi
    rotation=${rotation:-0}
    sed -e "s/^rotation = .*/rotation = $rotation/" "$HERE/kivy-config.ini" >"$file.new"
    if cmp -s "$file.new" "$file"; then
        rm "$file.new"
    else
        mv "$file.new" "$file"
        changed "wrote Kivy's settings $STATE/kivy/config.ini (screen rotation $rotation)"
        SETTINGS_CHANGED=1
    fi
    chown "$SERVICE_USER:$SERVICE_USER" "$file"
    chmod 0640 "$file"
}

# The players' phones (clank-companion-web.service, docs/phones.md): a settings file
# without a [web] section (written before there was one) gets the one a new
# installation has, listening on the network.
web_settings() {
    local file="$root$ETC/config.toml"
    grep -q '^\[web\]' "$file" && return 0
    cat >>"$file" <<'EOF'

[web]
# the read-only page for the players' phones (clank-companion-web.service)
enabled = true
address = "0.0.0.0"
port = 8765
EOF
    changed "added the players' phones ([web], port 8765) to $ETC/config.toml"
    WEB_CHANGED=1
}

# [web] enabled in the settings (the installed companion reads them).
web_enabled() {
    "$root$VENV/bin/python" -c 'import sys
from pathlib import Path
from companion.config import load_config
sys.exit(0 if load_config(Path(sys.argv[1])).web.enabled else 1)' "$root$ETC/config.toml"
}

# The phones' token, beside the database: made here, once, because the web unit may
# only read the state folder. Owner-only, like the seal key; a damaged one is replaced.
make_web_token() {
    local file="$root$WEB_TOKEN" token
    if ! grep -Eqx '[A-Za-z0-9_-]{43}' "$file" 2>/dev/null; then
        token=$("$root$VENV/bin/python" -c 'import secrets
print(secrets.token_urlsafe(32))') || die "could not draw the phones' token"
        [[ "$token" =~ ^[A-Za-z0-9_-]{43}$ ]] || die "could not draw the phones' token"
        (umask 077 && printf '%s\n' "$token" >"$file.new")
        mv "$file.new" "$file"
        changed "made the phones' token $WEB_TOKEN (the join link: journalctl -u $WEB_SERVICE)"
    fi
    chown "$SERVICE_USER:$SERVICE_USER" "$file"
    chmod 0600 "$file"
}

install_units() {
    local unit
    for unit in "${UNITS[@]}"; do
        if ! cmp -s "$SRC/systemd/$unit" "$root$UNIT_DIR/$unit"; then
            mkdir -p "$root$UNIT_DIR"
            install -m 0644 "$SRC/systemd/$unit" "$root$UNIT_DIR/$unit"
            changed "installed $UNIT_DIR/$unit"
            UNITS_CHANGED=1
        fi
    done
    if [ "$UNITS_CHANGED" = 1 ]; then
        systemctl daemon-reload
    fi
    for unit in "$SERVICE" "$WEB_SERVICE" "$TIMER"; do
        if ! systemctl is-enabled --quiet "$unit"; then
            systemctl enable --quiet "$unit"
            changed "set $unit to start at boot"
        fi
    done
}

start_services() {
    local what=$((APP_CHANGED + UNITS_CHANGED + SETTINGS_CHANGED + ACCOUNT_CHANGED))
    # the phones' page first (unless [web] turns it off): the kiosk's start comes last
    if ! web_enabled; then
        :
    elif ! systemctl is-active --quiet "$WEB_SERVICE"; then
        systemctl start "$WEB_SERVICE"
        changed "started $WEB_SERVICE"
    elif [ $((APP_CHANGED + UNITS_CHANGED + ACCOUNT_CHANGED + WEB_CHANGED)) -gt 0 ]; then
        systemctl restart "$WEB_SERVICE"
        changed "restarted $WEB_SERVICE with the new version and settings"
    fi
    if ! systemctl is-active --quiet "$SERVICE"; then
        systemctl start "$SERVICE"
        changed "started $SERVICE"
    elif [ "$what" -gt 0 ]; then
        systemctl restart "$SERVICE"
        changed "restarted $SERVICE with the new version and settings"
    fi
    if ! systemctl is-active --quiet "$TIMER"; then
        systemctl start "$TIMER"
        changed "started $TIMER"
    fi
}

# Every step of install.sh and update.sh, in order.
install_all() {
    install_packages
    setup_account
    enable_interfaces
    console_boot
    make_folders
    install_app
    link_command
    write_settings
    web_settings
    make_web_token
    write_kivy_settings
    install_units
    if [ "${NO_START:-0}" = 1 ]; then
        say "Not starting the service (--no-start): sudo systemctl start $SERVICE"
    else
        start_services
    fi
}

report() {
    say ""
    if [ ${#changes[@]} -eq 0 ]; then
        say "Nothing changed: everything was already in place."
    else
        say "Changed:"
        local c
        for c in "${changes[@]}"; do say "  - $c"; done
    fi
    if [ "$REBOOT" = 1 ]; then
        say ""
        say "Restart the Pi (sudo reboot) so that the changes to SPI, the serial port or the"
        say "desktop take effect."
    fi
    show_pin
}
