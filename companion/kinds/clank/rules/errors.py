"""The one exception the rules raise: a rejected action, with a one-line reason."""

from companion.msg import Refusal


class RuleError(Refusal):
    """An action the rules refuse. ``str()`` is the English reason, starting with the
    action refused ("take: ..."), as scripts and the audit see it; ``localized()`` is the
    reason in the table's language, in its edition's words, for the screen."""
