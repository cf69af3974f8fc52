#!/usr/bin/env python3
"""Fails when the modules of one crate import each other in a circle.

A module is one source file. An edge A -> B means A's code names something B
defines. Declaring a child (`mod b;`) and re-exporting it (`pub use b::X;`)
are naming, not use, so they add no edge; a path through a re-export is
followed to the module that defines the item. Test-only modules
(`#[cfg(test)]`) are left out: tests may look at everything.

Usage: scripts/module-cycles.py [CRATE_DIR...]   (default: crates/*)
Exit 0 when no crate has a circle, 1 when one does (each circle is printed).
"""

import pathlib
import re
import sys

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def strip(src: str) -> str:
    """Source without comments and string or char literals."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif (m := re.match(r'(b?r)(#*)"', src[i:])) and (i == 0 or not re.match(r"\w", src[i - 1])):
            end = '"' + m.group(2)
            j = src.find(end, i + len(m.group(0)))
            out.append('""')
            i = n if j < 0 else j + len(end)
        elif c == '"':
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
            out.append('""')
            i += 1
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^\\'])'", src[i:])):
            out.append("' '")
            i += len(m.group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def block_end(src: str, open_at: int) -> int:
    depth = 0
    for j in range(open_at, len(src)):
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(src)


def drop_test_blocks(src: str) -> str:
    """Removes `#[cfg(test)] mod x { ... }` bodies; returns the rest."""
    while m := re.search(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{", src):
        src = src[: m.start()] + src[block_end(src, m.end() - 1) :]
    return src


def use_paths(tree: str, prefix: list[str]) -> list[tuple[list[str], str]]:
    """Expands a use tree into (path, alias) pairs."""
    tree = tree.strip()
    out = []
    brace = tree.find("{")
    if brace >= 0 and (tree.find("::") < 0 or brace < len(tree)) and tree.endswith("}"):
        head = [s for s in tree[:brace].split("::") if s.strip()]
        body, depth, start, parts = tree[brace + 1 : -1], 0, 0, []
        for j, ch in enumerate(body):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(body[start:j])
                start = j + 1
        parts.append(body[start:])
        for p in parts:
            if p.strip():
                out += use_paths(p, prefix + [h.strip() for h in head])
        return out
    alias = None
    if " as " in tree:
        tree, alias = [t.strip() for t in tree.split(" as ")]
    segs = prefix + [s.strip() for s in tree.split("::") if s.strip()]
    if segs and segs[-1] == "self":
        segs = segs[:-1]
    return [(segs, alias or (segs[-1] if segs else ""))]


class Crate:
    def __init__(self, src_dir: pathlib.Path):
        self.src_dir = src_dir
        self.files: dict[str, pathlib.Path] = {}  # module path -> file
        self.code: dict[str, str] = {}
        self.children: dict[str, set[str]] = {}
        self.reexports: dict[str, dict[str, list[str]]] = {}  # module -> name -> absolute path
        self.globs: dict[str, list[list[str]]] = {}
        # A binary beside a library uses it by the crate's name, so the
        # library is the crate.
        root = next((src_dir / r for r in ("lib.rs", "main.rs") if (src_dir / r).exists()), None)
        if root is not None:
            self.load("", root, src_dir)

    def load(self, module: str, path: pathlib.Path, dir_: pathlib.Path):
        code = drop_test_blocks(strip(path.read_text()))
        self.files[module], self.children[module] = path, set()
        test_only = {m.group(3) for m in re.finditer(r"#\[cfg\(test\)\]\s*(pub(\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", code)}
        for m in re.finditer(r"(?:#\[path\s*=\s*[^\]]*\]\s*)?(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;", code):
            name = m.group(1)
            if name in test_only:
                continue
            child = f"{module}::{name}" if module != "" else name
            for cand in (dir_ / f"{name}.rs", dir_ / name / "mod.rs"):
                if cand.exists():
                    self.children[module].add(child)
                    self.load(child, cand, cand.parent if cand.name == "mod.rs" else dir_ / name)
                    break
        # Children a macro declares (the oracle registry declares each
        # oracle's module): a file of this module's folder it names.
        for cand in sorted(dir_.glob("*.rs")) if path.name in ("mod.rs", "lib.rs", "main.rs") or dir_ != path.parent else []:
            name = cand.stem
            child = f"{module}::{name}" if module != "" else name
            if cand == path or name in ("mod", "lib", "main") or child in self.files or name in test_only:
                continue
            if re.search(r"\b" + name + r"\s*::", code):
                self.children[module].add(child)
                self.load(child, cand, dir_ / name)
        self.code[module] = code

    def absolute(self, module: str, segs: list[str]) -> list[str] | None:
        """Resolves a path written in `module` to segments from the crate root."""
        here = [] if module == "" else module.split("::")
        if not segs:
            return None
        if segs[0] == "crate":
            return segs[1:]
        if segs[0] in ("self", "super"):
            base = list(here)
            while segs and segs[0] in ("self", "super"):
                if segs[0] == "super":
                    base = base[:-1]
                segs = segs[1:]
            return base + segs
        child = "::".join(here + [segs[0]])
        if child in self.files:
            return here + segs
        return None

    def index_reexports(self):
        for module, code in self.code.items():
            self.reexports[module], self.globs[module] = {}, []
            for m in re.finditer(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", code):
                for segs, alias in use_paths(m.group(1), []):
                    abs_ = self.absolute(module, segs)
                    if abs_ is None:
                        continue
                    if alias == "*":
                        self.globs[module].append(abs_[:-1])
                    else:
                        self.reexports[module][alias] = abs_

    def owner(self, segs: list[str], seen=0) -> str | None:
        """The module that defines what the absolute path names."""
        if seen > 20:
            return None
        mod = []
        for i, s in enumerate(segs):
            if "::".join(mod + [s]) in self.files:
                mod.append(s)
            else:
                name = "::".join(mod)
                target = self.reexports.get(name, {}).get(s)
                if target is not None:
                    return self.owner(target + segs[i + 1 :], seen + 1)
                for g in self.globs.get(name, []):
                    inner = self.owner(g + [s] + segs[i + 1 :], seen + 1)
                    if inner is not None and inner != "::".join(g):
                        return inner
                return name
        return "::".join(mod)

    def edges(self) -> dict[str, set[str]]:
        self.index_reexports()
        graph: dict[str, set[str]] = {m: set() for m in self.files}
        for module, code in self.code.items():
            body = re.sub(r"\bpub(?:\([^)]*\))?\s+use\s+[^;]+;", "", code)
            uses = []
            for m in re.finditer(r"\buse\s+([^;]+);", body):
                uses += [segs for segs, _ in use_paths(m.group(1), [])]
            body = re.sub(r"\buse\s+[^;]+;", "", body)
            for m in re.finditer(r"(?<![\w:])((?:crate|super|self|" + IDENT + r")(?:\s*::\s*" + IDENT + r")+)", body):
                uses.append([s.strip() for s in m.group(1).split("::")])
            for segs in uses:
                abs_ = self.absolute(module, segs)
                if abs_ is None:
                    continue
                target = self.owner(abs_)
                if target is not None and target != module and target in graph:
                    graph[module].add(target)
        return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main() -> int:
    root = pathlib.Path(__file__).resolve().parent.parent
    dirs = [pathlib.Path(a) for a in sys.argv[1:]] or sorted((root / "crates").iterdir())
    bad = 0
    for d in dirs:
        src = d / "src"
        if not src.is_dir():
            continue
        crate = Crate(src)
        graph = crate.edges()
        for comp in cycles(graph):
            bad += 1
            names = [c or "lib" for c in comp]
            print(f"{d.name}: {len(comp)} modules import each other in a circle: {', '.join(names)}")
            for c in comp:
                inside = sorted(t or "lib" for t in graph[c] if t in comp)
                print(f"    {c or 'lib'} -> {', '.join(inside)}")
    if bad:
        print(f"module-cycles: {bad} circle(s); break each by moving what both sides need below them")
        return 1
    print(f"module-cycles: no circles in {len(dirs)} crates")
    return 0


if __name__ == "__main__":
    sys.exit(main())
