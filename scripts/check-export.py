#!/usr/bin/env python3
"""Checks a `flipzero export` directory with clients that share no code with flipzero.

For every position of test-vectors.json (the planes flipzero encoded and the outputs its
Burn network computed):
  - model.onnx is checked by the ONNX checker and run by onnxruntime, on the whole batch and
    on single positions (the batch axis is dynamic);
  - model.safetensors is loaded with the safetensors package and run through a forward pass
    written here in numpy from the layer list in model.json.
Each output must match within the tolerance (1e-4 by default). Exits 1 on any mismatch.

Needs: numpy, onnx, onnxruntime, safetensors (pip install numpy onnx onnxruntime safetensors).
Usage: check-export.py EXPORT_DIR [--tolerance T]
"""

import argparse
import json
import pathlib
import sys

import numpy as np

OUTPUTS = ["policy_logits", "wdl_logits", "score"]
BATCH_NORM_EPSILON = 1e-5


def expected_outputs(vectors):
    return {
        "policy_logits": np.array([v["policy_logits"] for v in vectors], dtype=np.float32),
        "wdl_logits": np.array([v["wdl_logits"] for v in vectors], dtype=np.float32),
        "score": np.array([[v["score"]] for v in vectors], dtype=np.float32),
    }


def compare(label, got, expected, tolerance):
    """Prints the largest difference of each output; True when all are within tolerance."""
    ok = True
    for name in OUTPUTS:
        if got[name].shape != expected[name].shape:
            print(f"FAIL {label} {name}: shape {got[name].shape}, expected {expected[name].shape}")
            ok = False
            continue
        difference = float(np.max(np.abs(got[name] - expected[name])))
        verdict = "ok  " if difference <= tolerance else "FAIL"
        print(f"{verdict} {label} {name}: max |difference| {difference:.2e}")
        ok = ok and difference <= tolerance
    return ok


def check_onnx(directory, meta, inputs, expected, tolerance):
    import onnx
    import onnxruntime

    path = directory / meta["onnx"]["file"]
    model = onnx.load(str(path))
    onnx.checker.check_model(model, full_check=True)
    opset = max(entry.version for entry in model.opset_import if entry.domain in ("", "ai.onnx"))
    batch_axis = model.graph.input[0].type.tensor_type.shape.dim[0]
    print(f"ok   onnx checker passed, opset {opset}, batch axis `{batch_axis.dim_param}`")
    ok = opset >= 17 and batch_axis.dim_param != ""
    if not ok:
        print("FAIL onnx: opset below 17 or no symbolic batch axis")
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    input_name = meta["onnx"]["input"]["name"]
    batch = dict(zip(OUTPUTS, session.run(OUTPUTS, {input_name: inputs})))
    ok = compare(f"onnxruntime {onnxruntime.__version__} batch {len(inputs)}", batch, expected, tolerance) and ok
    singles = [session.run(OUTPUTS, {input_name: inputs[i : i + 1]}) for i in range(len(inputs))]
    single = {name: np.concatenate([s[k] for s in singles]) for k, name in enumerate(OUTPUTS)}
    return compare(f"onnxruntime batch 1", single, expected, tolerance) and ok


def convolution(x, weight, torus):
    """Stride 1, padding (k - 1) / 2, no bias; weight [out, in, k, k]. The padding is zeros,
    or on a torus the opposite edge's squares."""
    kernel = weight.shape[2]
    pad = (kernel - 1) // 2
    padded = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), mode="wrap" if torus else "constant")
    rows, cols = x.shape[2], x.shape[3]
    out = np.zeros((x.shape[0], weight.shape[0], rows, cols), dtype=np.float64)
    for dr in range(kernel):
        for dc in range(kernel):
            window = padded[:, :, dr : dr + rows, dc : dc + cols]
            out += np.einsum("oc,bcij->boij", weight[:, :, dr, dc], window)
    return out


def conv_norm(x, w, prefix, torus):
    y = convolution(x, w[f"{prefix}.conv.weight"], torus)
    shape = (1, -1, 1, 1)
    mean = w[f"{prefix}.norm.running_mean"].reshape(shape)
    variance = w[f"{prefix}.norm.running_var"].reshape(shape)
    scale = w[f"{prefix}.norm.weight"].reshape(shape)
    shift = w[f"{prefix}.norm.bias"].reshape(shape)
    return (y - mean) / np.sqrt(variance + BATCH_NORM_EPSILON) * scale + shift


def linear(x, w, prefix):
    return x @ w[f"{prefix}.weight"].T + w[f"{prefix}.bias"]


def relu(x):
    return np.maximum(x, 0.0)


def numpy_forward(w, network, inputs):
    """The forward pass of model.json's `architecture`, in float64."""
    torus = network.get("torus", False)
    x = relu(conv_norm(inputs.astype(np.float64), w, "stem", torus))
    for block in range(network["blocks"]):
        inner = relu(conv_norm(x, w, f"tower.{block}.first", torus))
        x = relu(conv_norm(inner, w, f"tower.{block}.second", torus) + x)
    batch = x.shape[0]
    policy = relu(conv_norm(x, w, "policy_conv", torus)).reshape(batch, -1)
    value = relu(conv_norm(x, w, "value_conv", torus)).reshape(batch, -1)
    hidden = relu(linear(value, w, "value_hidden"))
    return {
        "policy_logits": linear(policy, w, "policy"),
        "wdl_logits": linear(hidden, w, "wdl"),
        "score": np.tanh(linear(hidden, w, "score")),
    }


def check_safetensors(directory, meta, inputs, expected, tolerance):
    from safetensors.numpy import load_file

    weights = {k: v.astype(np.float64) for k, v in load_file(str(directory / meta["safetensors"]["file"])).items()}
    listed = {t["name"]: t["shape"] for t in meta["safetensors"]["tensors"]}
    ok = True
    if {k: list(v.shape) for k, v in weights.items()} != listed:
        print("FAIL safetensors: the tensors differ from those model.json lists")
        ok = False
    got = numpy_forward(weights, meta["network"], inputs)
    got = {k: v.astype(np.float32) for k, v in got.items()}
    return compare("safetensors + numpy forward", got, expected, tolerance) and ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=pathlib.Path)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    args = parser.parse_args()
    meta = json.loads((args.directory / "model.json").read_text())
    tests = json.loads((args.directory / "test-vectors.json").read_text())
    vectors = tests["vectors"]
    inputs = np.array([v["planes"] for v in vectors], dtype=np.float32).reshape(-1, *tests["input_shape"])
    expected = expected_outputs(vectors)
    print(f"{args.directory}: {len(vectors)} positions, input {list(inputs.shape)}")
    ok = True
    checked = 0
    if "onnx" in meta:
        ok = check_onnx(args.directory, meta, inputs, expected, args.tolerance) and ok
        checked += 1
    if "safetensors" in meta:
        ok = check_safetensors(args.directory, meta, inputs, expected, args.tolerance) and ok
        checked += 1
    if checked == 0:
        print("FAIL nothing to check: model.json lists neither onnx nor safetensors")
        ok = False
    print("all outputs match" if ok else "MISMATCH")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
