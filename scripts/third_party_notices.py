#!/usr/bin/env python3
"""THIRD-PARTY-NOTICES.txt and a CycloneDX SBOM of the native library txn_rocksdb_jni.

Run through scripts/third-party-notices.sh, which fetches the crates first (`cargo fetch --locked`);
this file runs cargo only offline and reads:
- Cargo.lock (versions, checksums) and `cargo tree` for each platform of scripts/platform.sh: the
  crates the library's build links, per platform, with the features of the release build (resolver
  2: dev-dependencies' features are not unified in, unlike `cargo metadata`'s resolve);
- `cargo metadata` for each crate's licence expression and source directory;
- the crates' sources in cargo's registry: their licence, notice and copyright files, and the C and
  C++ libraries that the -sys crates (rust-librocksdb-sys, lz4-sys) and ring compile in.

Which crates: the normal dependencies of txn-rocksdb-jni, walked per target triple:
- "linked": reached without passing through a procedural macro: compiled into the library;
- "compile-time": procedural macros and the crates only they use (syn, quote, ...): not linked, but
  the code they generate is in the library, so they are listed too (marked so, and in the SBOM with
  scope "excluded");
- build-dependencies (cc, bindgen, ...: build scripts' own code, never linked) and dev-dependencies
  (tests) are left out. cargo-deny's licence check (deny.toml) covers the build-dependencies too.

Writes OUTDIR/THIRD-PARTY-NOTICES.txt and OUTDIR/txn-rocksdb-native.cdx.json: deterministic (sorted;
no dates, no local paths), so the same Cargo.lock gives the same bytes, and a dependency update
shows up as a diff. Exits non-zero naming the crate when a crate's licence is not on deny.toml's
allow list, when a licence it needs has no text (neither a file in the crate nor a standard text we
carry), or when a crate compiles native code this script does not know (NATIVE below).
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib
import uuid
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT_CRATE = "txn-rocksdb-jni"
FIRST_PARTY = {"txn-rocksdb-jni", "txn-rocksdb", "txn-rocksdb-format"}
NOTICES = "THIRD-PARTY-NOTICES.txt"
SBOM = "txn-rocksdb-native.cdx.json"


class Failure(Exception):
    """A reason not to ship: printed, exit 1."""


# ---------------------------------------------------------------------------------------------
# SPDX expressions

def tokenize(expr):
    # Old crates write "MIT/Apache-2.0" for "MIT OR Apache-2.0".
    expr = expr.replace("/", " OR ")
    return re.findall(r"\(|\)|[^\s()]+", expr)


def parse_spdx(expr):
    """A tree: ("OR", [..]), ("AND", [..]) or ("ID", "Apache-2.0" / "Apache-2.0 WITH X")."""
    tokens = tokenize(expr)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def primary():
        tok = peek()
        if tok is None:
            raise Failure(f"SPDX expression ends early: {expr!r}")
        if tok == "(":
            take()
            node = or_expr()
            if take() != ")":
                raise Failure(f"unbalanced parentheses in SPDX expression {expr!r}")
            return node
        if tok in (")", "AND", "OR", "WITH"):
            raise Failure(f"unexpected {tok!r} in SPDX expression {expr!r}")
        ident = take()
        if peek() == "WITH":
            take()
            ident = f"{ident} WITH {take()}"
        return ("ID", ident)

    def and_expr():
        items = [primary()]
        while peek() == "AND":
            take()
            items.append(primary())
        return items[0] if len(items) == 1 else ("AND", items)

    def or_expr():
        items = [and_expr()]
        while peek() == "OR":
            take()
            items.append(and_expr())
        return items[0] if len(items) == 1 else ("OR", items)

    node = or_expr()
    if peek() is not None:
        raise Failure(f"unexpected {peek()!r} in SPDX expression {expr!r}")
    return node


def normalize_spdx(expr):
    """The expression with "/" as OR and single spaces (what the SBOM declares)."""
    def render(node, top):
        kind, val = node
        if kind == "ID":
            return val
        inner = f" {kind} ".join(render(n, False) for n in val)
        return inner if top else f"({inner})"
    return render(parse_spdx(expr), True)


def spdx_allowed(node, allowed):
    kind, val = node
    if kind == "ID":
        return val in allowed
    if kind == "AND":
        return all(spdx_allowed(n, allowed) for n in val)
    return any(spdx_allowed(n, allowed) for n in val)


# Which licence of an "A OR B" we take: the project's own first, then the most common permissive
# ones. An alternative whose text the crate lacks (and we carry no standard text of) comes after
# every alternative with texts.
PREFERENCE = ["Apache-2.0", "MIT", "BSD-3-Clause", "BSD-2-Clause", "ISC", "Zlib", "BSL-1.0",
              "Unicode-3.0", "Unlicense", "CDLA-Permissive-2.0"]


def rank(lic):
    return PREFERENCE.index(lic) if lic in PREFERENCE else len(PREFERENCE)


def choose(node, allowed, has_text):
    """The licences we use the crate under: a list, or None if no allowed choice exists.
    has_text(id) tells whether a text for the id is available."""
    kind, val = node
    if kind == "ID":
        return [val] if val in allowed else None
    if kind == "AND":
        parts = [choose(n, allowed, has_text) for n in val]
        if any(p is None for p in parts):
            return None
        return sorted({lic for p in parts for lic in p}, key=lambda l: (rank(l), l))
    options = [c for c in (choose(n, allowed, has_text) for n in val) if c is not None]
    if not options:
        return None
    return min(options, key=lambda c: (not all(has_text(l) for l in c),
                                       sorted(rank(l) for l in c), len(c), c))


def check_licences(crates, allowed):
    """deny.toml's rule (what cargo-deny checks) on our own list: the crates whose expression the
    allow list does not satisfy, as "name version: expression" lines."""
    bad = []
    for c in crates:
        expr = c.get("license")
        if not expr:
            bad.append(f"{c['name']} {c['version']}: no licence field")
            continue
        try:
            ok = spdx_allowed(parse_spdx(expr), allowed)
        except Failure as e:
            bad.append(f"{c['name']} {c['version']}: {e}")
            continue
        if not ok:
            bad.append(f"{c['name']} {c['version']}: {expr}")
    return sorted(bad)


def allowed_licences():
    with open(os.path.join(ROOT, "deny.toml"), "rb") as f:
        return set(tomllib.load(f)["licenses"]["allow"])


# ---------------------------------------------------------------------------------------------
# Licence texts

def norm_ws(text):
    return " ".join(text.split())


def detect(text):
    """The full licence texts a file contains (pointer files and short notices: none)."""
    t = norm_ws("\n".join(re.sub(r"^\s*(//+|#+|;+|\*+)", "", l) for l in text.split("\n")))
    found = set()
    if "Apache License" in t and "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in t:
        found.add("Apache-2.0")
    if re.search(r"Permission is hereby granted, free of charge, to any person obtaining a copy of "
                 r"this software", t):
        found.add("MIT")
    if "UNICODE LICENSE V3" in t or ("Unicode, Inc." in t and "Data Files" in t):
        found.add("Unicode-3.0")
    if re.search(r"Permission to use, copy, modify, and(/or)? distribute this software for any "
                 r"purpose with or without fee is hereby granted", t):
        found.add("ISC")
    if "Redistribution and use in source and binary forms" in t:
        found.add("BSD-3-Clause" if re.search(r"Neither the name|endorse or promote", t)
                  else "BSD-2-Clause")
    if "This is free and unencumbered software released into the public domain" in t:
        found.add("Unlicense")
    if "Boost Software License - Version 1.0" in t:
        found.add("BSL-1.0")
    if "Altered source versions must be plainly marked" in t:
        found.add("Zlib")
    return found


LICENCE_FILE = re.compile(r"^(licen[cs]e|copying|copyright|notice|unlicense)", re.I)
NOTICE_FILE = re.compile(r"^notice", re.I)
# Licences of code a crate took from elsewhere (atomic-waker's LICENSE-THIRD-PARTY): always printed.
THIRD_PARTY_FILE = re.compile(r"third.?party", re.I)

COPYRIGHT_LINE = re.compile(
    r"(?:^[\s/*#;@!>|-]*(?:Portions\s+)?Copyright(?:\s+(?:\(c\)|\(C\)|©))?\s+(?:\d{4}|[A-Z][a-z]|\(c\)|©)"
    r"|Copyright\s+(?:\(c\)\s+|\(C\)\s+|©\s*)?\d{4})")


def copyright_lines(text):
    out = []
    for line in text.splitlines():
        m = COPYRIGHT_LINE.search(line)
        if not m:
            continue
        start = line.find("Copyright", m.start())
        if start < 0:
            start = line.find("copyright", m.start())
        line = norm_ws(line[start:] if start >= 0 else line).rstrip(" */")
        if re.search(r"\[yyyy\]|\{yyyy\}|\[year\]|<year>", line):
            continue
        out.append(line)
    return out


def read_text(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return "\n".join(l.rstrip() for l in text.replace("\r\n", "\n").split("\n")).strip("\n") + "\n"


def apache_terms(text):
    """The Apache-2.0 terms (from TERMS AND CONDITIONS to their END), whitespace-collapsed."""
    t = norm_ws(text)
    a = t.find("TERMS AND CONDITIONS FOR USE")
    b = t.find("END OF TERMS AND CONDITIONS")
    return t[a:b] if a >= 0 and b > a else None


class Texts:
    """Licence texts, each printed once at the end of the notices and referenced as [Tn]."""

    def __init__(self, standard_apache):
        self.by_key = {}
        self.items = []  # (id, title, text, users)
        self.apache = standard_apache
        self.apache_terms = apache_terms(standard_apache)
        self.add("Apache-2.0", "Apache License, Version 2.0 (the standard text)", standard_apache,
                 None)

    def add(self, lic, title, text, user):
        if "Apache-2.0" in detect(text) and apache_terms(text) == self.apache_terms \
                and not (detect(text) - {"Apache-2.0"}):
            key = "apache-standard"  # the same terms: one copy (appendix and spacing aside)
        else:
            key = norm_ws(text)
        if key not in self.by_key:
            ref = f"T{len(self.items) + 1}"
            self.by_key[key] = ref
            self.items.append([ref, title, text, set()])
        ref = self.by_key[key]
        if user:
            self.items[int(ref[1:]) - 1][3].add(user)
        return ref


# ---------------------------------------------------------------------------------------------
# The crate graph

def sh(cmd, **kw):
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        hint = ""
        if "--offline" in r.stderr or "offline" in r.stderr:
            hint = "\n(run `cargo fetch --locked` first: scripts/third-party-notices.sh does)"
        raise Failure(f"{' '.join(cmd)} failed:\n{r.stderr.strip()}{hint}")
    return r.stdout


def platforms():
    out = sh(["bash", "-c", 'source scripts/platform.sh && for p in "${all_platforms[@]}"; do '
                            'echo "$p $(rust_triple "$p")"; done'])
    return [tuple(l.split()) for l in out.splitlines() if l.strip()]


TREE_LINE = re.compile(r"^(\d+)(\S+) v(\S+)(.*)$")


def tree_graph(triple):
    """(nodes, edges) of the release build for a triple, from `cargo tree`: nodes are
    (name, version, host, proc_macro); host = built for the build machine (below a procedural
    macro). Edges between such nodes."""
    out = sh(["cargo", "tree", "--offline", "--locked", "--workspace", "-e", "normal",
              "--target", triple, "--prefix", "depth", "-f", "{p}", "--charset", "ascii"])
    stack = []
    nodes, edges = set(), set()
    for line in out.splitlines():
        m = TREE_LINE.match(line)
        if not m:
            continue
        depth, name, version, rest = int(m[1]), m[2], m[3], m[4]
        proc = "(proc-macro)" in rest
        del stack[depth:]
        parent = stack[-1] if stack else None
        host = bool(parent and (parent[2] or parent[3]))
        node = (name, version, host, proc)
        nodes.add(node)
        if parent:
            edges.add((parent, node))
        stack.append(node)
    return nodes, edges


def walk(triple):
    """For a triple: {(name, version): "linked" | "compile-time"} reachable from the root crate
    over normal edges, and the edges between (name, version) pairs."""
    nodes, edges = tree_graph(triple)
    out = defaultdict(list)
    for a, b in edges:
        out[a].append(b)
    roots = [n for n in nodes if n[0] == ROOT_CRATE and not n[2]]
    if len(roots) != 1:
        raise Failure(f"cargo tree for {triple}: expected one {ROOT_CRATE}, got {roots}")
    seen, todo = set(), list(roots)
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        todo.extend(out[n])
    kinds = {}
    for name, version, host, proc in seen:
        linked = not host and not proc
        key = (name, version)
        if linked or key not in kinds:
            kinds[key] = "linked" if linked else "compile-time"
    pairs = {((a[0], a[1]), (b[0], b[1])) for a, b in edges if a in seen and b in seen}
    return kinds, pairs


# ---------------------------------------------------------------------------------------------
# The native code compiled in by crates: reviewed by hand. A linked crate that compiles C/C++ (a
# `links` key, or cc/cmake among its build-dependencies) and is missing here fails the run.

def file_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().split("\n")


def comment_block(path, anchor):
    """The comment block of a source file that holds the line matching anchor, unwrapped."""
    lines = file_lines(path)
    idx = next((i for i, l in enumerate(lines) if re.search(anchor, l)), None)
    if idx is None:
        raise Failure(f"{os.path.basename(path)}: no line matches {anchor!r}: re-read the vendored "
                      "notices of this component (scripts/third_party_notices.py, NATIVE)")
    if lines[idx].lstrip().startswith("//"):
        a = idx
        while a > 0 and lines[a - 1].lstrip().startswith("//"):
            a -= 1
        b = idx
        while b + 1 < len(lines) and lines[b + 1].lstrip().startswith("//"):
            b += 1
        block = [re.sub(r"^\s*//\s?", "", l) for l in lines[a:b + 1]]
    else:
        a = max(i for i in range(idx + 1) if "/*" in lines[i])
        b = min(i for i in range(idx, len(lines)) if "*/" in lines[i])
        block = []
        for l in lines[a:b + 1]:
            l = l.replace("/*", "").replace("*/", "")
            l = re.sub(r"^\s*\*( |$)", "", l)
            block.append(l.rstrip())
    while block and not block[0].strip():
        block.pop(0)
    while block and not block[-1].strip():
        block.pop()
    return "\n".join(block) + "\n"


def scan_copyrights(files):
    found = set()
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            for line in copyright_lines(fh.read()):
                found.add(line)
    return sorted(found)


def define(path, name):
    m = re.search(rf"#define\s+{name}\s+(\d+)", open(path, encoding="utf-8").read())
    if not m:
        raise Failure(f"no #define {name} in {path}")
    return m[1]


def rocksdb_components(crate_dir):
    rdb = os.path.join(crate_dir, "rocksdb")
    vh = os.path.join(rdb, "include", "rocksdb", "version.h")
    version = ".".join(define(vh, f"ROCKSDB_{p}") for p in ("MAJOR", "MINOR", "PATCH"))
    # What the crate's build.rs compiles: rocksdb_lib_sources.txt (less the build_version.cc it
    # replaces), the Windows port files on Windows, and its own two files; plus RocksDB's headers
    # (tests, tools, Java and the third-party test framework aside).
    with open(os.path.join(crate_dir, "rocksdb_lib_sources.txt")) as f:
        srcs = [l.strip() for l in f if l.strip() and l.strip() != "util/build_version.cc"]
    build_rs = open(os.path.join(crate_dir, "build.rs"), encoding="utf-8").read()
    srcs += sorted(set(re.findall(r'"(port/win/[a-z_]+\.cc)"', build_rs)) - {"port/win/win_jemalloc.cc"})
    for s in srcs:
        if "range_tree" in s:
            # PerconaFT's lock manager: GPLv2 / AGPLv3 / Apache-2.0 files of its own; not compiled
            # by rust-librocksdb-sys 0.49. If it ever is, its notice belongs here.
            raise Failure("rust-librocksdb-sys compiles RocksDB's range_tree (PerconaFT): add its "
                          "notice to scripts/third_party_notices.py")
    files = [os.path.join(rdb, s) for s in srcs]
    files += [os.path.join(crate_dir, "build_version.cc")]
    files += [os.path.join(crate_dir, "c-api-extensions", f)
              for f in sorted(os.listdir(os.path.join(crate_dir, "c-api-extensions")))]
    skip_dirs = {"third-party", "java", "tools", "test_util", "microbench", "fuzz", "examples",
                 "buckifier", "docs", "coverage", "build_tools", "range_tree"}
    for d, dirs, fs in os.walk(rdb):
        dirs[:] = sorted(x for x in dirs if x not in skip_dirs)
        for f in sorted(fs):
            # (PowerPC's CRC code aside: no platform of ours is POWER.)
            if f.endswith(".h") and not re.search(r"test|mock|ppc", f):
                files.append(os.path.join(d, f))
    copyrights = scan_copyrights(files)
    # RocksDB's own holders (its files are under "GPLv2 or Apache 2.0", some derived from LevelDB
    # under LICENSE.leveldb), and the files of code it took from elsewhere under other terms.
    vendored = [
        ("xxHash (util/xxhash.h, util/xxhash.cc, util/xxph3.h)", "BSD-2-Clause",
         os.path.join(rdb, "util", "xxhash.h"), r"xxHash - Extremely Fast Hash algorithm",
         r"Yann Collet"),
        ("crc32c by Ferry Toth, via folly (util/crc32c.cc)", "Zlib",
         os.path.join(rdb, "util", "crc32c.cc"), r"Copyright 2016 Ferry Toth", r"Ferry Toth"),
        ("the portable C++ timer queue of crazygaze.com (util/timer_queue.h)", "CC0-1.0",
         os.path.join(rdb, "util", "timer_queue.h"), r"Timer Queue", r"$^"),
    ]
    own = (r"Facebook|Meta Platforms|The LevelDB Authors|Intel Corporation|Arm Limited|Red Hat|"
           r"International Business Machines")
    unknown = [c for c in copyrights
               if not re.search(own, c) and not any(re.search(v[4], c) for v in vendored)]
    if unknown:
        raise Failure("RocksDB's compiled sources name copyright holders this script has not "
                      "reviewed (is there vendored code under other terms? add it to "
                      "rocksdb_components in scripts/third_party_notices.py):\n  "
                      + "\n  ".join(unknown))
    return [{
        "name": "RocksDB", "sbom_name": "rocksdb", "version": version,
        "purl": f"pkg:github/facebook/rocksdb@v{version}",
        "declared": "(GPL-2.0-only OR Apache-2.0) AND BSD-3-Clause AND BSD-2-Clause AND Zlib AND CC0-1.0",
        "used": "Apache-2.0 AND BSD-3-Clause AND BSD-2-Clause AND Zlib AND CC0-1.0",
        "what": "C++ sources vendored in the crate (rocksdb/), compiled and linked statically",
        "choice": "RocksDB is dual-licensed under GPLv2 and Apache-2.0: we use it under Apache-2.0. "
                  "Parts derived from LevelDB carry LevelDB's BSD-3-Clause licence "
                  "(LICENSE.leveldb).",
        "texts": [("Apache-2.0", "rocksdb/LICENSE.Apache"), ("BSD-3-Clause", "rocksdb/LICENSE.leveldb")],
        "inline": [(title, lic, comment_block(path, anchor)) for title, lic, path, anchor, _ in vendored],
        "copyrights": copyrights,
        "depends": ["lz4"],
    }]


def lz4_components(crate_dir):
    lib = os.path.join(crate_dir, "liblz4", "lib")
    h = os.path.join(lib, "lz4.h")
    version = ".".join(define(h, f"LZ4_VERSION_{p}") for p in ("MAJOR", "MINOR", "RELEASE"))
    build_rs = open(os.path.join(crate_dir, "build.rs"), encoding="utf-8").read()
    srcs = re.findall(r'"(liblz4/[^"]+\.c)"', build_rs)
    if not srcs or any(not s.startswith("liblz4/lib/") for s in srcs):
        raise Failure(f"lz4-sys compiles {srcs}: only liblz4/lib/ is BSD-2-Clause (the rest of lz4 "
                      "is GPL-2.0-or-later): review scripts/third_party_notices.py")
    # The compiled files and the headers they include (lz4file.h, of lz4file.c, is not).
    files, todo = [], [os.path.join(crate_dir, s) for s in srcs]
    while todo:
        f = todo.pop()
        if f in files or not os.path.isfile(f):
            continue
        files.append(f)
        text = open(f, encoding="utf-8", errors="replace").read()
        todo += [os.path.join(lib, h) for h in re.findall(r'#\s*include\s+"([^"/]+)"', text)]
    files.sort()
    return [{
        "name": "LZ4 library", "sbom_name": "lz4", "version": version,
        "purl": f"pkg:github/lz4/lz4@v{version}",
        "declared": "BSD-2-Clause", "used": "BSD-2-Clause",
        "what": "C sources vendored in the crate (liblz4/lib/: " + ", ".join(
            os.path.basename(s) for s in srcs) + "), compiled and linked statically",
        "choice": "lz4's lib/ directory is BSD-2-Clause (its programs, not compiled in, are "
                  "GPL-2.0-or-later).",
        "texts": [("BSD-2-Clause", "liblz4/lib/LICENSE")],
        "inline": [],
        "copyrights": scan_copyrights(files),
        "depends": [],
    }]


def ring_components(crate_dir):
    files = []
    for top in ("crypto", "include", "third_party", "pregenerated"):
        for d, dirs, fs in os.walk(os.path.join(crate_dir, top)):
            dirs.sort()
            files += [os.path.join(d, f) for f in sorted(fs)
                      if f.endswith((".c", ".h", ".inl", ".S", ".asm", ".pl"))]
    return [{
        "name": "BoringSSL-derived C and assembly in ring", "sbom_name": None, "version": None,
        "purl": None,
        "declared": "Apache-2.0 AND ISC", "used": "Apache-2.0 AND ISC",
        "what": "C and assembly vendored in the ring crate (crypto/, third_party/fiat/, "
                "pregenerated/), compiled and linked statically; parts of BoringSSL and OpenSSL, "
                "and fiat-crypto's generated field arithmetic",
        "choice": "ring's LICENSE: code from BoringSSL under Apache-2.0 (LICENSE-BoringSSL), ring's "
                  "own and older BoringSSL code under ISC (LICENSE-other-bits); fiat-crypto under "
                  "Apache-2.0 (third_party/fiat/LICENSE). The licence of each file is at its top.",
        "texts": [("Apache-2.0", "LICENSE-BoringSSL"), ("ISC", "LICENSE-other-bits"),
                  ("Apache-2.0", "third_party/fiat/LICENSE")],
        "inline": [],
        "copyrights": scan_copyrights(files),
        "depends": [],
    }]


NATIVE = {
    "rust-librocksdb-sys": rocksdb_components,
    "lz4-sys": lz4_components,
    "ring": ring_components,
}

# Extra licence files of crates, beyond those at their top (code they took from elsewhere).
EXTRA_FILES = {
    "ring": ["src/polyfill/once_cell/LICENSE-APACHE", "src/polyfill/once_cell/LICENSE-MIT"],
}


# ---------------------------------------------------------------------------------------------

def collect():
    allowed = allowed_licences()
    plats = platforms()
    meta = json.loads(sh(["cargo", "metadata", "--format-version", "1", "--offline", "--locked"]))
    pkgs = {}
    for p in meta["packages"]:
        key = (p["name"], p["version"])
        if key in pkgs:
            raise Failure(f"two packages named {p['name']} {p['version']}: not handled")
        pkgs[key] = p
    with open(os.path.join(ROOT, "Cargo.lock"), "rb") as f:
        lock = tomllib.load(f)
    checksums = {(p["name"], p["version"]): p.get("checksum") for p in lock["package"]}

    crates = {}  # (name, version) -> info
    edges = set()
    for plat, triple in plats:
        kinds, pairs = walk(triple)
        edges |= pairs
        for key, kind in kinds.items():
            c = crates.setdefault(key, {"name": key[0], "version": key[1], "platforms": [],
                                        "kind": kind})
            c["platforms"].append(plat)
            if kind == "linked":
                c["kind"] = "linked"
    for key, c in crates.items():
        p = pkgs.get(key)
        if p is None:
            raise Failure(f"{key[0]} {key[1]} is in cargo tree but not in cargo metadata")
        c["license"] = p.get("license")
        c["license_file"] = p.get("license_file")
        c["dir"] = os.path.dirname(p["manifest_path"])
        c["source"] = p.get("source")
        c["links"] = p.get("links")
        c["authors"] = p.get("authors") or []
        c["checksum"] = checksums.get(key)
        c["build_deps"] = sorted({d["name"] for d in p["dependencies"] if d["kind"] == "build"})
        c["description"] = (p.get("description") or "").strip()
    return plats, crates, edges, allowed


def crate_files(c):
    names = sorted(f for f in os.listdir(c["dir"])
                   if LICENCE_FILE.match(f) and os.path.isfile(os.path.join(c["dir"], f)))
    if c["license_file"] and c["license_file"] not in names:
        names.append(c["license_file"])
    for extra in EXTRA_FILES.get(c["name"], []):
        if os.path.isfile(os.path.join(c["dir"], extra)):
            names.append(extra)
    return names


def generate(outdir):
    plats, crates, edges, allowed = collect()
    all_plats = [p for p, _ in plats]
    errors = []
    third = {k: c for k, c in crates.items() if c["name"] not in FIRST_PARTY}

    bad = check_licences(third.values(), allowed)
    if bad:
        errors.append("licences not on deny.toml's allow list (" + ", ".join(sorted(allowed))
                      + "):\n  " + "\n  ".join(bad))

    for c in third.values():
        native = c["links"] or {"cc", "cmake"} & set(c["build_deps"])
        if c["kind"] == "linked" and native and c["name"] not in NATIVE:
            errors.append(f"{c['name']} {c['version']} compiles or links native code "
                          f"(links={c['links']}, build-dependencies {c['build_deps']}): review it "
                          "and add it to NATIVE in scripts/third_party_notices.py")

    standard_apache = read_text(os.path.join(ROOT, "LICENSE"))
    if detect(standard_apache) != {"Apache-2.0"}:
        raise Failure("LICENSE is not the Apache-2.0 text this script uses as the standard one")
    texts = Texts(standard_apache)
    standard = {"Apache-2.0"}

    entries = []
    for key in sorted(third, key=lambda k: (k[0], k[1])):
        c = third[key]
        label = f"{c['name']} {c['version']}"
        files = []
        for name in crate_files(c):
            text = read_text(os.path.join(c["dir"], name))
            files.append((name, text, detect(text)))
        available = {lic for _, _, ids in files for lic in ids}
        expr = c["license"]
        if not expr:
            continue  # reported by check_licences
        node = parse_spdx(expr)
        used = choose(node, allowed, lambda l: l in available or l in standard)
        if used is None:
            continue  # reported by check_licences
        missing = [l for l in used if l not in available and l not in standard]
        if missing:
            errors.append(f"{label} ({expr}): no text of {', '.join(missing)} in the crate and no "
                          f"standard text of it here; files: {[f for f, _, _ in files] or 'none'}")
        refs, notices, omitted = [], [], []
        for name, text, ids in files:
            if NOTICE_FILE.match(os.path.basename(name)):
                notices.append((name, text))
            elif not ids or ids & set(used) or THIRD_PARTY_FILE.search(name):
                title = f"{'/'.join(sorted(ids)) or 'licence statement'} ({label}: {name})"
                refs.append((texts.add(",".join(sorted(ids)), title, text, label), name))
            else:
                omitted.append(f"{name} ({', '.join(sorted(ids))})")
        for lic in used:
            if lic not in available:
                refs.append((texts.add(lic, "", standard_apache, label),
                             f"standard {lic} text: the crate has no licence file"))
        cr = sorted({l for _, text, _ in files for l in copyright_lines(text)})
        c["used"] = used
        c["expr"] = normalize_spdx(expr)
        entries.append((c, refs, notices, omitted, cr))

    natives = []
    for key in sorted(third):
        c = third[key]
        if c["name"] in NATIVE and c["kind"] == "linked":
            for comp in NATIVE[c["name"]](c["dir"]):
                comp["crate"] = c
                natives.append(comp)
    names = {c["name"] for c in third.values() if c["kind"] == "linked"}
    for need in ("rust-librocksdb-sys", "lz4-sys"):
        if need not in names:
            errors.append(f"{need} is not linked: review NATIVE in scripts/third_party_notices.py")

    if errors:
        raise Failure("\n".join(errors))

    os.makedirs(outdir, exist_ok=True)
    root = crates[next(k for k in crates if k[0] == ROOT_CRATE)]
    write_notices(os.path.join(outdir, NOTICES), root, plats, entries, natives, texts)
    write_sbom(os.path.join(outdir, SBOM), root, crates, edges, natives, all_plats)
    return crates, natives


def plat_text(c_plats, all_plats):
    return "all" if sorted(c_plats) == sorted(all_plats) else ", ".join(c_plats)


def write_notices(path, root, plats, entries, natives, texts):
    all_plats = [p for p, _ in plats]
    w = []
    add = w.append
    rule = "=" * 100
    add(f"THIRD-PARTY NOTICES: the native library of txn-rocksdb ({root['name']} {root['version']})")
    add("")
    add("The library txn_rocksdb_jni (libtxn_rocksdb_jni.so, libtxn_rocksdb_jni.dylib,")
    add("txn_rocksdb_jni.dll), shipped inside the jar, contains the third-party components below:")
    add("Rust crates and the C and C++ libraries some of them compile in, all linked statically.")
    add("txn-rocksdb itself is licensed under the Apache License, Version 2.0.")
    add("")
    add("Platforms: " + ", ".join(f"{p} ({t})" for p, t in plats) + ".")
    add("\"Platforms: all\" means every one of them.")
    add("")
    add("Where a component may be used under a choice of licences (\"A OR B\"), \"Used under\" names")
    add("the one we use and distribute it under. \"Compile-time\" crates are procedural macros and the")
    add("crates only they use: not linked, but the code they generate is in the library.")
    add("Licence texts are printed once, at the end, and referred to as [Tn]; notice files (NOTICE),")
    add("which the Apache License asks to pass on, are printed with their component.")
    add("")
    add("Generated by scripts/third-party-notices.sh from Cargo.lock and the crates' sources.")
    add("")
    add(rule)
    add("SUMMARY")
    add(rule)
    width = max([len(f"{c['name']} {c['version']}") for c, *_ in entries]
                + [len(f"{n['name']} {n['version'] or ''}") for n in natives]) + 2
    for c, *_ in entries:
        kind = "" if c["kind"] == "linked" else "  [compile-time]"
        plat = plat_text(c["platforms"], all_plats)
        plat = "" if plat == "all" else f"  [{plat}]"
        add(f"{c['name'] + ' ' + c['version']:<{width}}{' AND '.join(c['used'])}{kind}{plat}")
    for n in natives:
        ver = f" {n['version']}" if n["version"] else ""
        add(f"{n['name'] + ver:<{width}}{n['used']}  [in {n['crate']['name']}]")
    add(f"{'Rust standard library':<{width}}Apache-2.0  [from the Rust toolchain]")
    add("")
    add(rule)
    add("PART 1: RUST CRATES")
    add(rule)
    for c, refs, notices, omitted, cr in entries:
        add("")
        add(f"{c['name']} {c['version']}")
        add("-" * len(f"{c['name']} {c['version']}"))
        if c["description"]:
            add(f"  {norm_ws(c['description'])}")
        add(f"  Source: crates.io, https://crates.io/crates/{c['name']}/{c['version']}"
            if c["source"] and "crates.io" in c["source"] else f"  Source: {c['source']}")
        add(f"  Licence: {c['expr']}")
        if c["used"] != [c["expr"]]:
            add(f"  Used under: {' AND '.join(c['used'])}")
        add(f"  Platforms: {plat_text(c['platforms'], all_plats)}")
        if c["kind"] != "linked":
            add("  Compile-time: a procedural macro, or used only by them")
        if cr:
            add("  Copyright:")
            for line in cr:
                add(f"    {line}")
        else:
            authors = ", ".join(re.sub(r"\s*<[^>]*>", "", a) for a in c["authors"])
            add(f"  Copyright: no copyright line in its files; authors (Cargo.toml): "
                f"{authors or 'none named'}")
        add("  Licence texts: " + "; ".join(f"[{r}] {what}" for r, what in refs))
        if omitted:
            add("  Not reproduced (licences we do not use it under): " + ", ".join(omitted))
        for name, text in notices:
            add(f"  Notice ({name}):")
            for line in text.rstrip("\n").split("\n"):
                add(f"    | {line}".rstrip())
    add("")
    add(rule)
    add("PART 2: C AND C++ LIBRARIES COMPILED INTO THE LIBRARY, AND RUST'S STANDARD LIBRARY")
    add(rule)
    for n in natives:
        crate = n["crate"]
        title = f"{n['name']} {n['version']}" if n["version"] else n["name"]
        add("")
        add(title)
        add("-" * len(title))
        add(f"  In crate: {crate['name']} {crate['version']}: {n['what']}")
        add(f"  Licence: {n['declared']}")
        add(f"  Used under: {n['used']}")
        add(f"  {n['choice']}")
        add(f"  Platforms: {plat_text(crate['platforms'], all_plats)}")
        add("  Copyright (the lines in the compiled sources and headers):")
        for line in n["copyrights"]:
            add(f"    {line}")
        refs = []
        for lic, rel in n["texts"]:
            text = read_text(os.path.join(crate["dir"], rel))
            refs.append(f"[{texts.add(lic, f'{lic} ({title}: {rel})', text, title)}] {rel}")
        add("  Licence texts: " + "; ".join(refs))
        for sub, lic, text in n["inline"]:
            add(f"  Included code: {sub}, under {lic}; its notice:")
            for line in text.rstrip("\n").split("\n"):
                add(f"    | {line}".rstrip())
    # Not from Cargo.lock: the toolchain's own libraries, linked into every Rust cdylib.
    add("")
    add("Rust standard library")
    add("---------------------")
    add("  From the Rust toolchain that builds the library, not from Cargo.lock: std, core, alloc and")
    add("  the crates they are built from, linked statically into every Rust library.")
    add("  Licence: MIT OR Apache-2.0 (compiler_builtins also carries LLVM's compiler-rt, under")
    add("  Apache-2.0 WITH LLVM-exception)")
    add("  Used under: Apache-2.0")
    add("  Platforms: all")
    add("  Copyright: copyrights in the Rust project are retained by their contributors")
    add(f"  Licence texts: [{texts.add('Apache-2.0', '', texts.apache, 'Rust standard library')}]")
    add("")
    add(rule)
    add("PART 3: LICENCE TEXTS")
    add(rule)
    for ref, title, text, users in texts.items:
        add("")
        head = f"[{ref}] {title}"
        add(head)
        add("-" * len(head))
        add("Used by: " + ", ".join(sorted(users)))
        add("")
        add(text.rstrip("\n"))
    add("")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(w))


def purl(name, version):
    return f"pkg:cargo/{name}@{version}"


def write_sbom(path, root, crates, edges, natives, all_plats):
    def props(c):
        p = [{"name": "txn-rocksdb:platforms", "value": ",".join(c["platforms"])}]
        if c.get("used"):
            p.append({"name": "txn-rocksdb:license-used", "value": " AND ".join(c["used"])})
        if c["kind"] != "linked":
            p.append({"name": "txn-rocksdb:compile-time", "value": "true"})
        return p

    components = []
    for key in sorted(crates):
        c = crates[key]
        if c["name"] == ROOT_CRATE:
            continue
        comp = {
            "type": "library",
            "bom-ref": purl(*key),
            "name": c["name"],
            "version": c["version"],
            "scope": "required" if c["kind"] == "linked" else "excluded",
            "licenses": [{"expression": normalize_spdx(c["license"])}],
            "purl": purl(*key),
        }
        if c["description"]:
            comp["description"] = norm_ws(c["description"])
        if c["checksum"]:
            comp["hashes"] = [{"alg": "SHA-256", "content": c["checksum"]}]
        comp["properties"] = props(c)
        components.append(comp)
    deps = defaultdict(set)
    for a, b in edges:
        if a != b:
            deps[purl(*a)].add(purl(*b))
    for n in natives:
        if not n["sbom_name"]:
            continue
        ref = n["purl"]
        components.append({
            "type": "library",
            "bom-ref": ref,
            "name": n["sbom_name"],
            "version": n["version"],
            "scope": "required",
            "description": n["what"],
            "licenses": [{"expression": n["declared"]}],
            "purl": ref,
            "properties": [
                {"name": "txn-rocksdb:platforms", "value": ",".join(n["crate"]["platforms"])},
                {"name": "txn-rocksdb:license-used", "value": n["used"]},
                {"name": "txn-rocksdb:vendored-in",
                 "value": purl(n["crate"]["name"], n["crate"]["version"])},
            ],
        })
        deps[purl(n["crate"]["name"], n["crate"]["version"])].add(ref)
        deps[ref]  # present, even without dependencies
    by_name = {n["sbom_name"]: n["purl"] for n in natives if n["sbom_name"]}
    for n in natives:
        for d in n["depends"]:
            if n["sbom_name"] and d in by_name:
                deps[n["purl"]].add(by_name[d])
    refs = {c["bom-ref"] for c in components} | {purl(root["name"], root["version"])}
    dependencies = [{"ref": r, "dependsOn": sorted(deps.get(r, ()))} for r in sorted(refs)]
    body = {
        "bomFormat": "CycloneDX",
        "specVersion": "1.5",
        "version": 1,
        "metadata": {
            "tools": {"components": [{"type": "application", "name": "third-party-notices.sh",
                                      "group": "txn-rocksdb",
                                      "description": "scripts/third-party-notices.sh"}]},
            "component": {
                "type": "library",
                "bom-ref": purl(root["name"], root["version"]),
                "name": root["name"],
                "version": root["version"],
                "description": "the native library txn_rocksdb_jni of dev.txnrocksdb:txn-rocksdb-streams",
                "licenses": [{"expression": normalize_spdx(root["license"])}],
                "purl": purl(root["name"], root["version"]),
                "properties": [{"name": "txn-rocksdb:platforms", "value": ",".join(all_plats)}],
            },
        },
        "components": components,
        "dependencies": dependencies,
    }
    # A serial number from the content: the same inputs, the same document.
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).digest()
    body = {"bomFormat": body.pop("bomFormat"), "specVersion": body.pop("specVersion"),
            "serialNumber": f"urn:uuid:{uuid.UUID(bytes=digest[:16], version=4)}", **body}
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        json.dump(body, f, indent=2, ensure_ascii=False)
        f.write("\n")


# ---------------------------------------------------------------------------------------------
# --check: the outputs' shape

def validate_sbom(doc):
    """Problems with a CycloneDX document's shape (no schema download): a list of strings."""
    errs = []
    for field in ("bomFormat", "specVersion", "version", "metadata", "components", "dependencies"):
        if field not in doc:
            errs.append(f"missing {field}")
    if doc.get("bomFormat") != "CycloneDX":
        errs.append("bomFormat is not CycloneDX")
    if doc.get("specVersion") not in ("1.5", "1.6"):
        errs.append(f"specVersion {doc.get('specVersion')}")
    if not re.fullmatch(r"urn:uuid:[0-9a-f-]{36}", doc.get("serialNumber", "")):
        errs.append("serialNumber is not a urn:uuid")
    meta = doc.get("metadata", {}).get("component", {})
    for field in ("type", "name", "version", "bom-ref", "purl"):
        if not meta.get(field):
            errs.append(f"metadata.component has no {field}")
    purls, refs = set(), {meta.get("bom-ref")}
    for c in doc.get("components", []):
        label = f"{c.get('name')} {c.get('version')}"
        for field in ("type", "name", "version", "bom-ref", "purl", "licenses"):
            if not c.get(field):
                errs.append(f"{label}: no {field}")
        if c.get("type") not in ("library", "application", "framework", "file"):
            errs.append(f"{label}: type {c.get('type')}")
        if c.get("scope") not in ("required", "optional", "excluded"):
            errs.append(f"{label}: scope {c.get('scope')}")
        p = c.get("purl", "")
        if p in purls:
            errs.append(f"purl {p} twice")
        purls.add(p)
        if c.get("bom-ref") in refs:
            errs.append(f"bom-ref {c.get('bom-ref')} twice")
        refs.add(c.get("bom-ref"))
        if p.startswith("pkg:cargo/"):
            if p != f"pkg:cargo/{c.get('name')}@{c.get('version')}":
                errs.append(f"{label}: purl {p}")
            if c.get("name") not in FIRST_PARTY:
                h = c.get("hashes") or []
                if not (len(h) == 1 and h[0].get("alg") == "SHA-256"
                        and re.fullmatch(r"[0-9a-f]{64}", h[0].get("content", ""))):
                    errs.append(f"{label}: no SHA-256 hash")
        for lic in c.get("licenses", []):
            if not lic.get("expression"):
                errs.append(f"{label}: licence without an expression")
            else:
                try:
                    parse_spdx(lic["expression"])
                except Failure as e:
                    errs.append(f"{label}: {e}")
    seen = set()
    for d in doc.get("dependencies", []):
        if d.get("ref") not in refs:
            errs.append(f"dependency of unknown ref {d.get('ref')}")
        if d.get("ref") in seen:
            errs.append(f"dependencies list {d.get('ref')} twice")
        seen.add(d.get("ref"))
        for t in d.get("dependsOn", []):
            if t not in refs:
                errs.append(f"{d.get('ref')} depends on unknown ref {t}")
    if refs - seen:
        errs.append(f"no dependencies entry for {sorted(refs - seen)[:5]}")
    return errs


def check(outdir, crates, natives):
    errs = []
    with open(os.path.join(outdir, SBOM), encoding="utf-8") as f:
        doc = json.load(f)
    errs += validate_sbom(doc)
    with open(os.path.join(outdir, NOTICES), encoding="utf-8") as f:
        notices = f.read()
    purls = {c["purl"] for c in doc["components"]}
    for c in crates.values():
        if c["name"] == ROOT_CRATE:
            continue
        if purl(c["name"], c["version"]) not in purls:
            errs.append(f"{c['name']} {c['version']} is not in the SBOM")
        if c["name"] not in FIRST_PARTY and f"\n{c['name']} {c['version']}\n" not in notices:
            errs.append(f"{c['name']} {c['version']} has no entry in the notices")
    for n in natives:
        if n["sbom_name"] and n["purl"] not in purls:
            errs.append(f"{n['name']} is not in the SBOM")
    if "/root/" in notices or "/home/" in notices or ".cargo/registry" in notices:
        errs.append("the notices name a local path")
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="also validate the two files (SBOM shape, every crate in both)")
    ap.add_argument("outdir")
    args = ap.parse_args()
    try:
        crates, natives = generate(args.outdir)
    except Failure as e:
        print(f"third-party-notices: {e}", file=sys.stderr)
        return 1
    if args.check:
        errs = check(args.outdir, crates, natives)
        if errs:
            print("third-party-notices --check:\n  " + "\n  ".join(errs), file=sys.stderr)
            return 1
    linked = sum(1 for c in crates.values() if c["kind"] == "linked" and c["name"] not in FIRST_PARTY)
    other = sum(1 for c in crates.values() if c["kind"] != "linked")
    print(f"third-party-notices: {linked} linked crates, {other} compile-time crates, "
          f"{len(natives)} vendored C/C++ libraries -> {os.path.join(args.outdir, NOTICES)}, "
          f"{os.path.join(args.outdir, SBOM)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
