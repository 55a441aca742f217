"""The one exception the rules raise: a rejected action, with a one-line reason."""


class RuleError(ValueError):
    """An action the rules refuse; the message is shown to the table as it is."""
