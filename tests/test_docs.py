"""generated/docs/: complete, true to the database, and readable.

- every variant of the model is in a variant table, and every fragment map and metadata map of
  every variant is linked from the section that lists it;
- every variant's section links, for each of its fragment operands and metadata selectors, a
  figure whose labels, parsed back from the SVG (thread and register text of each cell at its
  position, the stated repeat and replica rules), equal that variant's `fragment_elements` and
  `sparsity_metadata` in generated/ptxspec.sqlite; swizzle and descriptor figures equal their tables;
- each distinct drawing is one file, and the docs stay small;
- links resolve, labels fit their cells, and a sample of pages and figures renders in headless
  Chromium to PNGs that are not blank (set PTXSPEC_DOCS_PNG_DIR to keep the PNGs and look).
"""
from __future__ import annotations

import base64
import html
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ptxspec.emit import artifacts as build
from ptxspec.emit import docs

ROOT = Path(__file__).resolve().parents[1]
GEN = ROOT / "generated"
NS = "{http://www.w3.org/2000/svg}"
CHAR_W = 6.7  # width of one 11px monospace character, generously rounded up
MAX_DOCS_BYTES = 4_500_000  # wgmma, mma, mma.sp, wmma: ~2.9 MB (8.4 MB when every figure was drawn per use, cell by cell); with ldmatrix, block scaling and tcgen05 4.11 MB


@pytest.fixture(scope="module")
def built(spec) -> dict[str, bytes]:
    return docs.build(spec)


@pytest.fixture(scope="module")
def db():
    con = sqlite3.connect(f"file:{GEN / 'ptxspec.sqlite'}?mode=ro", uri=True)
    yield con
    con.close()


@pytest.fixture(scope="module")
def pages(built) -> dict[str, str]:
    return {p: b.decode() for p, b in built.items() if p.endswith(".md")}


@pytest.fixture(scope="module")
def figures(built) -> dict[str, ET.Element]:
    return {p: ET.fromstring(b) for p, b in built.items() if p.endswith(".svg")}


def _attrs(root: ET.Element) -> dict[str, str]:
    return {k[5:]: v for k, v in root.attrib.items() if k.startswith("data-")}


def _cells(root: ET.Element):
    """(data attributes, [text lines], width) of every labelled cell: the cells drawn in full
    (`<g data-row=..>`) and those drawn by reference (rows of `<use>` in the `grid` group, see
    ptxspec.emit.svg), whose row and column come from their position."""
    for g in root.iter(f"{NS}g"):
        a = _attrs(g)
        if a and ("row" in a or "field" in a):
            yield a, ["".join(t.itertext()) for t in g.findall(f"{NS}text")], float(g.find(f"{NS}rect").get("width"))
    grid = [g for g in root.iter(f"{NS}g") if g.get("class") == "grid"]
    if not grid:
        return
    defs = {e.get("id"): e for e in root.find(f"{NS}defs")}
    ref = lambda u: defs[u.get("href").removeprefix("#")]
    step, height = int(root.get("data-cell-w")), int(root.get("data-cell-h"))
    width = float(defs["c"].get("width"))
    uses = grid[0].findall(f"{NS}use")
    for first, second in zip(uses[0::2], uses[1::2]):
        y = int(first.get("y"))
        assert second.get("y") == first.get("y") and y % height == 0
        labels = {int(u.get("x")): "".join(ref(u).itertext()) for u in ref(second).findall(f"{NS}use")}
        for u in ref(first).findall(f"{NS}use"):
            x = int(u.get("x"))
            assert x % step == 0
            cell = ref(u)
            assert cell.find(f"{NS}use").get("href") == "#c"
            a = {"row": y // height, "col": x // step}
            if width != step:
                a["span"] = int(width) // step
            yield a, ["".join(cell.find(f"{NS}text").itertext()), labels.pop(x)], width
        assert not labels, f"second labels with no cell at x = {sorted(labels)}"


def _resolve(page: str, link: str) -> str:
    parts = (page.rsplit("/", 1)[0] + "/" + link).split("/")
    out: list[str] = []
    for p in parts:
        if p == "..":
            out.pop()
        elif p not in ("", "."):
            out.append(p)
    return "/".join(out)


def _sections(text: str):
    """(heading, body) of each level-2 section (the preamble has heading '')."""
    parts = re.split(r"^## (.*)$", text, flags=re.M)
    yield "", parts[0]
    for i in range(1, len(parts), 2):
        yield parts[i], parts[i + 1]


def _split_row(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
    return [c.strip().replace("\\|", "|") for c in cells]


def _variant_rows(body: str):
    """Variant ids of the variant tables in a section."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| opcode | form |"):
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = _split_row(row)
                ptx, form = cells[0].strip("`"), cells[1]
                yield ptx if form == "–" else f"{ptx}:{form}"


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


# ---------------------------------------------------------------------------------------------
# Freshness


@pytest.mark.full  # builds every artifact again; test_core's freshness check builds them in the quick tier
def test_docs_fresh_deterministic_and_small(spec, built):
    assert docs.build(spec) == built, "two builds differ"
    assert {p: b for p, b in build.artifacts(spec).items() if p.startswith("docs/")} == built, \
        "build.artifacts() does not include docs.build()"
    on_disk = {p.relative_to(GEN).as_posix(): p.read_bytes() for p in (GEN / "docs").rglob("*") if p.is_file()}
    stale = sorted(p for p in set(on_disk) | set(built) if on_disk.get(p) != built.get(p))
    assert not stale, f"generated/docs is stale ({', '.join(stale[:5])}); run `ptxspec build`"
    size = sum(map(len, built.values()))
    assert size < MAX_DOCS_BYTES, f"docs are {size} bytes"
    assert list(built) == sorted(built)


# ---------------------------------------------------------------------------------------------
# Completeness


def test_every_variant_is_in_a_variant_table(spec, pages):
    seen: dict[str, str] = {}
    for path, text in pages.items():
        for _, body in _sections(text):
            for vid in _variant_rows(body):
                assert vid not in seen, f"{vid} listed in {seen[vid]} and {path}"
                seen[vid] = path
    assert set(seen) == {v.id for v in spec.variants}


SHAPES = re.compile(r", for (m\d+n\d+k\d+(?:, m\d+n\d+k\d+)*)$")  # a map row's shapes, where it names them


def _map_rows(body: str):
    """(operand, element type or 'metadata', layout or sparsity, link text, svg link) of a section's map table."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| operand | element type | layout | figure |"):
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                operand, what, layout, figure = _split_row(row)
                text = re.match(r"\[([^\]]*)\]", figure)[1]
                svg = [link for link in LINK.findall(figure) if link.endswith(".svg")]
                assert len(svg) == 1, f"one svg link per map row: {row}"
                yield operand.strip("`"), what, layout.strip("`"), text, svg[0]


@pytest.fixture(scope="module")
def linked(spec, db, pages):
    """Which figures the docs show for each fragment map instance and each metadata map, found the way a
    reader finds them: the map table of the section that lists the variant. Asserts that every
    fragment operand and metadata selector of every listed variant has one."""
    frag_ops: dict[str, list] = {}
    for vid, name, etype, per_reg, lname, params in db.execute(
            "SELECT o.variant_id, o.name, o.element_type, o.per_reg, l.name, l.params FROM operands o "
            "JOIN layouts l ON l.id = o.layout_id"):
        frag_ops.setdefault(vid, []).append((name, etype, per_reg, lname, _params(params)))
    frags: dict[tuple, set[str]] = {}  # (layout, params, per_reg) -> figure paths
    metas: dict[tuple, set[str]] = {}  # (sparsity, m, k, selector) -> figure paths
    checked = 0
    for path, text in pages.items():
        for _, body in _sections(text):
            ids = list(_variant_rows(body))
            if not ids:
                continue
            rows = list(_map_rows(body))
            for vid in ids:
                v = spec._by_id[vid]
                for name, etype, per_reg, lname, params in frag_ops.get(vid, []):
                    shape = f"m{v.m}n{v.n}k{v.k}"  # a row naming shapes is for those shapes only
                    figs = {_resolve(path, svg) for op, what, lay, text, svg in rows
                            if op == name and lay == lname and what == etype
                            and (not (m := SHAPES.search(text)) or shape in m[1].split(", "))}
                    assert figs, f"{path}: no figure linked for operand {name} of {vid}"
                    frags.setdefault((lname, params, per_reg), set()).update(figs)
                    checked += 1
                for sel in v.selectors:
                    figs = {_resolve(path, svg) for op, what, lay, label, svg in rows
                            if what == "metadata" and lay == v.sparsity.name
                            and label == f"selector {sel}, m{v.m} k{v.k}"}
                    assert figs, f"{path}: no metadata figure linked for {vid} selector {sel}"
                    metas.setdefault((v.sparsity.name, v.m, v.k, sel), set()).update(figs)
    assert checked == sum(map(len, frag_ops.values()))
    return frags, metas


def test_every_fragment_and_metadata_map_is_linked_where_its_variant_is_listed(linked, figures):
    frags, metas = linked
    for key, paths in [*frags.items(), *metas.items()]:
        for p in paths:
            assert p in figures, f"{key}: broken figure link {p}"


# ---------------------------------------------------------------------------------------------
# Figures against the database


_SLOT = {"": 0, ".lo": 0, ".hi": 1}


def _fragment_cells(root) -> set[tuple[int, int, int, int, int]]:
    """(thread, reg, slot, row, col) of every element a fragment figure labels."""
    out = set()
    for a, texts, _ in _cells(root):
        r, c = int(a["row"]), int(a["col"])
        if "span" in a:  # one cell per register: "T5 r2" over "bits 0-31"
            m = re.fullmatch(r"T(\d+) r(\d+)", texts[0])
            lo, hi = map(int, re.fullmatch(r"(?:bits|slots) (\d+)-(\d+)", texts[1]).groups())
            assert hi - lo + 1 == int(a["span"])
            out.update((int(m[1]), int(m[2]), s, r, c + s - lo) for s in range(lo, hi + 1))
        else:
            t = re.fullmatch(r"T(\d+)", texts[0])
            m = re.fullmatch(r"r(\d+)(\.lo|\.hi|\.b\d|\.s\d+|)", texts[1])
            assert t and m, f"unreadable label {texts}"
            sfx = m[2]
            slot = _SLOT[sfx] if sfx in _SLOT else int(sfx[2:])
            out.add((int(t[1]), int(m[1]), slot, r, c))
    return out


def _params(text: str) -> tuple:
    """'{"N": 16}' (layouts.params) -> sorted ((name, value), ...)."""
    return tuple(sorted(json.loads(text).items()))


def _as_drawn_for(root, cells: set, params: tuple) -> set:
    """The elements a figure states for one instance: its cells, each element once per replica
    (the cells show the last copy; copy j is register r + replica-regs * j), tiled along N by the
    repeat rule where the figure states one (repeat-cols columns per repeat-n of N, default one per N)."""
    a = _attrs(root)
    if "replicas" in a:
        n, dr = int(a["replicas"]), int(a["replica-regs"])
        cells = {(t, reg - dr * (n - 1 - j), s, r, c) for t, reg, s, r, c in cells for j in range(n)}
    if "repeat-cols" in a:
        p, dr = int(a["repeat-cols"]), int(a["repeat-regs"])
        base = {c for c in cells if c[4] < p}
        tile = lambda n: {(t, reg + dr * j, s, r, c + p * j) for t, reg, s, r, c in base for j in range(n // p)}
        assert tile(int(a["cols"])) == cells, "the drawn columns do not follow the stated rule"
        return tile(dict(params)["N"] * p // int(a.get("repeat-n", p)))  # repeat-n: N per repeat, if not p
    return cells


def test_fragment_figures_agree_with_fragment_elements(db, figures, linked):
    # one (variant, operand) per evaluated map: fragment_elements depends only on the layout instance
    # and the elements per register, so it stands for every other variant with the same pair
    instances = {}
    for vid, operand, lname, params, per_reg in db.execute(
            "SELECT o.variant_id, o.name, l.name, l.params, o.per_reg FROM operands o "
            "JOIN layouts l ON l.id = o.layout_id ORDER BY o.variant_id, o.position"):
        instances.setdefault((lname, _params(params), per_reg), (vid, operand))
    frags, _ = linked
    assert set(frags) == set(instances), f"fragment maps with no figure: {sorted(set(instances) - set(frags))[:5]}"
    cells = {}
    for key, paths in frags.items():
        want = set(db.execute("SELECT thread, reg, slot, row, col FROM fragment_elements "
                              "WHERE variant_id = ? AND operand = ?", instances[key]))
        for path in paths:
            root = figures[path]
            assert _attrs(root)["kind"] == "fragment", path
            if path not in cells:
                cells[path] = _fragment_cells(root)
            got = _as_drawn_for(root, cells[path], key[1])
            assert got == want, f"{path} ({key}) disagrees with fragment_elements of {instances[key]}: " \
                                f"{sorted(got ^ want)[:4]}"


def test_metadata_figures_agree_with_sparsity_metadata(db, figures, linked):
    wanted = set(db.execute("SELECT DISTINCT sparsity, m, k, selector FROM sparsity_metadata"))
    _, metas = linked
    assert set(metas) == wanted
    for key, paths in metas.items():
        want = set(db.execute("SELECT thread, nibble, row, chunk FROM sparsity_metadata "
                              "WHERE sparsity = ? AND m = ? AND k = ? AND selector = ?", key))
        for path in paths:
            root = figures[path]
            assert _attrs(root)["kind"] == "metadata", path
            got = set()
            for c, texts, _ in _cells(root):
                t, n = re.fullmatch(r"T(\d+)", texts[0]), re.fullmatch(r"n(\d+)", texts[1])
                got.add((int(t[1]), int(n[1]), int(c["row"]), int(c["col"])))
            assert got == want, f"{path} disagrees with sparsity_metadata {key}: {sorted(got ^ want)[:4]}"


def test_each_drawing_is_one_file(built):
    svgs = [b for p, b in built.items() if p.endswith(".svg")]
    assert len(set(svgs)) == len(svgs), "the same drawing is written twice"
    assert all(p.startswith("docs/figures/") for p, b in built.items() if p.endswith(".svg"))


def test_swizzle_figures_agree_with_swizzle_modes(db, figures):
    modes = {(fam, name): (code, width, b, repeat, moved) for fam, name, code, width, b, repeat, moved in
             db.execute("SELECT family, name, code, width, b, repeat, unit FROM swizzle_modes")}
    seen = set()
    for path, root in figures.items():
        a = _attrs(root)
        if a["kind"] != "swizzle":
            continue
        code, width, b, repeat, moved = modes[(a["family"], a["mode"])]
        assert (int(a["code"]), int(a["width"]), int(a["b"]), int(a["repeat"])) == (code, width, b, repeat)
        cells = {}
        for c, texts, _ in _cells(root):
            cells[(int(c["row"]), int(c["unit"]))] = int(re.fullmatch(r"u(\d+)", texts[0])[1])
        assert len(cells) == repeat // 16
        for (row, unit), logical in cells.items():
            # Swizzle<B,4,3>: the 16-byte unit (address bits 4..) is XORed with address bits 7..;
            # with 32-byte units (tcgen05's 128B_base32B) Swizzle<B,5,2>: address bits 5.. instead
            addr = row * width + 16 * logical
            swz = addr ^ (((addr >> 7) & ((1 << b) - 1)) * moved)
            assert (swz // width, swz % width // 16) == (row, unit), f"{path}: row {row} unit {unit}"
        seen.add((a["family"], a["mode"]))
    assert seen == set(modes)


def test_descriptor_figure_agrees_with_descriptor_fields(db, figures):
    fields = set(db.execute("SELECT family, name, lsb, width FROM descriptor_fields"))
    got = set()
    for path, root in figures.items():
        fig = _attrs(root)
        if fig["kind"] == "descriptor":
            got |= {(fig["family"], a["field"], int(a["lsb"]), int(a["width"])) for a, _, _ in _cells(root)}
    assert got == fields


# ---------------------------------------------------------------------------------------------
# Links and legibility


def test_links_and_anchors_resolve(pages, built):
    anchors = {p: {docs.slug(h) for h in re.findall(r"^#+ (.*)$", t, flags=re.M)} for p, t in pages.items()}
    for path, text in pages.items():
        for link in LINK.findall(text):
            if "://" in link:
                continue
            target, _, anchor = link.partition("#")
            resolved = _resolve(path, target) if target else path
            assert resolved in built, f"{path}: broken link {link}"
            if anchor:
                assert anchor in anchors.get(resolved, ()), f"{path}: no heading for #{anchor} in {resolved}"
    linked = {_resolve(p, link.partition("#")[0]) for p, t in pages.items() for link in LINK.findall(t)}
    orphans = sorted(p for p in built if p not in linked and p != "docs/index.md")
    assert not orphans, f"pages or figures no page links to: {orphans}"


def test_labels_fit_their_cells(figures):
    for path, root in figures.items():
        assert root.get("width") and root.get("height"), path
        for a, texts, w in _cells(root):
            for t in texts:
                assert len(t) * CHAR_W <= w - 2, f"{path}: label {t!r} wider than its {w}px cell"


# ---------------------------------------------------------------------------------------------
# Rendering


def _inline(s: str) -> str:
    s = html.escape(s, quote=False)
    codes: list[str] = []
    s = re.sub(r"`` (.+?) ``|`([^`]+)`", lambda m: codes.append(m[1] or m[2]) or f"\0{len(codes) - 1}\0", s)
    s = s.replace("\\*", "&#42;")
    s = re.sub(r"!\[([^\]]*)\]\(([^)\s]+)\)", r'<img alt="\1" src="\2">', s)
    s = re.sub(r"\[([^\]]*)\]\(([^)\s]+)\)",
               lambda m: f'<a href="{m[2].replace(".md", ".html") if "://" not in m[2] else m[2]}">{m[1]}</a>', s)
    s = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", s)
    s = re.sub(r"\*(.+?)\*", r"<em>\1</em>", s)
    return re.sub(r"\0(\d+)\0", lambda m: f"<code>{codes[int(m[1])]}</code>", s)


def md_to_html(text: str, title: str) -> str:
    """The Markdown subset docs.py writes (headings, paragraphs, lists, tables, code, links, images)."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            j = lines.index("```", i + 1)
            out.append("<pre><code>" + html.escape("\n".join(lines[i + 1:j])) + "</code></pre>")
            i = j + 1
        elif line.startswith("<!--") or not line.strip():
            i += 1
        elif m := re.match(r"(#{1,6}) (.*)", line):
            n = len(m[1])
            out.append(f'<h{n} id="{docs.slug(m[2])}">{_inline(m[2])}</h{n}>')
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_split_row(lines[i]))
                i += 1
            head = "".join(f"<th>{_inline(c)}</th>" for c in rows[0])
            body = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in rows[2:])
            out.append(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")
        elif re.match(r"(- |\d+\. )", line):
            tag = "ul" if line.startswith("- ") else "ol"
            items = []
            while i < len(lines) and re.match(r"(- |\d+\. )", lines[i]):
                items.append("<li>" + _inline(re.sub(r"^(- |\d+\. )", "", lines[i])) + "</li>")
                i += 1
            out.append(f"<{tag}>{''.join(items)}</{tag}>")
        else:
            para = []
            while i < len(lines) and lines[i].strip() and not re.match(r"(#|\||```|- |\d+\. )", lines[i]):
                para.append(lines[i])
                i += 1
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
    css = ("body{font:15px/1.5 system-ui,'DejaVu Sans',sans-serif;max-width:1180px;margin:24px auto;padding:0 16px;"
           "color:#1f2328}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #d0d7de;padding:4px 8px;"
           "font-size:13px}code{background:#eff1f3;padding:1px 4px;border-radius:4px;font-size:85%}"
           "pre{background:#f6f8fa;padding:12px}img{max-width:100%}h1,h2{border-bottom:1px solid #d8dee4}")
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{css}</style></head><body>{''.join(out)}</body></html>")


def _chromium() -> str | None:
    for name in (os.environ.get("PTXSPEC_CHROMIUM", ""), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def _run_chromium(exe: str, tmp: Path, args: list[str], tag: str) -> str:
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--hide-scrollbars", f"--user-data-dir={tmp / ('profile-' + tag)}", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)  # a hang guard: a stuck browser
    return r.stdout


# Pixel statistics of each PNG, computed in the browser (data: URLs keep the canvas readable).
ANALYZE = """<script>
function stats(im){const c=document.createElement('canvas');c.width=im.naturalWidth;c.height=im.naturalHeight;
 const x=c.getContext('2d');x.drawImage(im,0,0);const d=x.getImageData(0,0,c.width,c.height).data;
 let ink=0,dark=0;const cols=new Set();
 for(let i=0;i<d.length;i+=4){const r=d[i],g=d[i+1],b=d[i+2];if(r<245||g<245||b<245)ink++;
  if(r+g+b<240)dark++;cols.add((r>>4)<<8|(g>>4)<<4|(b>>4));}
 const n=d.length/4;return {w:c.width,h:c.height,ink:ink/n,dark:dark/n,colours:cols.size};}
window.addEventListener('load',()=>{const out={};for(const im of document.querySelectorAll('img'))out[im.id]=stats(im);
 const p=document.createElement('pre');p.id='result';p.textContent=JSON.stringify(out);document.body.appendChild(p);});
</script>"""

# Geometry of the labels as laid out by the browser: text outside its cell, text past the edge.
# Cells drawn in full are measured where they are; cells drawn by reference are measured once, as
# defined (every label text against the cell rectangle `c`), and every placed cell against the edge.
MEASURE = """<script>
const out={};for(const s of [...document.querySelectorAll('div')].map(d=>d.shadowRoot.querySelector('svg'))){const W=+s.getAttribute('width');
 const left=s.getBoundingClientRect().left;let outside=0,past=0,minFont=99,cells=0;
 const inside=(b,r)=>b.x>=r.x-0.5&&b.x+b.width<=r.x+r.width+0.5&&b.y>=r.y-0.5&&b.y+b.height<=r.y+r.height+0.5;
 for(const t of s.querySelectorAll('text')){const b=t.getBBox();minFont=Math.min(minFont,parseFloat(getComputedStyle(t).fontSize));
  if(!t.closest('defs')&&(b.x<0||b.x+b.width>W+0.5))past++;}
 for(const g of s.querySelectorAll('g[data-row],g[data-field]')){cells++;const r=g.querySelector('rect').getBBox();
  for(const t of g.querySelectorAll('text'))if(!inside(t.getBBox(),r))outside++;}
 const c=s.querySelector('defs > #c');
 if(c){const r=c.getBBox();for(const t of s.querySelectorAll('defs > text, defs > g > text'))if(!inside(t.getBBox(),r))outside++;
  for(const u of s.querySelectorAll('.grid > use')){cells++;const b=u.getBoundingClientRect();if(b.left<left-0.5||b.right>left+W+0.5)past++;}}
 out[s.id]={outside,past,minFont,cells};}
const p=document.createElement('pre');p.id='result';p.textContent=JSON.stringify(out);document.body.appendChild(p);
</script>"""


def _sample(pages: dict[str, str], figures: dict[str, ET.Element]) -> tuple[list[str], list[str]]:
    fams = sorted({p.split("/")[1] for p in pages if p.count("/") == 2})
    page_sample = ["docs/index.md", "docs/how-to-read.md"]
    for f in [f for f in fams if f"docs/{f}/fragments.md" in pages][:1]:  # a family with fragment figures
        page_sample += [f"docs/{f}/index.md", f"docs/{f}/fragments.md"]
        page_sample += [p for p in (f"docs/{f}/smem.md", f"docs/{f}/sparsity.md") if p in pages][:1]
        tables = sorted((p for p in pages if p.startswith(f"docs/{f}/") and "| opcode | form |" in pages[p]),
                        key=lambda p: -len(pages[p]))
        page_sample += tables[:1]
    fig_sample, kinds = [], set()
    for path, root in sorted(figures.items()):
        a = _attrs(root)
        key = (a["kind"], a.get("repeat-cols") is not None, int(a.get("per-reg", 1)), "replicas" in a,
               int(a.get("threads", 0)) > 32)
        if key not in kinds:
            kinds.add(key)
            fig_sample.append(path)
    return page_sample, fig_sample


@pytest.mark.full
def test_pages_and_figures_render_in_chromium(built, pages, figures):
    exe = _chromium()
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium for the rendering test (apt-get install -y chromium)")
        pytest.skip("no chromium (apt-get install -y chromium)")
    page_sample, fig_sample = _sample(pages, figures)
    keep = os.environ.get("PTXSPEC_DOCS_PNG_DIR")
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        site = tmp / "site"
        for rel, data in built.items():
            p = site / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(data)
        for rel in pages:
            (site / rel).with_suffix(".html").write_text(md_to_html(pages[rel], rel))
        jobs = []
        for rel in page_sample:
            jobs.append((rel, site / Path(rel).with_suffix(".html"), (1280, 1400)))
        for rel in fig_sample:
            root = figures[rel]
            w, h = int(root.get("width")), int(root.get("height"))
            jobs.append((rel, site / rel, (min(w, 2000), min(h, 1400))))

        def shoot(job):
            rel, src, (w, h) = job
            png = tmp / (re.sub(r"[^\w.-]", "_", rel) + ".png")
            _run_chromium(exe, tmp, [f"--screenshot={png}", f"--window-size={w},{h}", src.as_uri()], png.stem)
            return rel, png

        with ThreadPoolExecutor(3) as pool:
            shots = dict(pool.map(shoot, jobs))
        missing = [rel for rel, png in shots.items() if not png.is_file()]
        assert not missing, f"chromium wrote no screenshot for {missing}"
        if keep:
            Path(keep).mkdir(parents=True, exist_ok=True)
            for png in shots.values():
                shutil.copy(png, Path(keep) / png.name)
        imgs = "".join(f'<img id="{html.escape(rel)}" src="data:image/png;base64,'
                       f'{base64.b64encode(png.read_bytes()).decode()}">' for rel, png in shots.items())
        (tmp / "analyze.html").write_text(f"<!DOCTYPE html><html><body>{imgs}{ANALYZE}</body></html>")
        dom = _run_chromium(exe, tmp, ["--virtual-time-budget=20000", "--dump-dom", (tmp / "analyze.html").as_uri()],
                            "analyze")
        stats = json.loads(html.unescape(re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)[1]))
        for rel in page_sample:
            s = stats[rel]
            assert s["ink"] > 0.02 and s["dark"] > 0.002 and s["colours"] > 8, f"{rel} renders nearly blank: {s}"
        for rel in fig_sample:
            s = stats[rel]
            assert s["ink"] > 0.15 and s["dark"] > 0.005 and s["colours"] > 6, f"{rel} renders nearly blank: {s}"

        # each figure in a shadow root of its own: ids (the cells a figure references) are scoped to it
        svgs = json.dumps({rel: built[rel].decode() for rel in fig_sample}).replace("</", "<\\/")
        place = (f"<script>for(const [id,text] of Object.entries({svgs})){{const d=document.createElement('div');"
                 "document.body.appendChild(d);d.attachShadow({mode:'open'}).innerHTML=text;"
                 "d.shadowRoot.querySelector('svg').id=id;}</script>")
        (tmp / "measure.html").write_text(f"<!DOCTYPE html><html><body>{place}{MEASURE}</body></html>")
        dom = _run_chromium(exe, tmp, ["--virtual-time-budget=20000", "--dump-dom", (tmp / "measure.html").as_uri()],
                            "measure")
        geometry = json.loads(html.unescape(re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)[1]))
        for rel in fig_sample:
            g = geometry[rel]
            assert g["cells"] > 0, f"{rel}: no labelled cells"
            assert g["outside"] == 0, f"{rel}: {g['outside']} labels overflow their cells"
            assert g["past"] == 0, f"{rel}: {g['past']} texts run past the figure's edge"
            assert g["minFont"] >= 10, f"{rel}: {g['minFont']}px text is too small"


# ---------------------------------------------------------------------------------------------
# Family-agnostic


def test_docs_code_names_no_family_or_instruction(spec):
    """The docs are driven by the model: no template or docs module names a family or an instruction
    (a new family renders with no change here)."""
    code = ROOT / "generators" / "ptxspec"
    files = [*(code / "emit" / "docs").glob("*.py"), code / "emit" / "svg.py",
             *(code / "templates" / "docs").rglob("*.j2")]
    names = {*spec.families, *spec.instructions}
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True)))
                         + r")(?![\w])")
    found = [f"{p.relative_to(ROOT)}: {m[1]}" for p in files for m in pattern.finditer(p.read_text())]
    assert len(files) > 10 and not found, found


# ---------------------------------------------------------------------------------------------
# Evidence


def _table_dicts(body: str):
    """Each row of the variant tables of a section, as {header: cell}, with its variant id."""
    lines = body.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("| opcode | form |"):
            head = _split_row(line)
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = dict(zip(head, _split_row(row)))
                ptx = cells["opcode"].strip("`")
                yield (ptx if cells["form"] == "–" else f"{ptx}:{cells['form']}"), cells


def test_hardware_and_numerics_columns_say_what_the_evidence_says(pages, spec):
    """Read evidence/*.json directly: a variant's hardware column names a GPU only where a maps campaign
    on that GPU ran it with no mismatch, and its numerics column says bit-exact only where numerics
    campaigns compared its outputs and found none different; a variant no campaign ran is 'not run'."""
    maps: dict[str, set[str]] = {}
    num: dict[str, list[int]] = {}
    for path in sorted((ROOT / "evidence").glob("*.json")):
        e = json.loads(path.read_text())
        for vid, (cases, outputs, mismatches) in e["results"].items():
            if e["proves"] == "maps" and not mismatches:
                maps.setdefault(vid, set()).add(e["hardware"])
            if e["proves"] == "numerics":
                n = num.setdefault(vid, [0, 0])
                n[0] += outputs
                n[1] += mismatches
    rows = 0
    for path, text in pages.items():
        for vid, cells in _table_dicts(text):
            rows += 1
            hw = cells["hardware"]
            if hw.startswith("not "):
                assert vid not in maps, f"{path}: {vid} says {hw!r}, but {sorted(maps[vid])} measured its maps"
            else:
                assert hw in maps.get(vid, ()), f"{path}: {vid} says {hw!r} with no maps evidence on it"
            status = cells.get("numerics", "–")
            if status == "bit-exact":
                assert vid in num and num[vid][0] > 0 and num[vid][1] == 0, f"{path}: {vid} bit-exact without evidence"
            elif status == "mismatches":
                assert num[vid][1] > 0, f"{path}: {vid}: mismatches without evidence of any"
            else:  # not run, no model, a model's name, or – (no product): no campaign compared it
                assert vid not in num, f"{path}: {vid} says {status!r}, but a numerics campaign ran it"
    assert rows == len(spec.variants)
