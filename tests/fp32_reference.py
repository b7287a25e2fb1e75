"""An FP32 reference graph, rebuilt from an INT8 dynamic-quantized ONNX encoder.

The model pack in shared/models holds only INT8 graphs, produced by onnxruntime's
`quantize_dynamic` (per-channel int8 weights, uint8 activations quantized at run time). To
show that an INT8 and an FP32 run agree, `dequantize_model` rewrites such a graph into a float
one whose weights are the INT8 weights de-quantized exactly, W = (W_int8 - zero_point) * scale
per output channel, and whose activations are never quantized. The float graph computes what
the original FP32 model computed up to the weight rounding, so comparing it with the INT8 graph
isolates the error that activation quantization adds.

Exactly two patterns are rewritten; they are the only quantized ones in the four pack models:

1. Dynamic matmul (every Linear layer: Q/K/V, attention output, FFN, heads)::

       x -> DynamicQuantizeLinear -> (x_q, x_scale, x_zp)
       MatMulInteger(x_q, W_q[K, N] int8, x_zp, W_zp[N] int8) -> Cast(to=FLOAT) -> c
       s = Mul(x_scale, W_scale[N])          (the product of the two scales)
       y = Mul(c, s)

   becomes ``y = MatMul(x, W)`` with W[K, N] = (W_q - W_zp) * W_scale (float32). One
   DynamicQuantizeLinear may feed several MatMulIntegers (Q, K and V share one).

2. Weight-only quantized embedding lookup (word, position and token-type tables)::

       Gather(T_q[V, D] uint8, ids) -> DequantizeLinear(., T_scale scalar, T_zp scalar) -> y

   becomes ``y = Gather(T, ids)`` with T = (T_q - T_zp) * T_scale. This one has no
   activation quantization; folding it only makes the result a plain float graph (same
   numbers: DequantizeLinear computes the same expression per gathered element).

Anything else that looks quantized (ConvInteger, QLinearMatMul, QuantizeLinear, a
DynamicQuantizeLinear feeding something other than this pattern, a per-axis embedding scale,
...) raises `UnsupportedQuantizationError` rather than being left in the graph.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
from onnx import AttributeProto, ModelProto, NodeProto, TensorProto, numpy_helper

# Op types that carry quantized tensors (ONNX standard and onnxruntime's com.microsoft ops):
# (Dynamic)QuantizeLinear, DequantizeLinear, MatMulInteger, ConvInteger, QLinear*, MatMulNBits, ...
_QUANTIZED_OP = re.compile(
    r"quantiz|integer|nbits|^qlinear|^qordered|^q(attention|gemm|embedlayernormalization)$", re.IGNORECASE
)
_HANDLED_OPS = frozenset({"DynamicQuantizeLinear", "MatMulInteger", "DequantizeLinear"})
_QUANTIZED_SUFFIX = "_quantized"


class UnsupportedQuantizationError(ValueError):
    """The graph holds a quantized op or pattern that `dequantize_model` does not rewrite."""


@dataclass(frozen=True)
class RewriteReport:
    """What `dequantize_proto` changed: counts of rewritten patterns and removed nodes."""

    matmuls: int
    """MatMulInteger (+ Cast + two Muls) replaced by a float MatMul."""
    activation_quantizers: int
    """DynamicQuantizeLinear nodes removed (one may feed several matmuls)."""
    embedding_tables: int
    """Gather + DequantizeLinear pairs folded into a Gather on a float table."""
    nodes_before: int
    nodes_after: int


def dequantize_model(src: Path, dst: Path) -> Path:
    """Write to `dst` an FP32 copy of the INT8 dynamic-quantized ONNX model `src`; return `dst`.

    Every dynamically quantized matmul becomes a float MatMul with the de-quantized weight
    matrix and every quantized embedding table a float one (see the module docstring). The
    result passes `onnx.checker` and contains no quantized op. Raises
    UnsupportedQuantizationError on a quantized op outside the two known patterns.
    """
    model = onnx.load(str(src))
    dequantize_proto(model)
    onnx.checker.check_model(model)
    dst.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(dst))
    return dst


def dequantize_proto(model: ModelProto) -> RewriteReport:
    """Rewrite `model` in place into its FP32 reference (see `dequantize_model`).

    Raises UnsupportedQuantizationError, leaving `model` unchanged, on a quantized op other than
    DynamicQuantizeLinear, MatMulInteger and DequantizeLinear, or on one of those outside the
    two patterns of the module docstring.
    """
    graph = model.graph
    for node in graph.node:
        if any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for a in node.attribute):
            raise UnsupportedQuantizationError(
                f"node {node.name!r} ({node.op_type}) has a subgraph; only flat graphs are rewritten"
            )
    unknown = sorted(
        {
            f"{n.op_type} ({n.name or 'unnamed'})"
            for n in graph.node
            if _QUANTIZED_OP.search(n.op_type) and n.op_type not in _HANDLED_OPS
        }
    )
    if unknown:
        raise UnsupportedQuantizationError(
            f"quantized ops this rewriter does not handle: {', '.join(unknown[:10])}"
            f"{' ...' if len(unknown) > 10 else ''}; it knows {', '.join(sorted(_HANDLED_OPS))}"
        )
    # Matching raises before anything is changed; only a successful pass edits the graph.
    report = _Rewriter(model).run()
    leftover = sorted({f"{n.op_type} ({n.name})" for n in graph.node if _QUANTIZED_OP.search(n.op_type)})
    if leftover:
        raise UnsupportedQuantizationError(
            f"quantized ops left after the rewrite (no known pattern): {', '.join(leftover[:10])}"
        )
    return report


def dequantize_weight(
    quantized: npt.NDArray[np.generic], zero_point: npt.NDArray[np.generic], scale: npt.NDArray[np.generic]
) -> npt.NDArray[np.float32]:
    """(quantized - zero_point) * scale in float32; zero_point and scale broadcast over the last
    axis (per output channel, shape [N]) or are scalars (per tensor). quantized and zero_point
    are int8 or uint8 arrays, scale float32."""
    centred = quantized.astype(np.int32) - zero_point.astype(np.int32)
    return (centred.astype(np.float32) * scale.astype(np.float32)).astype(np.float32)


class _Rewriter:
    """One pass over a graph: match the two patterns, then drop what they no longer use."""

    def __init__(self, model: ModelProto) -> None:
        self._graph = model.graph
        # One list of node objects for the whole pass: id() keys below need stable objects.
        self._nodes: list[NodeProto] = list(self._graph.node)
        self._inits: dict[str, TensorProto] = {t.name: t for t in self._graph.initializer}
        self._producer: dict[str, NodeProto] = {}
        self._consumers: dict[str, list[NodeProto]] = defaultdict(list)
        for node in self._nodes:
            for name in node.output:
                self._producer[name] = node
            for name in node.input:
                if name:
                    self._consumers[name].append(node)
        self._graph_outputs = {o.name for o in self._graph.output}
        self._names = set(self._inits) | set(self._producer) | {i.name for i in self._graph.input}
        self._removed: set[int] = set()  # id() of nodes to drop
        self._replacement: dict[int, NodeProto] = {}  # id() of node -> node taking its place
        self._new_inits: list[TensorProto] = []

    def run(self) -> RewriteReport:
        before = len(self._nodes)
        matmuls = tables = 0
        for node in self._nodes:
            if node.op_type == "MatMulInteger":
                self._rewrite_matmul(node)
                matmuls += 1
            elif node.op_type == "DequantizeLinear":
                self._fold_table(node)
                tables += 1
        quantizers = self._drop_unused_quantizers()
        self._commit()
        return RewriteReport(matmuls, quantizers, tables, before, len(self._graph.node))

    # -- pattern 1: DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul(., Mul(x_scale, W_scale))

    def _rewrite_matmul(self, mmi: NodeProto) -> None:
        where = f"MatMulInteger {mmi.name!r}"
        if len(mmi.input) != 4:
            raise UnsupportedQuantizationError(f"{where}: expected 4 inputs (with both zero points)")
        x, x_scale = self._activation(mmi, where)
        weight_q, weight_zp = self._quantized_weight(mmi, where)
        cast, out_mul, scale_mul = self._output_scaling(mmi, x_scale, where)
        w_scale_name = scale_mul.input[1] if scale_mul.input[0] == x_scale else scale_mul.input[0]
        weight_scale = self._init_array(w_scale_name, where)
        if weight_scale.shape not in ((), (1,), (weight_q.shape[1],)) or weight_scale.dtype != np.float32:
            raise UnsupportedQuantizationError(
                f"{where}: weight scale {w_scale_name!r} is {weight_scale.dtype} {weight_scale.shape}"
            )

        weight = self._add_init(mmi.input[1], dequantize_weight(weight_q, weight_zp, weight_scale))
        matmul = onnx.helper.make_node(
            "MatMul", [x, weight], [out_mul.output[0]], name=mmi.name.removesuffix("_quant") or None
        )
        self._replacement[id(mmi)] = matmul
        self._removed.update({id(cast), id(out_mul), id(scale_mul)})
        self._forget(mmi, cast, scale_mul)

    def _activation(self, mmi: NodeProto, where: str) -> tuple[str, str]:
        """Input A's float source and its scale: A and its zero point come from one
        DynamicQuantizeLinear."""
        a_q, _, a_zp, _ = mmi.input
        quantizer = self._producer.get(a_q)
        if quantizer is None or quantizer.op_type != "DynamicQuantizeLinear":
            raise UnsupportedQuantizationError(f"{where}: input A does not come from DynamicQuantizeLinear")
        x, (xq, x_scale, x_zp) = quantizer.input[0], quantizer.output
        if (a_q, a_zp) != (xq, x_zp):
            raise UnsupportedQuantizationError(
                f"{where}: A and its zero point come from different quantizers"
            )
        return x, x_scale

    def _quantized_weight(
        self, mmi: NodeProto, where: str
    ) -> tuple[npt.NDArray[np.generic], npt.NDArray[np.generic]]:
        """Input B (an int8/uint8 matrix initializer) and its zero point (per tensor or per column)."""
        b_q, b_zp = mmi.input[1], mmi.input[3]
        weight_q, weight_zp = self._init_array(b_q, where), self._init_array(b_zp, where)
        if weight_q.ndim != 2 or weight_q.dtype not in (np.int8, np.uint8):
            raise UnsupportedQuantizationError(
                f"{where}: weight {b_q!r} is {weight_q.dtype} {weight_q.shape}"
            )
        if weight_zp.shape not in ((), (1,), (weight_q.shape[1],)):
            raise UnsupportedQuantizationError(f"{where}: weight zero point has shape {weight_zp.shape}")
        return weight_q, weight_zp

    def _output_scaling(
        self, mmi: NodeProto, x_scale: str, where: str
    ) -> tuple[NodeProto, NodeProto, NodeProto]:
        """The nodes after the MatMulInteger: Cast(to=FLOAT), then Mul by Mul(x_scale, W_scale),
        a scale product nothing else uses."""
        cast = self._only_consumer(mmi.output[0], where)
        to = next((a.i for a in cast.attribute if a.name == "to"), None)
        if cast.op_type != "Cast" or to != TensorProto.FLOAT:
            raise UnsupportedQuantizationError(f"{where}: output goes to {cast.op_type}, not Cast(to=FLOAT)")
        out_mul = self._only_consumer(cast.output[0], where)
        if out_mul.op_type != "Mul" or len(out_mul.input) != 2:
            raise UnsupportedQuantizationError(f"{where}: Cast output goes to {out_mul.op_type}, not Mul")
        scales = out_mul.input[1] if out_mul.input[0] == cast.output[0] else out_mul.input[0]
        scale_mul = self._producer.get(scales)
        if scale_mul is None or scale_mul.op_type != "Mul" or x_scale not in scale_mul.input:
            raise UnsupportedQuantizationError(
                f"{where}: output scale is not Mul(activation scale, weight scale)"
            )
        if len(self._consumers[scales]) != 1 or scales in self._graph_outputs:
            raise UnsupportedQuantizationError(f"{where}: the scale product {scales!r} is used elsewhere")
        return cast, out_mul, scale_mul

    # -- pattern 2: Gather(T_q init, ids) -> DequantizeLinear(., scale, zero point), per tensor

    def _fold_table(self, deq: NodeProto) -> None:
        where = f"DequantizeLinear {deq.name!r}"
        gather = self._producer.get(deq.input[0])
        if gather is None or gather.op_type != "Gather" or gather.input[0] not in self._inits:
            raise UnsupportedQuantizationError(f"{where}: input is not a Gather from a quantized initializer")
        if len(self._consumers[gather.output[0]]) != 1 or gather.output[0] in self._graph_outputs:
            raise UnsupportedQuantizationError(f"{where}: the quantized Gather output is used elsewhere")
        if len(deq.input) != 3:
            raise UnsupportedQuantizationError(f"{where}: expected an explicit zero point")
        table_q = self._init_array(gather.input[0], where)
        scale, zero_point = self._init_array(deq.input[1], where), self._init_array(deq.input[2], where)
        if scale.size != 1 or zero_point.size != 1:
            raise UnsupportedQuantizationError(f"{where}: only per-tensor embedding scales are handled")
        if table_q.dtype not in (np.int8, np.uint8):
            raise UnsupportedQuantizationError(f"{where}: table {gather.input[0]!r} is {table_q.dtype}")
        table = self._add_init(gather.input[0], dequantize_weight(table_q, zero_point, scale))
        new_gather = onnx.helper.make_node(
            "Gather", [table, gather.input[1]], [deq.output[0]], name=gather.name or None
        )
        new_gather.attribute.extend(gather.attribute)
        self._replacement[id(gather)] = new_gather
        self._removed.add(id(deq))
        self._forget(gather, deq)

    # -- bookkeeping --------------------------------------------------------------------------

    def _drop_unused_quantizers(self) -> int:
        """Remove DynamicQuantizeLinear nodes none of whose outputs is still consumed."""
        dropped = 0
        for node in self._nodes:
            if node.op_type != "DynamicQuantizeLinear":
                continue
            users = [c.op_type for o in node.output for c in self._consumers.get(o, [])]
            if users or any(o in self._graph_outputs for o in node.output):
                raise UnsupportedQuantizationError(
                    f"DynamicQuantizeLinear {node.name!r} still feeds {', '.join(users) or 'a graph output'}"
                )
            self._removed.add(id(node))
            dropped += 1
        return dropped

    def _commit(self) -> None:
        """Apply replacements and removals, then drop initializers and value_info nobody uses."""
        nodes = [self._replacement.get(id(n), n) for n in self._nodes if id(n) not in self._removed]
        del self._graph.node[:]
        self._graph.node.extend(nodes)
        self._graph.initializer.extend(self._new_inits)
        used = {name for n in nodes for name in n.input} | self._graph_outputs
        kept = [t for t in self._graph.initializer if t.name in used]
        del self._graph.initializer[:]
        self._graph.initializer.extend(kept)
        live = used | {name for n in nodes for name in n.output}
        # Old IR versions list initializers among the graph inputs too.
        inputs = [i for i in self._graph.input if i.name in live]
        del self._graph.input[:]
        self._graph.input.extend(inputs)
        info = [v for v in self._graph.value_info if v.name in live]
        del self._graph.value_info[:]
        self._graph.value_info.extend(info)

    def _forget(self, *nodes: NodeProto) -> None:
        """Remove `nodes` from the consumer lists, so unused quantizers can be found afterwards."""
        for node in nodes:
            for name in node.input:
                users = self._consumers.get(name)
                if users is not None:
                    self._consumers[name] = [u for u in users if u is not node]

    def _only_consumer(self, name: str, where: str) -> NodeProto:
        users = self._consumers.get(name, [])
        if len(users) != 1 or name in self._graph_outputs:
            raise UnsupportedQuantizationError(f"{where}: {name!r} has {len(users)} consumers, expected 1")
        return users[0]

    def _init_array(self, name: str, where: str) -> npt.NDArray[np.generic]:
        tensor = self._inits.get(name)
        if tensor is None:
            raise UnsupportedQuantizationError(f"{where}: {name!r} is not a constant initializer")
        return numpy_helper.to_array(tensor)

    def _add_init(self, quantized_name: str, array: npt.NDArray[np.float32]) -> str:
        """Add a float initializer named after the quantized one (its FP32 original's name if free)."""
        name = _fresh(quantized_name.removesuffix(_QUANTIZED_SUFFIX), self._names)
        self._names.add(name)
        self._new_inits.append(numpy_helper.from_array(array, name))
        return name


def _fresh(base: str, taken: set[str]) -> str:
    name, k = base, 0
    while name in taken:
        k += 1
        name = f"{base}_fp32_{k}"
    return name
