class Client:
    """The 1.x client: `Client(api_key=...).completions.create(...)`."""

    def __init__(self, api_key=None, timeout=60.0):
        self.api_key = api_key
        self.timeout = timeout
