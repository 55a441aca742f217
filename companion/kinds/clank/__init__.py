"""The Clank! kind: the base game and Catacombs, with the Adventuring Party. Its pure
rules (``rules/``), its catalog (``catalog/``), its table with the fair draw wired in,
its controller, its view and its screens; ``kind`` is what the shared layers see."""
