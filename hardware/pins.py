"""The BCM pins of the panel's buttons, LEDs and buzzer: the configuration's ``[gpio]``
section. Kept apart from ``hardware.gpio`` so that reading the configuration does not
load the panel's code."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PanelPins:
    end_turn: int = 5
    undo: int = 6
    led_green: int = 16
    led_red: int = 20
    buzzer: int = 21
