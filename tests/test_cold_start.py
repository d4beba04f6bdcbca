"""What a fresh process imports (issue 18's cold start): `import onert_py` loads no backend and
none of the heavy modules a plain Session never needs (the schema packages, yaml,
importlib.metadata, ...); a session imports only the acl_neon op modules of its op types, and
never cpu's op modules when acl_neon runs every op."""
import json
import subprocess
import sys

import pytest

from op_harness import backend_or_skip

# imported by nothing on the path import onert_py -> Session(model) -> run (cold start)
HEAVY = ("yaml", "importlib.metadata", "tflite", "circle_schema", "ctypes.util",
         "onert_py.placement", "onert_py.explain", "onert_py.model_builder")

PROBE = """
import json, sys, numpy as np
before = set(sys.modules)
import onert_py
report = {}
backends = lambda: sorted({k.split('.')[2] for k in sys.modules
                           if k.startswith('onert_py.backends.') and k.count('.') >= 2})
heavy = lambda: sorted(m for m in %(heavy)r if m in sys.modules and m not in before)
report['import'] = {'backends': backends(), 'heavy': heavy()}
with open(sys.argv[1], 'rb') as f:
    model = f.read()
s = onert_py.Session(model)
y, = s.run([np.ones((1, 8), np.float32)] * 2)
assert (y == 2).all()
report['run'] = {
    'backends': s.backends, 'heavy': heavy(),
    'neon_ops': sorted(k.rsplit('.', 1)[1] for k in sys.modules
                       if k.startswith('onert_py.backends.acl_neon.ops.')),
    'cpu_ops': any(k.startswith('onert_py.backends.cpu.ops') for k in sys.modules)}
print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def fresh_process(tmp_path_factory):
    """What one fresh process imported: after `import onert_py`, and after a Session on the
    default backends ran an ADD (written to a file first: the model builder is not imported)."""
    backend_or_skip("acl_neon")
    from onert_py.model_builder import single_op_model
    path = tmp_path_factory.mktemp("cold") / "add.tflite"
    path.write_bytes(single_op_model("ADD", [("a", (1, 8), "float32"), ("b", (1, 8), "float32")],
                                     [("y", (1, 8), "float32")]))
    out = subprocess.run([sys.executable, "-c", PROBE % {"heavy": HEAVY}, str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_import_loads_no_backend_and_nothing_heavy(fresh_process):
    assert fresh_process["import"] == {"backends": [], "heavy": []}


def test_a_session_imports_only_what_its_ops_need(fresh_process):
    run = fresh_process["run"]
    assert run["backends"] == ["acl_neon", "cpu"]
    assert run["heavy"] == []
    assert run["cpu_ops"] is False                       # ADD ran on acl_neon
    assert "eltwise" in run["neon_ops"]                  # BinaryArithmetic's kernels
    assert not {"conv2d", "recurrent", "transpose_conv", "ggml", "batch_matmul",
                "space_batch"} & set(run["neon_ops"])


def test_acl_neon_loads_the_modules_of_each_op_type_it_is_asked_about():
    """ops.load(type) imports the type's modules (and those sharing an op type with them);
    `ops.kernels` is the whole registry."""
    backend_or_skip("acl_neon")
    code = ("import sys\n"
            "from onert_py.backends.acl_neon import ops\n"
            "mods = lambda: {k.rsplit('.', 1)[1] for k in sys.modules\n"
            "                if k.startswith('onert_py.backends.acl_neon.ops.')}\n"
            "reg = ops.load('Transpose')\n"
            "print(sorted(reg.keys()), 'conv2d' in mods())\n"
            "types = {k.split('.')[0] for k in ops.kernels.keys()}\n"
            "print(types == set(ops.MODULES), 'conv2d' in mods())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["['Transpose'] False", "True True"]


THREADS = """
import sys, threading, numpy as np, onert_py
from onert_py.model_builder import single_op_model
x = ('x', (2, 6), 'float32')
models = [single_op_model('ADD', [x, x], [('y', (2, 6), 'float32')]),
          single_op_model('SOFTMAX', [x], [('y', (2, 6), 'float32')], beta=1.0),
          single_op_model('TRANSPOSE', [x, np.array([1, 0], np.int32)],
                          [('y', (6, 2), 'float32')]),
          single_op_model('RESHAPE', [x], [('y', (12,), 'float32')], new_shape=[12])]
placed, errors, go = {}, [], threading.Barrier(len(models))
def compile_and_run(i):
    try:
        go.wait()
        with onert_py.Session(models[i]) as s:
            s.run([np.ones((2, 6), np.float32)] * len(s.inputs))
            placed[i] = s.placement().op_backend[0]
    except Exception as e:
        errors.append(repr(e))
threads = [threading.Thread(target=compile_and_run, args=(i,)) for i in range(len(models))]
[t.start() for t in threads]
[t.join() for t in threads]
print(errors or sorted(placed.items()))
"""


def test_sessions_compiled_at_once_load_acl_neon_modules_safely():
    """Four threads of a fresh process compile at the same moment models whose op types no
    module has loaded yet: each finds its kernels (imports run under Python's import locks)."""
    backend_or_skip("acl_neon")
    out = subprocess.run([sys.executable, "-c", THREADS], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str([(i, "acl_neon") for i in range(4)])


@pytest.mark.parametrize("backends", ["cpu", "acl_neon;cpu"])
def test_cpu_ops_load_when_cpu_runs_an_op(backends):
    import numpy as np
    import onert_py
    from onert_py.model_builder import single_op_model
    m = single_op_model("DIV", [("a", (2,), "int32"), ("b", (2,), "int32")],
                        [("y", (2,), "int32")])           # int32 DIV: cpu's only
    with onert_py.Session(m, backends=backends) as s:
        y, = s.run([np.array([6, 9], np.int32), np.array([3, 4], np.int32)])
        np.testing.assert_array_equal(y, [2, 2])
        assert s.placement().op_backend == {0: "cpu"}
