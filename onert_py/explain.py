"""Human-readable account of a compiled session: each op's backend and why (Session.placement()
in words)."""
from __future__ import annotations

from .placement import subgraph_placement


def explain(compiler, compiled) -> str:
    """The primary subgraph, then every child subgraph compiled for control flow."""
    lines = [f"backends: {', '.join(compiler.order)}" + _default_note(compiler) + (
        f" (not loaded: {'; '.join(f'{b}: {w}' for b, w in compiler.failures.items())})"
        if compiler.failures else "")]
    lines += _subgraph(compiler, compiled)
    for (index, shapes), child in sorted(compiler.children.items(), key=lambda kv: kv[0][0]):
        lines.append("")
        lines.append(f"subgraph {index} ({compiler.model.subgraphs[index].name or 'unnamed'}), "
                     f"input shapes {', '.join(str(s) for s in shapes) or 'none'}:")
        lines += _subgraph(compiler, child)
    return "\n".join(lines)


def _default_note(compiler) -> str:
    """Why these backends, when the session was created without a list."""
    if not getattr(compiler, "defaulted", False):
        return ""
    if "acl_neon" in compiler.order:
        return (" (the default: acl_neon's native modules load here, so the fastest list, "
                "acl_neon;cpu)")
    return " (the default: acl_neon's native modules do not load here, so cpu alone)"


def _subgraph(compiler, compiled) -> list[str]:
    """The lines of one compiled subgraph: its placement (onert_py.placement) in words."""
    p = subgraph_placement(compiler, compiled)
    g = compiled.lowered.graph
    lines = [f"{'op':>5}  {'type':<28} {'backend':<10} why"]
    for op in p.ops:
        fused = "" if op.fused_into is None else f"; fused into #{op.fused_into}"
        lines.append(f"{op.index:>5}  {op.name:<28} {op.backend:<10} {op.rule}{fused}")
        for bid, why in op.refusals.items():
            lines.append(f"{'':>5}  {'':<28} {'':<10}   {bid} refused: {why}")
    folded = compiler.folded.get(compiled.index, [])
    if folded:
        lines.append(f"constants folded at compile time: {len(folded)} ("
                     + ", ".join(f"#{f.op} {f.name} -> tensor #{f.operand}" for f in folded[:6])
                     + (", ..." if len(folded) > 6 else "") + ")")
    lines.append(f"permutes inserted: {len(p.permutes)}")
    for pm in p.permutes:
        lines.append(f"  #{pm.index} Permute tensor #{pm.operand} {g.operands[pm.operand].name!r}: "
                     f"{pm.from_backend} -> {pm.to_backend} (as #{pm.output})")
    if p.fused:
        lines.append(f"fused ops: {len(p.fused)}")
        lines += [f"  #{f.index} {f.text}" for f in p.fused]
    if p.shared:
        lines.append(f"permutes elided (host backends share the tensor): {len(p.shared)}")
        for sh in p.shared:
            how = ("written into the user's output array" if sh.owner == "builtin"
                   and sh.operand in g.outputs else f"{sh.owner} -> {sh.user}")
            lines.append(f"  tensor #{sh.operand} {g.operands[sh.operand].name!r}: {how}")
    return lines
