"""The one build step pyproject.toml cannot say: the translations' .mo files, compiled
from the .po sources with Babel (a build requirement) whenever the package is built.

A wheel (or an sdist's build) gets them in its build folder, so pip installs them with
the package; an editable install (``pip install -e``) gets them beside their .po in the
checkout, where the editable package is read from. The metadata is in pyproject.toml."""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class build_py_with_catalogs(build_py):  # named as setuptools names its commands
    """build_py, then every companion/locale/*/LC_MESSAGES/*.po compiled to its .mo."""

    def run(self) -> None:
        super().run()  # does nothing in an editable install
        sys.path.insert(0, str(HERE))  # the checkout's own compiler (Babel's read_po, write_mo)
        from companion.i18n_tools import compile_catalog

        for po, mo in self._catalogs():
            self.announce(f"compiling {po} -> {mo}", level=2)
            compile_catalog(po, mo)

    def _catalogs(self) -> list[tuple[Path, Path]]:
        """(.po, .mo) of every catalog: the .mo in the build folder, or beside its .po
        for an editable install."""
        package = HERE / self.get_package_dir("companion")
        pairs = []
        for po in sorted(package.glob("locale/*/LC_MESSAGES/*.po")):
            built = po
            if not self.editable_mode:
                built = Path(self.build_lib, "companion", po.relative_to(package))
            pairs.append((po, built.with_suffix(".mo")))
        return pairs

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [str(mo) for _po, mo in self._catalogs()]
        return outputs


setup(cmdclass={"build_py": build_py_with_catalogs})
