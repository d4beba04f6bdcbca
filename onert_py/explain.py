"""Human-readable account of a compiled session: each op's backend and why."""
from __future__ import annotations


def explain(compiler, compiled) -> str:
    """The primary subgraph, then every child subgraph compiled for control flow."""
    lines = [f"backends: {', '.join(compiler.order)}" + (
        f" (not loaded: {'; '.join(f'{b}: {w}' for b, w in compiler.failures.items())})"
        if compiler.failures else "")]
    lines += _subgraph(compiler, compiled)
    for (index, shapes), child in sorted(compiler.children.items(), key=lambda kv: kv[0][0]):
        lines.append("")
        lines.append(f"subgraph {index} ({compiler.model.subgraphs[index].name or 'unnamed'}), "
                     f"input shapes {', '.join(str(s) for s in shapes) or 'none'}:")
        lines += _subgraph(compiler, child)
    return "\n".join(lines)


def _subgraph(compiler, compiled) -> list[str]:
    lowered = compiled.lowered
    g = lowered.graph
    lines = [f"{'op':>5}  {'type':<28} {'backend':<10} why"]
    for oi in lowered.exec_order:
        op = g.operations[oi]
        if op.type == "Permute":
            continue
        a = compiler.assignment[(compiled.index, oi)]
        lines.append(f"{oi:>5}  {op.name:<28} {a.backend:<10} {a.rule}")
        for bid, why in a.refusals.items():
            lines.append(f"{'':>5}  {'':<28} {'':<10}   {bid} refused: {why}")
    folded = compiler.folded.get(compiled.index, [])
    if folded:
        lines.append(f"constants folded at compile time: {len(folded)} ("
                     + ", ".join(f"#{f.op} {f.name} -> tensor #{f.operand}" for f in folded[:6])
                     + (", ..." if len(folded) > 6 else "") + ")")
    lines.append(f"permutes inserted: {len(lowered.permutes)}")
    for pi in lowered.permutes:
        op = g.operations[pi]
        src, dst = op.inputs[0], op.outputs[0]
        lines.append(f"  #{pi} Permute tensor #{src} {g.operands[src].name!r}: "
                     f"{op.params.get('from')} -> {op.params.get('to')} (as #{dst})")
    return lines
