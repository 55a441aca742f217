"""The Tschak! kind: its rules, table, words, controller and screens."""
