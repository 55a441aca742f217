"""Layout files (.kv) read from what their last reading made, not parsed again.

Kivy parses its own rules (``style.kv``: every Label, Button and ScrollView) when it is
first imported, and each of the app's layouts when a screen first needs it: some 50 ms
on a desktop, a fifth of a second on a Pi, at every start, for files that never change
between two installs. So what Kivy's parser makes of a file (its rules, with the Python
expressions in them compiled) is kept in Kivy's home folder, under a key of the file's
text, its name, Kivy's version and Python's, and loaded at the next start instead: the
rules are the same objects a parse makes. A file changed, a new Kivy or a new Python is
another key: parsed again and kept again. A kept reading that cannot be loaded is
parsed again, and the layout's directives (``#:import``, ``#:set``, ``#:include``) are
carried out as a parse carries them out.

The kept readings hold compiled code, as Python's own ``__pycache__`` does, in a folder
of the same user's: whoever may write there may change the app's code anyway.

``install`` must come before Kivy's language is imported (``kivy.lang``): Kivy parses
``style.kv`` as that import ends.
"""

from __future__ import annotations

import contextlib
import copyreg
import hashlib
import importlib.abc
import importlib.machinery
import io
import marshal
import os
import pickle
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

PARSER = "kivy.lang.parser"
FORMAT = 1  # the kept reading's layout: another value is another key
STATE = ("rules", "templates", "root", "sourcecode", "directives", "dynamic_classes")
# what a reading is made of, and all that loading one may call: the parser's rules and
# selectors, an ordered dictionary, a compiled expression
_CLASSES = ("ParserRule", "ParserRuleProperty", "ParserSelector", "ParserSelectorId",
            "ParserSelectorClass", "ParserSelectorName")  # fmt: skip
READING = {(PARSER, name) for name in _CLASSES} | {
    ("collections", "OrderedDict"),
    ("marshal", "loads"),
}
_folder: Path | None = None
stats = {"kept": 0, "parsed": 0}  # readings loaded, files parsed (the tests read them)


def install(folder: Path | None = None) -> None:
    """Kivy's parser keeps its readings in ``folder`` (default: ``kv-cache`` in Kivy's
    home folder) from now on; before ``kivy.lang`` is imported, ``style.kv`` too."""
    global _folder
    if folder is None:
        import kivy

        folder = Path(kivy.kivy_home_dir) / "kv-cache"
    _folder = folder
    module = sys.modules.get(PARSER)
    if module is not None:
        _patch(module.Parser)
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


class _Finder(importlib.abc.MetaPathFinder):
    """Patches Kivy's parser as its module is imported, before the module that imports
    it (Kivy's builder) parses ``style.kv``."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        if name != PARSER:
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        loader = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return loader.create_module(spec)

            def exec_module(self, module: types.ModuleType) -> None:
                loader.exec_module(module)
                _patch(module.Parser)

        spec.loader = Loader()
        return spec


def _patch(parser_class: Any) -> None:
    if getattr(parser_class, "_kept_readings", False):
        return
    parse = parser_class.parse

    def kept_parse(self: Any, content: str) -> None:
        key = _key(self.filename, content)
        if _folder is not None and _load(self, key):
            stats["kept"] += 1
            self.execute_directives()  # what a parse does besides its rules
            return
        parse(self, content)
        stats["parsed"] += 1
        if _folder is not None:
            _keep(self, key)

    parser_class.parse = kept_parse
    parser_class._kept_readings = True


def _key(filename: str | None, content: str) -> str:
    import kivy

    h = hashlib.sha256()
    for part in (str(FORMAT), kivy.__version__, sys.version, filename or "", content):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def _code(code: types.CodeType) -> tuple[Any, tuple[bytes]]:
    return marshal.loads, (marshal.dumps(code),)


class _Pickler(pickle.Pickler):
    """The parser itself is not kept: its rules point at it, and get the new one."""

    def __init__(self, file: Any, parser: Any) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.parser = parser
        self.dispatch_table = copyreg.dispatch_table.copy()
        self.dispatch_table[types.CodeType] = _code

    def persistent_id(self, obj: Any) -> Any:
        return "parser" if obj is self.parser else None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: Any, parser: Any) -> None:
        super().__init__(file)
        self.parser = parser

    def persistent_load(self, pid: Any) -> Any:
        if pid != "parser":
            raise pickle.UnpicklingError(f"unknown reference {pid!r}")
        return self.parser

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in READING:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of a reading")


def _plain(value: Any) -> bool:
    """Whether a value a parse computed is a plain one (kept as it is: a constant of the
    layout), not an object that may depend on the moment it was made."""
    if value is None or isinstance(value, str | bytes | bool | int | float | types.CodeType):
        return True
    if isinstance(value, list | tuple):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    return False


def _rules(parser: Any) -> list[Any]:
    rules = list(parser.rules)
    rules += [template for _name, _cls, template in parser.templates]
    if parser.root is not None:
        rules.append(parser.root)
    out = []
    while rules:
        rule = rules.pop()
        if isinstance(rule, tuple):  # (selector, rule) in parser.rules
            rule = rule[-1]
        out.append(rule)
        rules.extend(rule.children)
        rules.extend(c for c in (rule.canvas_root, rule.canvas_before, rule.canvas_after) if c)
    return out


def _keepable(parser: Any) -> bool:
    for rule in _rules(parser):
        for prop in [*rule.properties.values(), *rule.handlers]:
            if not _plain(prop.co_value):
                return False
    return True


def _load(parser: Any, key: str) -> bool:
    assert _folder is not None
    try:
        data = (_folder / key).read_bytes()
        state = _Unpickler(io.BytesIO(data), parser).load()
        if not isinstance(state, dict) or set(state) != set(STATE):
            return False
    except Exception:  # missing, cut short, from another program: parsed again
        return False
    for name in STATE:
        setattr(parser, name, state[name])
    return True


def _keep(parser: Any, key: str) -> None:
    assert _folder is not None
    try:
        if not _keepable(parser):
            return
        buffer = io.BytesIO()
        _Pickler(buffer, parser).dump({name: getattr(parser, name) for name in STATE})
        _folder.mkdir(parents=True, exist_ok=True)
    except Exception:  # not a reading that can be kept: the next start parses again
        return
    try:
        fd, temporary = tempfile.mkstemp(dir=_folder, prefix=".reading-")
    except OSError:  # a read-only home: the next start parses again
        return
    try:
        with open(fd, "wb") as out:
            out.write(buffer.getvalue())
        os.replace(temporary, _folder / key)
    except OSError:  # a full disk: the next start parses again
        with contextlib.suppress(OSError):
            os.unlink(temporary)
