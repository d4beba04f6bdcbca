"""`onert-run batch`: a .npz file or a folder of images in, Parquet out, on the tests' local Ray
(the command line joins it with --ray-address); a malformed input is one error line naming
the row and exit code 2."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("onert_py.ray", reason="Ray is not installed (pip install \"onert_py[ray]\")")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (onert_py[ray])")
Image = pytest.importorskip("PIL.Image", reason="Pillow is not installed (onert_py[ray])")

import onert_py  # noqa: E402
from builders.ray_models import add_mul_model  # noqa: E402
from builders.small_models import conv_add_relu_model  # noqa: E402
from onert_py.cli import main  # noqa: E402
from onert_py.io_files import IOFileError  # noqa: E402
from onert_py.ray.job import (arrow_column, pixel_range, pixels_to_input,  # noqa: E402
                              read_arrays, run_job)
from onert_py.tensorinfo import TensorInfo  # noqa: E402


def save(path, data: bytes) -> str:
    with open(path, "wb") as f:
        f.write(data)
    return str(path)


def test_batch_help_lists_its_options():
    r = subprocess.run([sys.executable, "-m", "onert_py", "batch", "--help"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    for opt in ("--out", "--ray-address", "--backends", "--batch-size", "--workers",
                "--image-range", "--no-progress", ".npz", "folder of images"):
        assert opt in r.stdout, opt
    assert "batch --help" in subprocess.run([sys.executable, "-m", "onert_py", "--help"],
                                            capture_output=True, text=True).stdout


def test_npz_to_parquet_on_an_existing_cluster(ray_local, tmp_path):
    model = save(tmp_path / "add_mul.tflite", add_mul_model())
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((40, 4)).astype(np.float32) for _ in range(2))
    np.savez(tmp_path / "in.npz", a=a, b=b)
    out = tmp_path / "preds.parquet"
    address = ray_local.get_runtime_context().gcs_address
    r = subprocess.run([sys.executable, "-m", "onert_py", "batch", model, str(tmp_path / "in.npz"),
                        "--out", str(out), "--backends", "cpu", "--batch-size", "16",
                        "--ray-address", address], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "40 rows predicted" in r.stdout
    table = pq.read_table(out)
    assert table.column_names == ["id", "sum", "prod"]
    assert table["id"].to_pylist() == list(range(40))          # input order
    with onert_py.Session(model, backends="cpu") as s:
        for k in range(40):
            want = s.run({"a": a[k:k + 1], "b": b[k:k + 1]})
            assert table["sum"][k].as_py() == want[0][0].tolist()
            assert table["prod"][k].as_py() == want[1][0].tolist()


def test_image_folder_resized_to_the_model_input(ray_local, tmp_path):
    model = save(tmp_path / "conv.tflite", conv_add_relu_model())     # x: (1, 6, 6, 3)
    folder = tmp_path / "images"
    folder.mkdir()
    rng = np.random.default_rng(4)
    for k, size in enumerate([(9, 7), (6, 6), (12, 20)]):
        Image.fromarray(rng.integers(0, 256, (*size, 3), dtype=np.uint8)).save(
            folder / f"im{k}.png")
    (folder / "notes.txt").write_text("not an image")
    out = str(tmp_path / "preds.parquet")
    assert run_job(model, str(folder), out, backends="cpu", batch_size=2, workers=1,
                   progress=False) == 3
    table = pq.read_table(out)
    assert table["id"].to_pylist() == ["im0.png", "im1.png", "im2.png"]
    assert json.loads(table.schema.field("y").metadata[b"shape"]) == [6, 6, 4]
    with onert_py.Session(model, backends="cpu") as s:
        for k in range(3):
            with Image.open(folder / f"im{k}.png") as im:      # as Ray Data's read_images
                pixels = np.asarray(im.resize((6, 6), resample=Image.BILINEAR).convert("RGB"))
            want = s.run([(pixels.astype(np.float32) / np.float32(255))[None]])[0]
            np.testing.assert_array_equal(np.array(table["y"][k].as_py(), np.float32),
                                          want.reshape(-1))


def test_malformed_rows_exit_2_naming_the_row(ray_local, tmp_path, capsys):
    model = save(tmp_path / "add_mul.tflite", add_mul_model())
    np.savez(tmp_path / "bad.npz", a=np.zeros((5, 3), np.float32), b=np.zeros((5, 4), np.float32))
    out = tmp_path / "preds.parquet"
    code = main(["batch", model, str(tmp_path / "bad.npz"), "--out", str(out), "--workers", "1",
                 "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err[-1].startswith("onert-run: error: RowInputError: row 0 of the batch (id 0): "
                              "input 'a' has shape (3,), expected (4,)"), err
    assert not out.exists() and not os.path.exists(f"{out}.partial")


def test_input_files_rows_and_their_errors(tmp_path):
    ins = [TensorInfo(n, (1, 4), np.dtype(np.float32)) for n in ("a", "b")]
    a, b = np.zeros((3, 4), np.float32), np.ones((3, 4), np.float32)
    np.savez(tmp_path / "keys.npz", **{"0": a, "1": b})          # onert-run's --load keys
    got = read_arrays(str(tmp_path / "keys.npz"), ins)
    assert [g.tolist() for g in got] == [a.tolist(), b.tolist()]
    np.save(tmp_path / "one.npy", a)
    assert read_arrays(str(tmp_path / "one.npy"), ins[:1])[0].tolist() == a.tolist()
    with pytest.raises(IOFileError, match="a .npy file holds one array, the model has 2 inputs"):
        read_arrays(str(tmp_path / "one.npy"), ins)
    np.savez(tmp_path / "short.npz", a=a, b=b[:2])
    with pytest.raises(IOFileError, match="the same number of rows"):
        read_arrays(str(tmp_path / "short.npz"), ins)
    np.savez(tmp_path / "names.npz", x=a, y=b)
    with pytest.raises(IOFileError, match=r"expected the model's input names \['a', 'b'\]"):
        read_arrays(str(tmp_path / "names.npz"), ins)


def test_pixels_become_the_model_input_type():
    img = np.array([[0, 128, 255]], np.uint8)
    f32 = TensorInfo("x", (1, 1, 3, 1), np.dtype(np.float32))
    np.testing.assert_array_equal(pixels_to_input(img, f32, pixel_range(f32, None)),
                                  np.array([[0, 128, 255]], np.float32) / np.float32(255))
    q = TensorInfo("x", (1, 1, 3, 1), np.dtype(np.int8), {"scale": 1 / 128, "zero_point": 0})
    assert pixel_range(q, None) == (-1.0, 127 / 128)        # the real range int8 covers
    img = np.array([[0, 100, 255]], np.uint8)               # -1, -0.2157 (x128: -27.6), 1
    assert pixels_to_input(img, q, (-1.0, 1.0)).tolist() == [[-128, -28, 127]]
    u8 = TensorInfo("x", (1, 1, 3, 1), np.dtype(np.uint8))
    assert pixel_range(u8, None) is None
    assert pixels_to_input(img, u8, None).tolist() == img.tolist()


def test_parquet_columns_keep_rows_and_shapes():
    col, meta = arrow_column(np.arange(3, dtype=np.int64))
    assert col.to_pylist() == [0, 1, 2] and meta is None
    col, meta = arrow_column(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
    assert col.to_pylist()[1] == [6, 7, 8, 9, 10, 11] and json.loads(meta[b"shape"]) == [3, 2]
