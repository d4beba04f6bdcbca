"""`make demo`: run the bundled example model on the default backends, print what happened."""
from __future__ import annotations

import time
from importlib import resources

import numpy as np

import onert_py


def main() -> None:
    model = resources.files("onert_py.examples").joinpath("mini_cnn.tflite")
    mapping = resources.files("onert_py.examples").joinpath("map.yaml")
    with resources.as_file(model) as path, resources.as_file(mapping) as map_path:
        print(f"config    : {map_path.name}\n" + "".join(
            f"            {line}\n" for line in map_path.read_text().splitlines()
            if line and not line.startswith("#")))
        t0 = time.perf_counter()
        sess = onert_py.Session(path, config=map_path)
        created = time.perf_counter() - t0
        print(f"model     : {path.name} ({path.stat().st_size} bytes)")
        print(f"backends  : {', '.join(sess.backends)}")
        for info in sess.inputs:
            print(f"input     : {info}")
        for info in sess.outputs:
            print(f"output    : {info}")
        print("\n" + sess.explain() + "\n")
        x = np.random.default_rng(0).uniform(0, 1, sess.inputs[0].shape).astype(np.float32)
        t0 = time.perf_counter()
        (probs,) = sess.run([x])
        first = time.perf_counter() - t0
        times = []
        for _ in range(50):
            t0 = time.perf_counter()
            sess.run([x])
            times.append(time.perf_counter() - t0)
        top = np.argsort(probs[0])[::-1][:3]
        print("top-3     : " + ", ".join(f"class {c}: {probs[0, c]:.4f}" for c in top))
        print(f"sum       : {probs.sum():.6f}")
        print(f"timing    : session {created * 1e3:.1f} ms, first run {first * 1e3:.2f} ms, "
              f"median of 50 runs {np.median(times) * 1e3:.3f} ms")
        try:
            from ai_edge_litert.interpreter import Interpreter
        except ImportError:
            return
        interp = Interpreter(model_path=str(path))
        interp.allocate_tensors()
        interp.set_tensor(interp.get_input_details()[0]["index"], x)
        interp.invoke()
        ref = interp.get_tensor(interp.get_output_details()[0]["index"])
        print(f"vs LiteRT : max abs difference {np.abs(ref - probs).max():.2e}")


if __name__ == "__main__":
    main()
