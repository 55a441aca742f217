"""The screens around the table, one module each (layout in kv/<screen>.kv): new game,
opening and fairness, scoring, audit, past games, tags, settings; the pop-ups they share
(popups), what the pickers offer (choices) and the little they all use (kit).

Import a screen from its own module: this package re-exports nothing.
"""
