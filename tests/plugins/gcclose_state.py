"""Shared between tests/test_plugin_backend.py and libbackend_gcclose.py (which the backend
manager executes afresh on each load): the Session the plugin drops while it loads."""
SESSION: dict = {"s": None}
