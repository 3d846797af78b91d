"""Schemathesis hooks for .ci/run: every request that schemathesis makes with a token gets a
fresh player's, so that an operation like `revokeCurrentToken` does not leave the rest of the
run without a valid token.

Loaded with SCHEMATHESIS_HOOKS=schemathesis_hooks (this directory on PYTHONPATH); the server's
address is in AVALANCHE_URL.
"""
import json
import os
import urllib.request

import schemathesis


@schemathesis.auth(refresh_interval=None)
class FreshPlayer:
    """A new player (and token) for each request."""

    def get(self, case, ctx):
        request = urllib.request.Request(
            os.environ["AVALANCHE_URL"] + "/v1/players",
            data=json.dumps({"name": "Schemathesis"}).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)["token"]

    def set(self, case, data, ctx):
        case.headers = case.headers or {}
        case.headers["Authorization"] = f"Bearer {data}"
