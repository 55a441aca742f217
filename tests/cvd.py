"""Colours as a player with a colour vision deficiency sees them, and how far apart.

One player in twelve sees reds and greens alike (deutan, protan) or blues and greens
alike (tritan, rarer). This module simulates the three at full severity (colorspacious'
"sRGB1+CVD" space: Machado et al. 2009) and measures the difference between two colours
as CAM02-UCS distance (deltaE): about 20 apart, two colours are told apart at a glance.

- ``seen(rgb, vision)``: a colour (or an array of them) as ``vision`` sees it.
- ``distance(a, b)``: how far apart two colours look, in CAM02-UCS.
- ``closest(colours, vision)``: the closest two of a set of named colours as ``vision``
  sees them (tests/test_colours.py holds it).
- ``simulate(pixels, vision)``: an image as ``vision`` sees it; ``simulate_png(png)``
  writes a screenshot as each deficiency sees it. Run as a program,

      python -m tests.cvd SHOT.png [...] [--out DIR]

  writes SHOT-deuteranomaly.png, SHOT-protanomaly.png and SHOT-tritanomaly.png beside
  each screenshot (or in DIR), to look at a screen as those players do.

colorspacious and numpy are dev dependencies; Pillow (the PNGs) too.
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import colorspacious
import numpy as np

DEFICIENCIES = ("deuteranomaly", "protanomaly", "tritanomaly")
VISIONS: tuple[str | None, ...] = (None, *DEFICIENCIES)  # None: normal vision
SEVERITY = 100  # the full deficiency (dichromacy): the hardest case


def seen(rgb: Any, vision: str | None) -> np.ndarray:
    """``rgb`` (sRGB, channels 0..1; one colour or an array of them, alpha dropped) as a
    viewer with ``vision`` sees it (None: normal vision)."""
    rgb = np.asarray(rgb, dtype=float)[..., :3]
    if vision is None:
        return rgb
    space = {"name": "sRGB1+CVD", "cvd_type": vision, "severity": SEVERITY}
    return np.clip(colorspacious.cspace_convert(rgb, space, "sRGB1"), 0.0, 1.0)


def distance(a: Any, b: Any) -> float:
    """How far apart two sRGB colours (0..1) look: CAM02-UCS deltaE."""
    a3, b3 = np.asarray(a, dtype=float)[:3], np.asarray(b, dtype=float)[:3]
    return float(colorspacious.deltaE(a3, b3, input_space="sRGB1", uniform_space="CAM02-UCS"))


def distances(colours: Mapping[str, Sequence[float]], vision: str | None) -> dict:
    """Every two of ``colours`` and how far apart ``vision`` sees them."""
    shown = {name: seen(rgb, vision) for name, rgb in colours.items()}
    return {(a, b): distance(shown[a], shown[b]) for a, b in itertools.combinations(shown, 2)}


def closest(colours: Mapping[str, Sequence[float]], vision: str | None) -> tuple:
    """The closest two of ``colours`` as ``vision`` sees them: (distance, a, b)."""
    return min((d, a, b) for (a, b), d in distances(colours, vision).items())


def over(rgba: Sequence[float], below: Sequence[float]) -> tuple[float, float, float]:
    """``rgba`` painted over the opaque colour ``below``: what the screen shows."""
    alpha = rgba[3] if len(rgba) > 3 else 1.0
    r, g, b = (alpha * rgba[i] + (1 - alpha) * below[i] for i in range(3))
    return (r, g, b)


def simulate(pixels: np.ndarray, vision: str) -> np.ndarray:
    """An RGB(A) image (uint8, rows x columns x channels) as ``vision`` sees it."""
    rgb = pixels[..., :3].astype(float) / 255
    out = np.rint(seen(rgb, vision) * 255).astype(np.uint8)
    if pixels.shape[-1] == 4:
        out = np.concatenate([out, pixels[..., 3:]], axis=-1)
    return out


def simulate_png(src: Path, out_dir: Path | None = None) -> list[Path]:
    """Write ``src`` as each deficiency sees it: SRC-<deficiency>.png (in ``out_dir``,
    or beside ``src``)."""
    from PIL import Image

    pixels = np.asarray(Image.open(src).convert("RGBA"))
    written = []
    for vision in DEFICIENCIES:
        dst = (out_dir or src.parent) / f"{src.stem}-{vision}.png"
        dst.parent.mkdir(parents=True, exist_ok=True)
        Image.fromarray(simulate(pixels, vision), "RGBA").save(dst)
        written.append(dst)
    return written


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pngs", nargs="+", type=Path, help="screenshots")
    parser.add_argument("--out", type=Path, default=None, help="folder for the pictures")
    args = parser.parse_args(argv)
    for png in args.pngs:
        for path in simulate_png(png, args.out):
            print(path)


if __name__ == "__main__":
    main()
