"""Private transport shared by every service object."""

from typing import Any, Dict


class Requestor:
    def __init__(self, api_key: str, base_url: str) -> None:
        self.api_key = api_key
        self.base_url = base_url

    def request(self, method: str, path: str, **params: Any) -> Dict[str, Any]:
        return {"method": method, "url": self.base_url + path, "params": params}
