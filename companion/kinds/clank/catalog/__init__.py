"""The card and token catalog and the edition settings, loaded from data files.

The files live in ``companion/kinds/clank/catalog/data/``: ``cards.csv``, ``tokens.csv`` and
``editions.toml``. A table corrects the catalog by editing copies of those files and
pointing ``CLANK_CATALOG_DIR`` at the folder that holds them.
"""

from companion.kinds.clank.catalog.load import (
    UNTAGGED,
    Card,
    Catalog,
    CatalogError,
    EditionSettings,
    Token,
    load_catalog,
)
from companion.kinds.clank.catalog.vprule import VPRule, parse_vp_rule

__all__ = [
    "Card",
    "Catalog",
    "CatalogError",
    "EditionSettings",
    "Token",
    "UNTAGGED",
    "VPRule",
    "load_catalog",
    "parse_vp_rule",
]
