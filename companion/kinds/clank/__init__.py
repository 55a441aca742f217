"""The Clank! kind: the base game and Catacombs, with the Adventuring Party. Its pure
rules (``rules/``), its catalog (``catalog/``), its table with the fair draw wired in,
its controller, its view and its screens; ``kind`` is what the shared layers see."""

from companion.i18n import edition_words

# the two editions' rulebooks name things differently (companion.i18n); a card or token
# of no edition (a badge) reads in the base game's words
edition_words(("clank", "catacombs"), default="clank")
