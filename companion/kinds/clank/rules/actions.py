"""The action vocabulary: names, fields and their types (the table-script contract).

An action is a plain dict, ``{"do": NAME, field: value, ...}``. ``check_action``
returns it with defaults filled in, or raises RuleError naming what is wrong.
"""

from __future__ import annotations

from typing import Any

from companion.kinds.clank.rules.errors import RuleError
from companion.msg import N_, Msg

# field kinds: "str", "int", "bool", "cards" (list of strings)
_REQUIRED: dict[str, dict[str, str]] = {
    "row": {"cards": "cards"},
    "clank": {"player": "str", "n": "int"},
    "end_turn": {},
    "take": {"card": "str"},
    "attack": {},
    "rage": {"n": "int"},
    "artifact": {"player": "str", "value": "int"},
    "secret": {"player": "str", "name": "str"},
    "token": {"player": "str", "name": "str"},
    "buy": {"player": "str", "item": "str"},
    "gold": {"player": "str", "n": "int"},
    "damage": {"player": "str", "n": "int"},
    "heal": {"player": "str", "n": "int"},
    "depths": {"player": "str", "in": "bool"},
    "escape": {"player": "str"},
    "ghost": {},
    "shrine": {"player": "str"},
    "prisoner": {"player": "str", "name": "str"},
    "cards": {"player": "str", "cards": "cards"},
    "undo": {},
    # extensions beyond the contract
    "seed": {"client_seed": "str"},
    "deck_out": {},
    "removed": {"artifact": "int"},
}
_OPTIONAL: dict[str, dict[str, tuple[str, Any]]] = {
    "end_turn": {"revealed": ("cards", [])},
    "damage": {"voluntary": ("bool", False)},
    "buy": {"coupon": ("bool", False)},
}

ACTION_NAMES = tuple(_REQUIRED)


def _typed(kind: str, value: Any) -> bool:
    if kind == "str":
        return isinstance(value, str) and value.strip() != ""
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    return isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)


_KIND_WORDS = {
    "str": Msg(N_("a non-empty string")),
    "int": Msg(N_("a whole number")),
    "bool": Msg(N_("true or false")),
    "cards": Msg(N_("a list of card names")),
}


def check_action(action: Any) -> dict[str, Any]:
    """Validate an action's shape; the rules check its meaning."""
    if not isinstance(action, dict):
        raise RuleError(N_("an action is a JSON object"))
    name = action.get("do")
    if not isinstance(name, str):
        raise RuleError(N_('an action needs "do" with the action\'s name'))
    if name not in _REQUIRED:
        raise RuleError(N_("unknown action {name!r}"), name=name)
    required = _REQUIRED[name]
    optional = _OPTIONAL.get(name, {})
    out: dict[str, Any] = {"do": name}
    for key, value in action.items():
        if key == "do":
            continue
        kind = required.get(key) or (optional[key][0] if key in optional else None)
        if kind is None:
            raise RuleError(N_("unknown field {key!r}"), during=name, key=key)
        if not _typed(kind, value):
            raise RuleError(
                N_("{key!r} must be {kind}"), during=name, key=key, kind=_KIND_WORDS[kind]
            )
        out[key] = value
    for key in required:
        if key not in out:
            raise RuleError(N_("missing field {key!r}"), during=name, key=key)
    for key, (_, default) in optional.items():
        out.setdefault(key, default.copy() if isinstance(default, list) else default)
    return out
