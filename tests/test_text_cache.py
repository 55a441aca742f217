"""A label's words drawn once (companion.ui.text_cache): a text shown again takes the
texture it was drawn in, with the pixels and the lines Kivy's own drawing gives it; a
texture kept is never drawn into again; anything that changes the pixels (the box the
text is wrapped in, the colour, the font) is another texture."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.ui import text_cache


@pytest.fixture
def kept(monkeypatch):
    """The kept textures and the counts of the test's own."""
    from kivy.core.window import Window  # noqa: F401  (an OpenGL context to draw in)

    text_cache.install()
    monkeypatch.setattr(text_cache, "_kept", type(text_cache._kept)())
    monkeypatch.setattr(text_cache, "stats", {"kept": 0, "drawn": 0})
    return text_cache


def label(**kw):
    from kivy.uix.label import Label

    made = Label(**kw)
    made.texture_update()
    return made


def by_kivy(**kw):
    """The same label drawn by Kivy's own texture_update, kept nowhere."""
    from kivy.uix.label import Label

    made = Label(**kw)
    made._label.texture = None
    Label.drawn_by_kivy(made)
    return made


def pixels(made):
    return None if made.texture is None else (tuple(made.texture.size), made.texture.pixels)


def lines(made):
    """The lines Kivy laid the text out in (companion.ui.ink and fold read them)."""
    return [(line.x, line.y, line.w, line.h, line.is_last_line, line.line_wrap,
             [(word.text, word.lw, word.lh) for word in line.words])
            for line in made._label._cached_lines]  # fmt: skip


def show(made, **kw):
    for name, value in kw.items():
        setattr(made, name, value)
    made.texture_update()


TEXTS = st.text(alphabet="ab cdWi.·%0189\n", min_size=1, max_size=24).filter(str.strip)
WIDTHS = st.one_of(st.none(), st.integers(8, 300))


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(first=TEXTS, other=TEXTS, width=WIDTHS, markup=st.booleans(), bold=st.booleans(),
       halign=st.sampled_from(["left", "center", "right"]))  # fmt: skip
def test_a_text_shown_again_has_the_pixels_and_lines_kivy_draws(
    kept, first, other, width, markup, bold, halign
):
    kw = dict(markup=markup, bold=bold, halign=halign, text_size=(width, None))
    made = label(text=first, **kw)
    show(made, text=other)
    before = kept.stats["kept"]
    show(made, text=first)
    if other != first:
        assert kept.stats["kept"] == before + 1  # taken again, not drawn
    fresh = by_kivy(text=first, **kw)
    assert pixels(made) == pixels(fresh)
    assert made.texture_size == fresh.texture_size
    assert lines(made) == lines(fresh)
    assert made.is_shortened == fresh.is_shortened


def test_the_same_text_wrapped_in_another_box_is_drawn_again(kept):
    """The box the text is wrapped in reaches Kivy's options only as it draws: a label
    laid out narrow first (as a layout passes through) then wide is drawn wide."""
    text = "End Red's turn now"
    narrow = label(text=text, text_size=(17, None))
    wide = label(text=text, text_size=(300, None))
    assert wide.texture is not narrow.texture
    assert pixels(wide) == pixels(by_kivy(text=text, text_size=(300, None)))
    show(narrow, text_size=(300, None))
    assert pixels(narrow) == pixels(wide)


def test_a_kept_texture_is_never_drawn_into_again(kept):
    """Kivy draws a new text into the old texture when their sizes match: that texture
    may be showing in another label."""
    one, two = label(text="ab"), label(text="ab")
    assert two.texture is one.texture  # the second took the first's
    shown = pixels(two)
    show(one, text="cd")  # the same size as "ab"
    assert tuple(one.texture.size) == tuple(two.texture.size)
    assert one.texture is not two.texture
    assert pixels(two) == shown
    assert pixels(one) == pixels(by_kivy(text="cd"))


@pytest.mark.parametrize("change", [
    {"color": (1, 0, 0, 1)}, {"bold": True}, {"font_size": 30}, {"halign": "right"},
    {"disabled": True}, {"outline_width": 2},
])  # fmt: skip
@pytest.mark.parametrize("markup", [False, True])
def test_what_changes_the_pixels_is_another_texture(kept, change, markup):
    base = dict(text="Blue 3", text_size=(120, None), markup=markup)
    plain = label(**base)
    changed = label(**base | change)
    assert changed.texture is not plain.texture
    assert pixels(changed) == pixels(by_kivy(**base | change))
    back = label(**base)
    assert back.texture is plain.texture


def test_markup_with_references_is_drawn_each_time(kept):
    """A reference's zone comes from the drawing: such a text is never kept."""
    made = label(text="[ref=odds]All odds[/ref]", markup=True)
    show(made, text="nothing")
    show(made, text="[ref=odds]All odds[/ref]")
    assert made.refs.get("odds")
    assert not kept._kept or all("[ref=" not in k[1] for k in kept._kept)


def test_no_more_than_KEPT_textures_are_kept(kept, monkeypatch):
    monkeypatch.setattr(text_cache, "KEPT", 5)
    made = label(text="0")
    for n in range(1, 12):
        show(made, text=str(n))
    assert len(kept._kept) == 5
    assert [k[1] for k in kept._kept] == ["7", "8", "9", "10", "11"]  # the latest shown
    show(made, text="3")  # dropped: drawn again
    assert kept.stats["drawn"] == 13


def test_the_app_s_window_settings_keep_the_labels_words():
    from kivy.uix.label import Label

    from companion.ui.window_settings import window_settings

    window_settings()
    assert Label._kept_texts
    assert Label.texture_update is not Label.drawn_by_kivy
