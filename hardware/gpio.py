"""Buttons, LEDs and a buzzer through gpiozero, with named signal patterns.

Pins are BCM numbers. The defaults keep clear of SPI0 (GPIO 8-11, where the MFRC522
sits, with its reset on GPIO 25), the UART (GPIO 14/15) and I2C (GPIO 2/3):

    end turn button  GPIO 5   (to ground; internal pull-up)
    undo button      GPIO 6   (hold for half a second: a brushed button undoes nothing)
    green LED        GPIO 16  (scan accepted)
    red LED          GPIO 20  (dragon attack, knock-out, unknown tag, reader lost)
    buzzer           GPIO 21  (active buzzer)

gpiozero chooses the pin factory (``GPIOZERO_PIN_FACTORY``; ``mock`` on a desktop and
in tests). Button callbacks run on gpiozero's thread: hand them to the main loop.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hardware.pins import PanelPins

if TYPE_CHECKING:
    from gpiozero import LED, Buzzer

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Blink:
    """One output's part of a pattern: ``times`` x (on ``on`` seconds, off ``off`` seconds)."""

    output: str  # "green", "red" or "buzzer"
    on: float
    off: float
    times: int


PATTERNS: dict[str, tuple[Blink, ...]] = {
    "scan_ok": (Blink("green", 0.15, 0.05, 1), Blink("buzzer", 0.05, 0.05, 1)),
    "unknown_tag": (Blink("red", 0.1, 0.1, 2), Blink("buzzer", 0.08, 0.08, 2)),
    "attack": (Blink("red", 0.4, 0.2, 3), Blink("buzzer", 0.3, 0.3, 3)),
    "knocked_out": (Blink("red", 1.5, 0.1, 1), Blink("buzzer", 1.2, 0.1, 1)),
    "reader_lost": (Blink("red", 0.05, 0.45, 5),),
    # a press the table did not take (it came a moment after the turn or the screen
    # changed): three short clicks
    "not_taken": (Blink("buzzer", 0.03, 0.07, 3),),
}


class Panel:
    """The companion's physical controls."""

    def __init__(
        self,
        pins: PanelPins | None = None,
        *,
        on_end_turn: Callable[[], None] | None = None,
        on_undo: Callable[[], None] | None = None,
        undo_hold: float = 0.5,
        bounce: float = 0.05,
        pin_factory: Any = None,
    ) -> None:
        pins = pins or PanelPins()
        used = [pins.end_turn, pins.undo, pins.led_green, pins.led_red, pins.buzzer]
        if len(set(used)) != len(used):
            raise ValueError(f"two devices on one pin: {used}")
        from gpiozero import LED, Button, Buzzer  # only when there is a panel to drive

        self.pins = pins
        self.on_end_turn = on_end_turn
        self.on_undo = on_undo
        kw = {"pin_factory": pin_factory}
        self.end_turn = Button(pins.end_turn, pull_up=True, bounce_time=bounce, **kw)
        self.undo = Button(pins.undo, pull_up=True, hold_time=undo_hold, **kw)
        self.outputs: dict[str, LED | Buzzer] = {
            "green": LED(pins.led_green, **kw),
            "red": LED(pins.led_red, **kw),
            "buzzer": Buzzer(pins.buzzer, **kw),
        }
        self.end_turn.when_pressed = self._end_turn
        self.undo.when_held = self._undo
        # the patterns are played from a thread of their own: gpiozero stops the blink
        # playing and starts a thread per blink, and waits for both, which held the main
        # loop (and so the redrawn table) a millisecond or more per scan, many at a Pi's speed
        self._patterns: queue.SimpleQueue[tuple[Blink, ...] | None] = queue.SimpleQueue()
        self._player = threading.Thread(target=self._play, name="panel-signals", daemon=True)
        self._player.start()

    def _end_turn(self) -> None:
        if self.on_end_turn is not None:
            self.on_end_turn()

    def _undo(self) -> None:
        if self.on_undo is not None:
            self.on_undo()

    def signal(self, pattern: str) -> None:
        """Play a named pattern in the background (a new one replaces what is playing)."""
        try:
            blinks = PATTERNS[pattern]
        except KeyError:
            raise ValueError(f"unknown pattern {pattern!r}; known: {', '.join(PATTERNS)}") from None
        self._patterns.put(blinks)

    def _play(self) -> None:
        while (blinks := self._patterns.get()) is not None:
            for blink in blinks:
                device = self.outputs[blink.output]
                try:
                    device.blink(
                        on_time=blink.on, off_time=blink.off, n=blink.times, background=True
                    )
                except Exception:  # a signal lost, not the thread that plays the next
                    log.exception("the %s output could not play its signal", blink.output)

    def close(self) -> None:
        self._patterns.put(None)  # the patterns asked for before are played first
        self._player.join(timeout=5)
        for device in (self.end_turn, self.undo, *self.outputs.values()):
            device.close()
