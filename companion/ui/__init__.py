"""The touchscreen: Kivy screens over the game controller (layout in the top-level kv/)."""
