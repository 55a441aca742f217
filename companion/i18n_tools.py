"""The translation catalogs' tools, for developers and the package build (the app never
imports this module; see companion/i18n.py for the translations at run time).

    python -m companion.i18n_tools compile    # every .po to its .mo (./dev does it; setup.py too)
    python -m companion.i18n_tools extract    # every .po up to date with the code

Both use Babel: a dev dependency and a build requirement, never one of the app's. It is
imported inside the functions that need it, so that ``compile`` can say what it found in
an installation that has no Babel (its catalogs were compiled when its wheel was built).
"""

from __future__ import annotations

import importlib.util
import io
import re
import string
import sys
from pathlib import Path
from typing import TypedDict

from companion import i18n
from companion.i18n import DOMAIN

PROJECT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ compiling
def catalogs(locale_dir: Path | None = None) -> list[Path]:
    """Every .po file, one per language."""
    return sorted((locale_dir or i18n.LOCALE_DIR).glob(f"*/LC_MESSAGES/{DOMAIN}.po"))


def mo_data(po: Path) -> bytes:
    """The .mo file of ``po``: its translated entries that are not fuzzy, compiled by
    Babel. A .po that Babel cannot read raises babel.messages.pofile.PoFileError."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(po, "rb") as f:
        catalog = read_po(f, abort_invalid=True)
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def compile_catalog(po: Path, mo: Path) -> bool:
    """Write the .mo of ``po`` to ``mo`` (folders made as needed); False when ``mo``
    already held exactly that, and was left alone."""
    data = mo_data(po)
    if mo.is_file() and mo.read_bytes() == data:
        return False
    mo.parent.mkdir(parents=True, exist_ok=True)
    partial = mo.with_name(mo.name + ".new")
    partial.write_bytes(data)
    partial.replace(mo)  # a reader never sees half a catalog
    return True


def compile_catalogs(locale_dir: Path | None = None) -> list[Path]:
    """Build every ``.mo`` beside its ``.po``; returns those written (up-to-date ones are
    left alone)."""
    return [po.with_suffix(".mo") for po in catalogs(locale_dir)
            if compile_catalog(po, po.with_suffix(".mo"))]  # fmt: skip


def outdated_catalogs(locale_dir: Path | None = None) -> list[Path]:
    """The ``.po`` files whose ``.mo`` is missing or not what compiling them gives."""
    return [po for po in catalogs(locale_dir)
            if not po.with_suffix(".mo").is_file()
            or po.with_suffix(".mo").read_bytes() != mo_data(po)]  # fmt: skip


# ------------------------------------------------------------------ checks
def placeholders(text: str) -> set[str]:
    """The {fields} of a str.format template."""
    try:
        return {name for _t, name, _s, _c in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return {"<malformed>"}


# ------------------------------------------------------------------ extraction
KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "npgettext": ((1, "c"), 2, 3),
    "NC_": ((1, "c"), 2),
    "NN_": (1, 2),
}
EDITION_KEYWORDS = {
    "ed_": (2,),
    "ned_": (2, 3),
    "EN_": (1,),
}  # the message, once per edition context


def source_files(root: Path = PROJECT) -> list[Path]:
    """Where the user-facing strings are: the package's Python files and the kv layouts
    (the shared ones in kv/, a game kind's in its package's kv/)."""
    package = root / "companion"
    return (
        sorted(package.rglob("*.py"))
        + sorted((root / "kv").rglob("*.kv"))
        + sorted(package.rglob("*.kv"))
    )


class Extracted(TypedDict):
    """A message found in the code: its plural (None when it has none), where it is used
    ("path:line") and its translator comments."""

    plural: str | None
    where: list[str]
    comments: list[str]


def edition_contexts() -> tuple[str, ...]:
    """The gettext contexts of ``ed_`` and ``ned_``: every kind's editions with words of
    their own (a kind's ``word_contexts``)."""
    from companion.kinds import editions, kind_of

    found = (c for e in editions() for c in getattr(kind_of(e), "word_contexts", ()))
    return tuple(dict.fromkeys(found))


def extract(root: Path = PROJECT) -> dict[tuple[str | None, str], Extracted]:
    """Every message the code uses, keyed by (context, msgid): its plural and where it
    is used. kv files are read as Python: their ``_("...")`` calls are Python calls."""
    from babel.messages.extract import extract as babel_extract

    found: dict[tuple[str | None, str], Extracted] = {}
    editions = edition_contexts()
    for path in source_files(root):
        for keywords, contexts in ((KEYWORDS, None), (EDITION_KEYWORDS, editions)):
            with open(path, "rb") as f:
                messages = list(
                    babel_extract("python", f, keywords=keywords, comment_tags=("TRANSLATORS:",))
                )
            for lineno, message, comments, context in messages:
                singular, plural = (message, None) if isinstance(message, str) else message[:2]
                for ctx in contexts or (context,):
                    entry = found.setdefault(
                        (ctx, singular), {"plural": plural, "where": [], "comments": []}
                    )
                    entry["where"].append(f"{path.relative_to(root)}:{lineno}")
                    for c in comments:
                        if c not in entry["comments"]:
                            entry["comments"].append(c)
    return found


def update_catalogs(root: Path = PROJECT, locale_dir: Path | None = None) -> list[str]:
    """Bring every .po in line with the code (Babel's update): new messages come in
    untranslated, a changed one keeps its old translation marked fuzzy, unused ones go;
    translator comments stay. Returns a line per change."""
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    template = Catalog(domain=DOMAIN, fuzzy=False)
    for (context, msgid), info in extract(root).items():
        plural = info["plural"]
        where = [(w.rsplit(":", 1)[0], int(w.rsplit(":", 1)[1])) for w in info["where"]]
        template.add(msgid if plural is None else (msgid, plural), locations=where,
                     auto_comments=info["comments"], context=context)  # fmt: skip
    changes = []
    for po in catalogs(locale_dir):
        old = po.read_bytes()
        catalog = read_po(io.BytesIO(old), ignore_obsolete=True)
        before = {(m.context, _singular(m.id)) for m in catalog if m.id}
        template.creation_date = catalog.creation_date  # no churn in the header
        catalog.update(template, update_header_comment=False, keep_user_comments=True)
        after = {(m.context, _singular(m.id)) for m in catalog if m.id}
        lang = po.parent.parent.name
        changes += [f"{lang}: new {c or ''} {m!r}" for c, m in sorted(after - before, key=str)]
        changes += [f"{lang}: gone {c or ''} {m!r}" for c, m in sorted(before - after, key=str)]
        out = io.BytesIO()
        write_po(out, catalog, width=96, ignore_obsolete=True, include_previous=False)
        po.write_bytes(_keep_generated_by(old, out.getvalue()))
    return changes


GENERATED_BY = re.compile(rb'^"Generated-By: [^"\n]*\\n"$', re.MULTILINE)


def _keep_generated_by(old: bytes, new: bytes) -> bytes:
    """``new`` with ``old``'s Generated-By header line: Babel writes its own version there,
    and a newer Babel must not make an up-to-date catalog look changed."""
    kept, written = GENERATED_BY.search(old), GENERATED_BY.search(new)
    if kept is None or written is None:
        return new
    return new[: written.start()] + kept.group(0) + new[written.end() :]


def _singular(msgid: str | tuple[str, ...] | list[str]) -> str:
    """A babel message id's singular: the id itself, or the first of its forms."""
    return msgid if isinstance(msgid, str) else msgid[0]


# ------------------------------------------------------------------ the commands
def _compile() -> int:
    if importlib.util.find_spec("babel") is None:
        # an installation: its wheel's build compiled the catalogs; nothing to compile with
        missing = [po for po in catalogs() if not po.with_suffix(".mo").is_file()]
        if not missing:
            print("Babel is not installed: the catalogs stay as the package's build compiled them")
            return 0
        for po in missing:
            print(f"{po.with_suffix('.mo')} is missing", file=sys.stderr)
        print("compiling the catalogs needs Babel (pip install Babel)", file=sys.stderr)
        return 1
    for mo in compile_catalogs():
        print(f"compiled {mo}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else ""
    if command == "compile":
        return _compile()
    if command == "extract":
        for change in update_catalogs():
            print(change)
        return 0
    print("usage: python -m companion.i18n_tools compile | extract", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
