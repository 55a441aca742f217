"""The companion's configuration: a TOML file, every key optional.

Where it is looked for, first found wins:

1. ``$CLANK_CONFIG`` (a file path; a file it names must exist, unless it is blank);
2. the desktop user's configuration folder, ``~/.config/clank-companion/config.toml``
   on Linux (platformdirs decides per system);
3. ``/etc/clank-companion/config.toml``, written by the installer for the kiosk service.

With no file at all, the defaults below run the simulated table: the fake reader, mock
GPIO, a database in the user's data folder (``$CLANK_DB`` overrides ``[app] database``;
see ``database_path``). A UTF-8 BOM at the start of the file is allowed. Example::

    [reader]
    spec = "mfrc522:0.0"      # see hardware.readers: fake, mfrc522, rdm6300:PORT, ...
    gone_after = 0.5          # seconds unseen before a tag counts as removed
    window = 1.0              # seconds before the same tag scans again

    [gpio]
    end_turn = 5
    undo = 6
    led_green = 16
    led_red = 20
    buzzer = 21

    [app]
    language = "en"           # en, ru, uk, es; empty or "system": the system locale's
    database = "/var/lib/clank-companion/games.db"
    admin_pin_hash = "scrypt$16384$8$1$..."   # companion.pin.hash_pin; opens Settings

    [web]
    enabled = true            # the read-only page for the players' phones (serve)
    address = "0.0.0.0"       # 127.0.0.1: this machine only; 0.0.0.0: the network
    port = 8765

The admin PIN is kept only as a salted hash (``admin_pin_hash``). An older file's
plain-text ``admin_pin`` (1 to 8 digits) still opens Settings, and is replaced by its
hash the next time the settings are saved; with neither key the PIN is 2468.
"""

from __future__ import annotations

import json
import math
import os
import stat
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from companion.i18n import N_, Msg, Refusal
from hardware.pins import PanelPins

APP = "clank-companion"
SYSTEM_FILE = Path("/etc/clank-companion/config.toml")
LANGUAGES = ("en", "ru", "uk", "es")


class ConfigError(Refusal):
    """A configuration file the companion cannot use; the message names file and key
    (``localized()`` in the table's language)."""


@dataclass(frozen=True)
class ReaderConfig:
    spec: str = "fake"
    gone_after: float = 0.5
    window: float = 1.0


@dataclass(frozen=True)
class AppConfig:
    language: str = ""  # "" (or "system"): the system locale's (LANG), English if not ru/uk/es
    database: str = ""  # empty: the user's data folder
    fullscreen: bool = False  # the kiosk on the Pi: no window frame, no way out but Settings
    # guards Settings (reader, pins, edition numbers, quit): companion.pin's salted hash
    admin_pin_hash: str = ""
    admin_pin: str = ""  # an older file's plain-text PIN: replaced by the hash when saved

    def pin_matches(self, entered: str) -> bool:
        """Whether ``entered`` is the admin PIN (no hash and no PIN: the default)."""
        from companion import pin

        return pin.matches(entered, pin_hash=self.admin_pin_hash, plain=self.admin_pin)


@dataclass(frozen=True)
class WebConfig:
    """``clank-companion serve``, the read-only page for the players' phones."""

    enabled: bool = True
    address: str = "127.0.0.1"  # an IP address: 0.0.0.0 (or ::) listens on every network
    port: int = 8765


@dataclass(frozen=True)
class Config:
    reader: ReaderConfig = field(default_factory=ReaderConfig)
    gpio: PanelPins = field(default_factory=PanelPins)
    app: AppConfig = field(default_factory=AppConfig)
    web: WebConfig = field(default_factory=WebConfig)
    source: str = "defaults"

    @property
    def database(self) -> Path:
        """The game database, as ``database_path`` decides it for this configuration."""
        return database_path(self.app.database)

    @property
    def simulated(self) -> bool:
        return self.reader.spec.split(":", 1)[0].strip() == "fake"


def database_path(configured: str | None = None) -> Path:
    """The game database when no ``--db`` names one, first found wins: ``$CLANK_DB``
    (an explicit override; ``~`` expanded, blank ignored), else the configuration's
    ``[app] database`` (``configured``; None: read the configuration, only if needed),
    else ``games.db`` in the user's data folder. The one place that decides it."""
    override = os.environ.get("CLANK_DB", "")
    if override.strip():
        return Path(override).expanduser()
    if configured is None:
        configured = load_config().app.database
    if configured.strip():
        return Path(configured).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir(APP)) / "games.db"


def _named_config() -> Path | None:
    """The file ``$CLANK_CONFIG`` names (blank: none)."""
    named = os.environ.get("CLANK_CONFIG", "")
    return Path(named) if named.strip() else None


def candidates() -> list[Path]:
    import platformdirs

    found = []
    named = _named_config()
    if named is not None:
        found.append(named)
    found.append(Path(platformdirs.user_config_dir(APP)) / "config.toml")
    found.append(SYSTEM_FILE)
    return found


def _shown(value: Any, limit: int = 60) -> str:
    """A value from the file as a message shows it: on one line (repr escapes line
    breaks and other unprintable characters) and not too long."""
    try:
        text = repr(value)
    except ValueError:  # an integer too long to print
        text = f"<a number of {value.bit_length()} bits>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _typed(where: str, default: Any, value: Any) -> Any:
    """The value, if it has the type of the key's default; else a ConfigError."""
    if isinstance(default, bool):
        ok, want = isinstance(value, bool), N_("true or false")
    elif isinstance(default, str):
        ok, want = isinstance(value, str), N_("text")
    elif isinstance(default, float):
        ok, want = isinstance(value, int | float) and not isinstance(value, bool), N_("a number")
    else:
        ok, want = isinstance(value, int) and not isinstance(value, bool), N_("a whole number")
    if not ok:
        raise ConfigError(
            N_("{where}: expected {want}, got {value}"),
            where=where,
            want=Msg(want),
            value=_shown(value),
        )
    if isinstance(default, float):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond any float
            number = math.inf
        if not math.isfinite(number):  # nan, inf
            raise ConfigError(
                N_("{where}: expected a finite number, got {value}"),
                where=where,
                value=_shown(value),
            )
        return number
    return value


def _section(where: str, cls: type, raw: Any) -> Any:
    if not isinstance(raw, dict):
        raise ConfigError(N_("{where}: expected a table of keys"), where=where)
    known = {f.name: f for f in fields(cls)}
    values = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                N_("{where}: unknown key {key!r} (known: {known})"),
                where=where,
                key=key,
                known=", ".join(known),
            )
        values[key] = _typed(f"{where}.{key}", getattr(cls(), key), value)
    return cls(**values)


def parse_config(text: str, source: str) -> Config:
    """The configuration in ``text`` (read from ``source``, which messages name); a
    ConfigError, its message one line naming file and key, for anything it cannot use."""
    import tomllib

    from companion import pin
    from hardware.readers import SpecError, check_spec

    try:
        raw = tomllib.loads(text.removeprefix("\ufeff"))  # a BOM, as some editors save
    except (ValueError, RecursionError) as e:  # TOMLDecodeError, a number too long
        problem = " ".join(str(e).split())
        raise ConfigError(N_("{where}: {problem}"), where=source, problem=problem) from None
    unknown = set(raw) - {"reader", "gpio", "app", "web"}
    if unknown:
        section = sorted(unknown)[0]
        raise ConfigError(
            N_("{where}: unknown section [{section}]"),
            where=source,
            section=section if section.isprintable() and len(section) <= 60 else _shown(section),
        )
    config = Config(
        reader=_section(f"{source} [reader]", ReaderConfig, raw.get("reader", {})),
        gpio=_section(f"{source} [gpio]", PanelPins, raw.get("gpio", {})),
        app=_section(f"{source} [app]", AppConfig, raw.get("app", {})),
        web=_section(f"{source} [web]", WebConfig, raw.get("web", {})),
        source=source,
    )
    if config.reader.gone_after <= 0 or config.reader.window < 0:
        raise ConfigError(
            N_("{where} [reader]: gone_after must be positive, window not negative"), where=source
        )
    pins = [getattr(config.gpio, f.name) for f in fields(PanelPins)]
    if any(not 0 <= p <= 27 for p in pins) or len(set(pins)) != len(pins):
        raise ConfigError(
            N_("{where} [gpio]: pins are distinct BCM numbers from 0 to 27"), where=source
        )
    try:
        check_spec(config.reader.spec)
    except SpecError as e:
        raise ConfigError(N_("{where} [reader]: {problem}"), where=source, problem=str(e)) from None
    if config.app.language not in (*LANGUAGES, "", "system"):
        raise ConfigError(
            N_('{where} [app]: language must be one of {languages} (or "" for the system\'s)'),
            where=source,
            languages=", ".join(LANGUAGES),
        )
    if not 1 <= config.web.port <= 65535:
        raise ConfigError(
            N_("{where} [web]: port must be a whole number from 1 to 65535"), where=source
        )
    if not _ip_address(config.web.address):
        raise ConfigError(
            N_("{where} [web]: address must be an IP address, such as 0.0.0.0, not {value}"),
            where=source,
            value=_shown(config.web.address),
        )
    app = raw.get("app", {})
    if "admin_pin" in app and not pin.valid_pin(config.app.admin_pin):
        raise ConfigError(
            N_("{where}: the admin PIN must be 1 to {n} digits, got {value}"),
            where=f"{source} [app].admin_pin",
            n=pin.MAX_DIGITS,
            value=_shown(config.app.admin_pin),
        )
    if "admin_pin_hash" in app and not pin.is_pin_hash(config.app.admin_pin_hash):
        raise ConfigError(
            N_("{where}: not an admin PIN hash (scrypt$N$r$p$salt$hash, as Settings writes it)"),
            where=f"{source} [app].admin_pin_hash",
        )
    return config


def _ip_address(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(str(value), ensure_ascii=False)  # a TOML basic string


def config_text(config: Config) -> str:
    """The configuration as TOML, every key written out (the PIN keys only when set)."""
    lines = ["# Clank! Table Companion settings (written by the Settings screen)"]
    for section in ("reader", "gpio", "app", "web"):
        lines.append(f"\n[{section}]")
        part = getattr(config, section)
        for f in fields(part):
            value = getattr(part, f.name)
            if f.name in ("admin_pin", "admin_pin_hash") and not value:
                continue
            lines.append(f"{f.name} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def with_pin_hash(config: Config) -> Config:
    """The configuration with its admin PIN as a hash: a plain-text ``admin_pin`` (or,
    with none, the default PIN) is hashed and dropped; a hash already there stays."""
    app = config.app
    if app.admin_pin_hash and not app.admin_pin:
        return config
    from companion import pin

    hashed = app.admin_pin_hash or pin.hash_pin(app.admin_pin or pin.DEFAULT_PIN)
    return replace(config, app=replace(app, admin_pin_hash=hashed, admin_pin=""))


def save_config(config: Config, path: Path | None = None) -> Path:
    """Write the configuration where it was read from (or the user's file), atomically;
    the text is checked by reading it back first. A plain-text admin PIN is written as
    its hash (``with_pin_hash``)."""
    if path is None:
        source = Path(config.source) if config.source not in ("defaults", "") else None
        import platformdirs

        user_file = Path(platformdirs.user_config_dir(APP)) / "config.toml"
        path = source or _named_config() or user_file
    config = with_pin_hash(config)
    text = config_text(config)
    parse_config(text, str(path))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".new")
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    except OSError as e:
        raise ConfigError(
            N_("{where}: {problem}"), where=str(path), problem=str(e.strerror or e)
        ) from None
    return path


def load_config(path: Path | None = None) -> Config:
    """The configuration from ``path``, else the first file found, else the defaults."""
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(
                N_("{where}: {problem}"), where=str(path), problem=str(e.strerror or e)
            ) from None
        except UnicodeDecodeError as e:
            raise ConfigError(
                N_("{where}: line {line} is not UTF-8 text (byte {byte})"),
                where=str(path),
                line=e.object[: e.start].count(b"\n") + 1,
                byte=f"0x{e.object[e.start]:02x}",
            ) from None
        return parse_config(text, str(path))
    named = _named_config()
    if named is not None:  # asked for by name: it must be there
        try:
            mode = named.stat().st_mode
        except FileNotFoundError:
            raise ConfigError(
                N_("CLANK_CONFIG names {path}, which does not exist"), path=str(named)
            ) from None
        except OSError as e:  # a name too long, a folder that cannot be searched
            raise ConfigError(
                N_("{where}: {problem}"), where=str(named), problem=str(e.strerror or e)
            ) from None
        if stat.S_ISDIR(mode):
            raise ConfigError(
                N_("CLANK_CONFIG names {path}, which is a folder, not a configuration file"),
                path=str(named),
            )
        return load_config(named)
    for candidate in candidates():
        if candidate.is_file():
            return load_config(candidate)
    return Config()
