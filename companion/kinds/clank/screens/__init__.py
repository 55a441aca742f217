"""The Clank! screens: its table, opening, scoring and choices, and their desk."""
