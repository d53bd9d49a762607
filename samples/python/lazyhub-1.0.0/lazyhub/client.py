"""The hub client."""

from ._util import retry_delay
from .transfer import upload


class Client:
    """A session with the hub."""

    def __init__(self, token=None, endpoint=None):
        self.token = token

    def push(self, path, repo_id):
        """Uploads ``path`` to ``repo_id``."""
        return upload(path, repo_id)
