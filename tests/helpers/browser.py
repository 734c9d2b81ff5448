"""A headless Chromium (Debian's /usr/bin/chromium) driven by Playwright, for the browser tests:
skipped when either is missing, a failure when the environment variable CI is set (CI installs both)."""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


def chromium() -> str | None:
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


@contextlib.contextmanager
def headless_chromium() -> Iterator[Any]:
    """A launched Playwright browser, closed afterwards (or the test skipped, or failed under CI)."""
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "Playwright is not installed (pip install playwright, in the dev extra)"
    executable = chromium()
    if reason is None and executable is None:
        reason = "Chromium is not installed (apt-get install chromium; .ci/run does it)"
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{reason}: the browser tests must run when CI is set")
        pytest.skip(reason)
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        try:
            yield launched
        finally:
            launched.close()
