"""Where the tests find things, in one place so that test files can move between folders."""
from __future__ import annotations

import os

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(TESTS_DIR)
PLUGINS = os.path.join(TESTS_DIR, "plugins")        # third-party backends loaded by path
TOOLS = os.path.join(REPO_ROOT, "tools")
# the real models shared by the projects (outside the repository; tests using them skip)
MODELS_DIR = os.path.normpath(os.path.join(REPO_ROOT, "..", "shared", "models"))
