"""core/loader/schema_tables.py (precomputed enum and options tables) matches the installed
schema packages: regenerate it with tools/gen_schema_tables.py when it does not."""
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
