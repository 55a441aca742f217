"""Buttons, LEDs and the buzzer on gpiozero's mock pins."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.gpio import PATTERNS, Panel, PanelPins


@pytest.fixture
def factory():
    return MockFactory()


def wait_for(condition, timeout: float = 3.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


def test_end_turn_button_press(factory):
    presses = []
    panel = Panel(pin_factory=factory, on_end_turn=lambda: presses.append("end"))
    try:
        pin = factory.pin(5)
        pin.drive_low()
        pin.drive_high()
        wait_for(lambda: presses == ["end"])
    finally:
        panel.close()


def test_undo_needs_a_hold(factory):
    undos = []
    panel = Panel(pin_factory=factory, on_undo=lambda: undos.append(1), undo_hold=0.1)
    try:
        pin = factory.pin(6)
        pin.drive_low()
        pin.drive_high()  # a brush: nothing
        time.sleep(0.2)
        assert undos == []
        pin.drive_low()
        wait_for(lambda: undos == [1])
        pin.drive_high()
    finally:
        panel.close()


@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_patterns_switch_their_outputs_and_end_off(factory, pattern):
    pins = PanelPins()
    panel = Panel(pins, pin_factory=factory)
    number = {"green": pins.led_green, "red": pins.led_red, "buzzer": pins.buzzer}
    try:
        panel.signal(pattern)
        for blink in PATTERNS[pattern]:
            pin = factory.pin(number[blink.output])
            wait_for(
                lambda pin=pin, b=blink: sum(1 for s in pin.states if s.state) == b.times,
                timeout=10,
            )
            wait_for(lambda pin=pin: pin.state is False, timeout=10)
        # outputs not in the pattern stayed off
        used = {b.output for b in PATTERNS[pattern]}
        for name, n in number.items():
            if name not in used:
                assert not any(s.state for s in factory.pin(n).states)
    finally:
        panel.close()


def test_unknown_pattern_and_pin_clash(factory):
    panel = Panel(pin_factory=factory)
    with pytest.raises(ValueError, match="unknown pattern"):
        panel.signal("fanfare")
    panel.close()
    with pytest.raises(ValueError, match="two devices on one pin"):
        Panel(PanelPins(undo=5), pin_factory=MockFactory())
