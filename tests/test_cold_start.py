"""What a fresh process imports (issue 18's cold start): `import onert_py` loads no backend,
and a session whose ops all run on acl_neon never imports cpu's op modules."""
import subprocess
import sys

import pytest

from op_harness import backend_or_skip

PROBE = """
import sys, numpy as np, onert_py
from onert_py.model_builder import single_op_model
loaded = lambda: sorted({k.split('.')[2] for k in sys.modules
                         if k.startswith('onert_py.backends.') and k.count('.') >= 2})
print('after import', loaded())
m = single_op_model('ADD', [('a', (1, 8), 'float32'), ('b', (1, 8), 'float32')],
                    [('y', (1, 8), 'float32')])
s = onert_py.Session(m)
y, = s.run([np.ones((1, 8), np.float32)] * 2)
assert (y == 2).all()
print('cpu ops', any(k.startswith('onert_py.backends.cpu.ops') for k in sys.modules))
print('backends', s.backends)
"""


def test_cpu_op_modules_are_imported_on_demand():
    backend_or_skip("acl_neon")
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "after import []"                 # no backend at import time
    assert lines[1] == "cpu ops False"                   # ADD ran on acl_neon
    assert lines[2] == "backends ['acl_neon', 'cpu']"


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
