"""core/loader/schema_tables.py (precomputed enum, options and field-layout tables) matches the
installed schema packages: regenerate it with tools/gen_schema_tables.py when it does not. The
loader's flatbuffer reader (core/loader/flatbuf.py) reads every field as the generated
packages do."""
import importlib.util
import subprocess
import sys

from paths import TOOLS


def _generator():
    spec = importlib.util.spec_from_file_location("gen_schema_tables",
                                                  f"{TOOLS}/gen_schema_tables.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_tables_match_the_installed_schemas():
    from onert_py.core.loader import schema_tables
    gen = _generator()
    assert schema_tables.ENUMS == gen.tables(), "run tools/gen_schema_tables.py"
    assert schema_tables.OPTIONS == gen.options(), "run tools/gen_schema_tables.py"
    assert schema_tables.FIELDS == gen.fields(), "run tools/gen_schema_tables.py"


def test_loading_a_tflite_model_imports_no_circle_schema(tmp_path):
    code = ("import sys, numpy as np, onert_py\n"
            "from onert_py.model_builder import single_op_model\n"
            "m = single_op_model('ADD', [('a', (2,), 'float32'), ('b', (2,), 'float32')],"
            " [('y', (2,), 'float32')])\n"
            "for k in [k for k in sys.modules if k.startswith('circle_schema')]:\n"
            "    del sys.modules[k]\n"
            "s = onert_py.Session(m, backends='cpu')\n"
            "s.run([np.ones(2, np.float32)] * 2)\n"
            "print(any(k.startswith('circle_schema') for k in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


VALUES = {"?": True, "b": -3, "B": 5, "h": -300, "H": 300, "i": -7, "I": 9, "q": -(1 << 40),
          "Q": 1 << 40, "f": 1.5, "d": 2.25}


def _write(builder, module, table: str, fields, getters, filled: bool) -> int:
    """A `table` with every scalar, string and scalar-vector field set to a non-default value
    (filled) or none set, written with the generated builder functions."""
    import numpy as np
    from onert_py.core.loader.flatbuf import DTYPES
    offsets = {}
    for name, _, kind, _ in fields:
        if filled and kind == "s":
            offsets[name] = builder.CreateString("abc")
        elif filled and kind[0] == "[":
            offsets[name] = builder.CreateNumpyVector(np.array([1, 0, 2], DTYPES[kind[1]]))
    getattr(module, f"{table}Start")(builder)
    for name, _, kind, _ in fields:
        add = getattr(module, f"{table}Add{getters[name]}")
        if name in offsets:
            add(builder, offsets[name])
        elif filled and kind in VALUES:
            add(builder, VALUES[kind])
    return getattr(module, f"{table}End")(builder)


def test_lean_reader_reads_what_the_generated_accessors_read():
    """flatbuf.Table, driven by schema_tables.FIELDS, gives every scalar, string and vector
    field of every table the loader reads (both schemas) as flatc's generated Python does:
    set to a non-default value, and absent (the schema's default)."""
    import importlib

    import flatbuffers
    import numpy as np
    from onert_py.core.loader.flatbuf import Table
    from onert_py.core.loader.schema import SCHEMAS, snake
    from onert_py.core.loader.schema_tables import FIELDS
    checked = 0
    for schema in SCHEMAS:
        for table in sorted(FIELDS["tflite"] | FIELDS[schema.package]):
            try:
                module = importlib.import_module(f"{schema.package}.{table}")
            except ImportError:
                continue            # a TFLite table this Circle version lacks
            cls = getattr(module, table)
            getters = {snake(n): n for n in vars(cls) if not n.startswith("_")}
            fields = schema.fields(table)
            for filled in (True, False):
                b = flatbuffers.Builder(256)
                b.Finish(_write(b, module, table, fields, getters, filled))
                buf = bytes(b.Output())
                ours, theirs = Table(buf, int.from_bytes(buf[:4], "little")), cls.GetRootAs(buf)
                for f in fields:
                    name, _, kind, _ = f
                    if kind in ("t", "T", "u") or (table, name) == ("OperatorCode", "builtin_code"):
                        continue    # tflite's getter of builtin_code mixes in the deprecated
                        # byte; the loader applies TFLite's rule (max of the two) itself
                    if kind[0] == "[":
                        want = getattr(theirs, getters[name] + "AsNumpy")()
                        want = want.tolist() if isinstance(want, np.ndarray) else []
                        got = ours.field(f).tolist()
                    else:
                        want, got = getattr(theirs, getters[name])(), ours.field(f)
                    assert got == want and type(got) is type(want), \
                        f"{schema.package}.{table}.{name} ({kind}, filled={filled})"
                    checked += 1
    assert checked > 500
