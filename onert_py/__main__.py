"""`python -m onert_py MODEL ...`: the same as the `onert-run` command."""
from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
