"""The client. Its stub, client.pyi, is what type checkers read."""

from .retry import RetryPolicy


class Client:
    """A connection to the service."""

    def __init__(self, base_url, timeout=None, retry=None):
        self.base_url = base_url
        self.timeout = timeout
        self.retry = retry or RetryPolicy()

    def get(self, path):
        return (self.base_url, path)


def connect(url, *, timeout=None):
    """Opens a client on `url`."""
    return Client(url, timeout=timeout)


def debug_dump(client):
    """Prints what a client holds. Left out of the stub: type checkers reject its use."""
    print(vars(client))
