"""Moving files to and from the hub."""


def download(repo_id, filename, *, revision=None):
    """Downloads one file of a repository and returns its local path."""


def upload(path, repo_id):
    """Uploads a local file to a repository."""
