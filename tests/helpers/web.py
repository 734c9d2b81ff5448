"""The web extra for the tests of ``trash-play --web``: its server module and Starlette's TestClient, or
the calling test module skipped (a failure when CI is set: CI installs every extra)."""

from __future__ import annotations

import os
import warnings
from typing import Any

import pytest


def web_or_skip() -> tuple[Any, Any]:
    """``(TestClient, agents.commands.web.server)``; called at a test module's top, it skips the module
    where the web extra (or the dev extra's httpx, which the TestClient needs) is missing."""
    try:
        import uvicorn  # noqa: F401 (the extra's server: the browser tests serve the app with it)

        with warnings.catch_warnings():  # Starlette 1.x prefers httpx2 for its TestClient, and works with httpx
            warnings.filterwarnings("ignore", "Using `httpx` with `starlette.testclient`")
            from starlette.testclient import TestClient

        from agents.commands.web import server
    except (ImportError, RuntimeError) as error:  # the web extra; the TestClient's httpx (the dev extra)
        if os.environ.get("CI"):
            raise
        pytest.skip(f"the web extra is not installed: {getattr(error, 'name', None) or error}", allow_module_level=True)
    return TestClient, server
