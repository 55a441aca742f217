"""The build steps pyproject.toml cannot say:

- the translations' .mo files, compiled from the .po sources with Babel (a build
  requirement) whenever the package is built;
- the screen layouts (kv/**/*.kv) and the example games (examples/**/*.jsonl), kept at the
  top level of the checkout, copied into the package (companion/kv, companion/examples),
  where companion/resources.py finds them with importlib.resources.

A wheel (or an sdist's build) gets them in its build folder, so pip installs them with
the package wherever it installs it (a virtual environment, --user, --target). An editable
install (``pip install -e``) gets the .mo files beside their .po in the checkout, where the
editable package is read from, and no copies: the package reads the checkout's kv/ and
examples/. The metadata is in pyproject.toml; MANIFEST.in puts kv/ and examples/ in the
sdist."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# the checkout's top-level folders the build copies into the package
TOP_LEVEL = (("kv", "**/*.kv"), ("examples", "**/*.jsonl"))  # subfolders too


class build_py_with_catalogs(build_py):  # named as setuptools names its commands
    """build_py, then every companion/locale/*/LC_MESSAGES/*.po compiled to its .mo."""

    def run(self) -> None:
        super().run()  # does nothing in an editable install
        sys.path.insert(0, str(HERE))  # the checkout's own compiler (Babel's read_po, write_mo)
        from companion.i18n_tools import compile_catalog

        for po, mo in self._catalogs():
            self.announce(f"compiling {po} -> {mo}", level=2)
            compile_catalog(po, mo)
        if not self.editable_mode:  # no layout or example left from an earlier build
            for folder, _pattern in TOP_LEVEL:
                shutil.rmtree(Path(self.build_lib, "companion", folder), ignore_errors=True)
        for source, built in self._top_level_files():
            self.mkpath(str(built.parent))
            self.copy_file(str(source), str(built))

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

    def _top_level_files(self) -> list[tuple[Path, Path]]:
        """(file, its copy in the build folder's package) of every layout and example
        game; none for an editable install, which reads the checkout's folders."""
        if self.editable_mode:
            return []
        package = Path(self.build_lib, "companion")
        return [
            (source, package / folder / source.relative_to(HERE / folder))
            for folder, pattern in TOP_LEVEL
            for source in sorted((HERE / folder).glob(pattern))
        ]

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not self.editable_mode:
            outputs += [str(mo) for _po, mo in self._catalogs()]
            outputs += [str(built) for _source, built in self._top_level_files()]
        return outputs


setup(cmdclass={"build_py": build_py_with_catalogs})
