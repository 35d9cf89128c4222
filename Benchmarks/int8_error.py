"""Where int8's error in the built-in encoder comes from, simulated on the numpy reference model (issue 30's notebook).

The three products Trove runs in int8 (QKV, the attention output, the feed-forward's first) are replaced by
quantize-dequantize forms of what `trove_int8.h` does: W per output column (symmetric, max/127), A per row (asymmetric
u8) with the batch's largest |a| columns kept exact and met by W's exact columns; everything else stays fp32. Each form
embeds the 200 cranfield chunks of bench-embed.sh (in batches of at most 1024 tokens, as Trove packs them) and prints
1 − cosine to fp32 (median and worst). The row `weights, outliers` matches Trove's measured int8 (1.8e-4).

    ../shared/tools/ollama-standin/.venv/bin/python Benchmarks/int8_error.py REF.json

REF.json: the chunks as bench-embed.sh writes them (its numpy reference vectors; only the texts are read).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "shared/tools/ollama-standin"))
from minilm import MiniLM  # noqa: E402


def quantized_product(x, w, *, outliers=8, block=None, group=None, weights=True, activations=True, alpha=0.0):
    """x @ w with w (k, n) and x (rows, k) quantized as described above; `block`: A's scale per block of the row;
    `group`: W's scale per group of that many input rows of a column; `alpha`: a SmoothQuant-style rescale of input channel p by max|W[p]|^alpha before quantizing."""
    k = x.shape[1]
    exact_x, exact_w = x, w
    s = (np.abs(w).max(1) ** alpha).astype(np.float32)
    s /= s.mean()
    x, w = x * s, w / s[:, None]
    kept = np.zeros(k, bool)
    kept[np.argsort(-np.abs(x).max(0))[:outliers]] = True
    if weights:
        w = w.copy()
        for start in range(0, k, group or k):
            part = w[start:start + (group or k)]
            scale = np.abs(part).max(0) / 127
            scale[scale == 0] = 1
            w[start:start + (group or k)] = np.round(part / scale) * scale
    rest = x.copy()
    rest[:, kept] = 0
    step = block or k
    for start in range(0, k if activations else 0, step):
        part = rest[:, start:start + step]
        low, high = part.min(1, keepdims=True), part.max(1, keepdims=True)
        scale = (high - low) / 255
        scale[scale == 0] = 1
        rest[:, start:start + step] = np.clip(np.round((part - low) / scale), 0, 255) * scale + low
    return rest @ w + exact_x[:, kept] @ exact_w[kept]


class Product:
    """A weight matrix whose `x @ self` runs `quantized_product`."""
    __array_ufunc__ = None

    def __init__(self, w, form):
        self.w, self.form = w, form

    def __rmatmul__(self, x):
        return x @ self.w if self.form is None else quantized_product(x, self.w, **self.form)


def embed(model, ids, form):
    for layer, saved in zip(model.layers, model.saved):
        for key in ("qkv_w", "o_w", "i_w"):
            layer[key] = Product(saved[key], form)
    vectors, batch, tokens = [], [], 0
    for sequence in ids + [None]:
        if batch and (sequence is None or tokens + len(sequence) > 1024):
            vectors.append(model._forward(batch))
            batch, tokens = [], 0
        if sequence is not None:
            batch.append(sequence)
            tokens += len(sequence)
    v = np.concatenate(vectors)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def main():
    texts = [item["text"] for item in json.load(open(sys.argv[1]))]
    model = MiniLM(threads=2)
    model.saved = [dict(layer) for layer in model.layers]
    ids = model.tokenize(texts)
    fp32 = embed(model, ids, None)
    forms = {
        "weights and activations (Trove's int8)": {},
        "activations only (W exact)": {"weights": False},
        "weights only (A exact)": {"activations": False},
        "16 outliers": {"outliers": 16},
        "A per block of 64": {"block": 64},
        "A per block of 32": {"block": 32},
        "W per group of 64 rows": {"group": 64},
        "W per group of 32 rows, A per block of 32": {"group": 32, "block": 32},
        "smoothed, alpha 0.25": {"alpha": 0.25},
        "smoothed, alpha 0.5": {"alpha": 0.5},
    }
    for name, form in forms.items():
        cosine = (embed(model, ids, form) * fp32).sum(1)
        print(f"{name}: 1 - cosine median {1 - np.median(cosine):.2e}, worst {1 - cosine.min():.2e}", flush=True)


if __name__ == "__main__":
    main()
