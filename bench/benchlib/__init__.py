"""Helper modules of ``bench/bench.py`` (runtime adapters, timing, memory, reports).

They are imported as the top-level package ``benchlib`` because ``bench/bench.py``
puts its own folder first on ``sys.path`` when it is run as a script.
"""
