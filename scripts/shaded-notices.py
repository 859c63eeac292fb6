#!/usr/bin/env python3
"""Writes the third-party notices of the Java libraries a shaded jar carries (the tool's runnable jar).

    scripts/shaded-notices.py --bom BOM.json --repository LOCAL_REPO --output FILE [--version V] [--title TITLE]

tool/pom.xml runs it before the jar is packaged, so that its output is the first part of the jar's
META-INF/THIRD-PARTY-NOTICES.txt; the shade plugin appends txn-rocksdb-streams' own (the licences of
everything the native library links) after it. What the jar carries is the module's runtime
dependency graph (tool/pom.xml excludes what the jar must not carry, so that graph and the jar agree),
which the CycloneDX bill of materials of the module (cyclonedx-maven-plugin, with licence texts)
lists: for each library, its coordinates, its licences as its POM declares them, the libraries
shaded into its own jar (their pom.properties: kafka-clients carries commons-net), and the licence
and notice files its jar carries, reproduced in full; then each licence's standard text (SPDX, from
the bill of materials) once. Identical texts are written once. Nothing here is hand-written, so a
new dependency, or a new version of one, changes the notices with it; scripts/check-bundle.py
checks that the released jar's notices name every library of its bill of materials and every
pom.properties inside the jar.

The jars are read from the local Maven repository (LOCAL_REPO, ${settings.localRepository}), where
the build resolved them; artifacts of the bill of materials' own group (dev.txnrocksdb: the library,
built in the same reactor) are ours and described, not read.

Without the bill of materials, or with one an earlier build left for another version than --version
(cyclonedx-maven-plugin's goals need Maven online: `mvn -o` skips them), it writes a notice saying
so and exits 0, so that an offline development build still
packages; a release builds online, and scripts/release.sh and scripts/check-bundle.py refuse a jar
whose notices do not list its bill of materials.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import sys
import urllib.parse
import zipfile

# Licence and notice files in a jar: at its top level or under META-INF/ (META-INF/LICENSE.txt,
# LICENSE, NOTICE, META-INF/FastDoubleParser-LICENSE, ...).
LEGAL = re.compile(r"(?i)^(META-INF/([^/]+/)?)?[^/]*(licen[cs]e|notice|copying|copyright)[^/]*$")


def maven_path(repository, component):
    """The jar of a component (its purl: pkg:maven/group/name@version?type=jar&classifier=...)."""
    purl = component.get("purl", "")
    qualifiers = urllib.parse.parse_qs(purl.partition("?")[2])
    extension = qualifiers.get("type", ["jar"])[0]
    classifier = qualifiers.get("classifier", [""])[0]
    group, name, version = component["group"], component["name"], component["version"]
    file = f"{name}-{version}{'-' + classifier if classifier else ''}.{extension}"
    return os.path.join(repository, *group.split("."), name, version, file)


def licences(component):
    """(label, SPDX text or None) for each licence the component's POM declares."""
    out = []
    for entry in component.get("licenses", []):
        licence = entry.get("license", {})
        label = licence.get("id") or licence.get("name") or entry.get("expression") or "unknown"
        if licence.get("url"):
            label += f" ({licence['url']})"
        text = licence.get("text", {})
        content = text.get("content")
        if content and text.get("encoding") == "base64":
            content = base64.b64decode(content).decode("utf-8", "replace")
        out.append((licence.get("id") or licence.get("name") or label, label, content))
    return out


def normalized(text):
    return "\n".join(line.rstrip() for line in text.strip().splitlines()) + "\n"


def write(bom_path, repository, output, title, version=None):
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    bom = None
    if os.path.isfile(bom_path):
        with open(bom_path, encoding="utf-8") as f:
            bom = json.load(f)
        if version and bom.get("metadata", {}).get("component", {}).get("version") != version:
            bom = None  # an earlier build's, for another version: not this jar's
    if bom is None:
        with open(output, "w", encoding="utf-8") as f:
            f.write(f"{title}\n\nNot generated: this build had no bill of materials ({bom_path}; cyclonedx-maven-plugin\n"
                    "runs only when Maven is online). A release build lists every Java library the jar carries here.\n\n")
        print(f"shaded-notices.py: no {bom_path} of version {version} (an offline build?): {output} says the list is missing",
              file=sys.stderr)
        return 0
    ours = bom.get("metadata", {}).get("component", {}).get("group", "")
    components = sorted(bom.get("components", []), key=lambda c: (c.get("group", ""), c["name"], c["version"]))

    texts = {}  # digest -> [text, [who]]
    spdx = {}  # licence id -> [text, [who]]
    lines = [title, "",
             "This jar is a runnable (shaded) jar: besides its own classes it carries the Java libraries below, their",
             "classes and resources copied into it, and txn-rocksdb-streams with the native library, whose notices (the",
             "licences of everything the native library links) follow this list. For each library: its licences as its",
             "POM declares them, the libraries shaded into its own jar, and the licence and notice files its jar",
             "carries, whose texts follow the list (each distinct text once), then each licence's standard text.",
             "Generated by scripts/shaded-notices.py from the module's CycloneDX bill of materials.", ""]
    missing = []
    for c in components:
        who = f"{c['group']}:{c['name']} {c['version']}"
        lines.append(who)
        for key, label, content in licences(c):
            lines.append(f"  licence: {label}")
            if content:
                spdx.setdefault(key, [content, []])[1].append(who)
        if c.get("group") == ours:
            lines.append("  ours: its licence is META-INF/LICENSE; the native library's notices follow this list")
            lines.append("")
            continue
        jar = maven_path(repository, c)
        if not os.path.isfile(jar):
            missing.append(f"{who}: {jar}")
            continue
        with zipfile.ZipFile(jar) as z:
            names = sorted(n for n in z.namelist() if not n.endswith("/"))
            inside = []
            for n in names:
                m = re.fullmatch(r"META-INF/maven/([^/]+)/([^/]+)/pom\.properties", n)
                if m and (m.group(1), m.group(2)) != (c["group"], c["name"]):
                    props = dict(re.findall(r"^(\w+)=(.*)$", z.read(n).decode("utf-8", "replace"), re.M))
                    inside.append(f"{m.group(1)}:{m.group(2)} {props.get('version', '?').strip()}")
            if inside:
                lines.append(f"  carries, shaded into its jar: {', '.join(inside)}")
            files = []
            for n in names:
                if LEGAL.match(n) and not n.endswith(".class"):
                    text = normalized(z.read(n).decode("utf-8", "replace"))
                    digest = hashlib.sha256(text.encode()).hexdigest()
                    texts.setdefault(digest, [text, []])[1].append(f"{n} of {who}")
                    files.append(f"{n} [text {list(texts).index(digest) + 1}]")
            lines.append(f"  files in its jar: {', '.join(files) if files else 'none (its licence: the standard text below)'}")
        lines.append("")
    if missing:
        print("shaded-notices.py: jars of the bill of materials not in the local repository " + repository + ":\n  "
              + "\n  ".join(missing), file=sys.stderr)
        return 1

    rule = "=" * 100
    for i, (text, where) in enumerate(texts.values(), 1):
        lines += [rule, f"text {i}: {'; '.join(where)}", rule, text]
    for key in sorted(spdx):
        text, where = spdx[key]
        lines += [rule, f"{key}, the standard text (SPDX), the licence of: {'; '.join(where)}", rule, normalized(text)]
    lines += [rule, "txn-rocksdb-streams' native library: its third-party notices", rule, ""]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    print(f"shaded-notices.py: {output}: {len(components)} libraries, {len(texts)} licence and notice files, "
          f"{len(spdx)} standard licence texts")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bom", required=True)
    parser.add_argument("--repository", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--title", default="Third-party notices")
    parser.add_argument("--version", help="the module's version: a bill of materials of another version is ignored")
    args = parser.parse_args()
    return write(args.bom, args.repository, args.output, args.title, args.version)


if __name__ == "__main__":
    sys.exit(main())
