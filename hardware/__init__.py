"""Device adapters that know nothing of Clank!: tag readers, buttons, LEDs, a buzzer.

Every adapter has a fake used by the tests and by the desktop (no hardware) mode.
"""
