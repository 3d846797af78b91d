"""Schemathesis hooks for .ci/run: requests carry a player's token, and `revokeCurrentToken`
gets a token of its own, so that revoking it does not leave the rest of the run without a
valid one.

Loaded with SCHEMATHESIS_HOOKS=schemathesis_hooks (this directory on PYTHONPATH); the server's
address is in AVALANCHE_URL.
"""
import json
import os
import urllib.request

import schemathesis


def new_token():
    request = urllib.request.Request(
        os.environ["AVALANCHE_URL"] + "/v1/players",
        data=json.dumps({"name": "Schemathesis"}).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)["token"]


@schemathesis.auth()
class Player:
    """One player's token for the run; a fresh one for each revocation."""

    def get(self, case, ctx):
        return new_token()

    def set(self, case, data, ctx):
        token = data
        if case.method.upper() == "DELETE" and case.path == "/v1/players/me/tokens/current":
            token = new_token()
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {token}"
