"""Retry settings."""


class RetryPolicy:
    """How often, and how long apart, a failed request is sent again."""

    def __init__(self, attempts=3, backoff=0.5):
        self.attempts = attempts
        self.backoff = backoff
