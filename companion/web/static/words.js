// The page's words as the table gives them (/api/words), in the table's language: a
// word's {placeholders} filled in, and a word with a count in the plural form the
// table's language gives that count (Russian and Ukrainian have three). The table says
// which form each count below a few hundred takes; a larger count takes the form of 100
// plus its last two digits, as every plural rule of gettext's languages looks at a
// count's last two digits (companion/web/words.py, PLURALS).

export function fill(text, values) {
  let out = String(text);
  for (const [name, value] of Object.entries(values || {})) {
    out = out.split("{" + name + "}").join(String(value));
  }
  return out;
}

export function word(W, key, values) {
  return fill((W.words || {})[key] ?? key, values);
}

export function pluralIndex(entry, n) {
  const count = Math.abs(Math.trunc(Number(n))) || 0;
  const at = count < entry.pick.length ? count : 100 + (count % 100);
  const index = Number(entry.pick[at]);
  return Number.isInteger(index) && index < entry.forms.length ? index : entry.forms.length - 1;
}

export function plural(W, key, n, values) {
  const entry = (W.plurals || {})[key];
  const all = { n, ...(values || {}) };
  if (!entry || !entry.forms.length) return fill(key, all);
  return fill(entry.forms[pluralIndex(entry, n)], all);
}
