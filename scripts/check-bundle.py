#!/usr/bin/env python3
"""Checks a release bundle against what Maven Central's publisher portal requires, and what we add.

    scripts/check-bundle.py BUNDLE.zip --public-key KEY.asc [--self-test]

A release bundle holds two components (COMPONENTS), checked with the same rules: the library
txn-rocksdb-streams and the operators' tool txn-rocksdb-tool (its runnable jar shades the library).
Central's rules (central.sonatype.org, "Requirements"), for each: the repository layout
group/artifact/version/artifact-version[-classifier].ext; a POM with groupId, artifactId, version,
name, description, url, licenses, developers and scm; sources and javadoc jars; every file signed
(.asc, verified here against the given public key) and checksummed (.md5 and .sha1; we also give
.sha256 and .sha512 and check them); no -SNAPSHOT version. Ours on top: one version for the whole
bundle, no <parent> in a POM (a parent would have to be published too), non-empty sources (.java)
and javadoc (index.html) jars, each jar carries every native library with its library.properties,
the licence and the third-party notices, and the two bills of materials are present and list what
the native libraries link. A jar that carries other artifacts (their META-INF/maven/.../pom.properties
inside it: shaded) must name each of them, and each library of its Java bill of materials, in its
notices, and its POM must not declare any of them (a consumer would pull them again); a jar that
carries another component of the bundle must carry that component's native/ entries byte for byte,
at the bundle's version.

--self-test also damages copies of the bundle in every way the check exists for (a changed byte, a
missing signature, a -SNAPSHOT POM, a POM without licences, an empty javadoc jar, a bill of
materials missing a crate the notices list, ... for each component; a tool POM that declares what
its jar carries, notices missing a shaded library, a tool jar with another native library) and fails
unless each copy is refused.
Exit status: 0 when the bundle passes, 1 with one line per problem otherwise.
"""
import argparse
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile

POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
CHECKSUMS = {"md5": hashlib.md5, "sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}
# The components a release bundle carries (one deployment on the portal).
COMPONENTS = ["txn-rocksdb-streams", "txn-rocksdb-tool"]
# Files each component must have, by classifier and extension ("" = no classifier).
REQUIRED = [("", "jar"), ("", "pom"), ("sources", "jar"), ("javadoc", "jar"),
            ("cyclonedx", "json"), ("cyclonedx-native", "json"), ("third-party-notices", "txt")]
POM_REQUIRED = ["groupId", "artifactId", "version", "name", "description", "url",
                "licenses/m:license/m:name", "developers/m:developer", "scm/m:url", "scm/m:connection"]
SIDE_FILES = re.compile(r"\.(asc|md5|sha1|sha256|sha512)$")


def check(files, public_key):
    """files: {path in the bundle: bytes}. Returns a list of problems (empty when the bundle passes)."""
    problems = []
    poms = sorted(p for p in files if p.endswith(".pom"))
    directories = {}
    for pom_path in poms:
        parts = pom_path.split("/")
        if len(parts) < 4:
            problems.append(f"{pom_path} is not at group/artifact/version/file")
            continue
        directory = "/".join(parts[:-1])
        if directory in directories:
            problems.append(f"{directory} holds more than one POM: {directories[directory]}, {pom_path}")
            continue
        directories[directory] = pom_path
    found = sorted(d.split("/")[-2] for d in directories)
    for artifact in COMPONENTS:
        if artifact not in found:
            problems.append(f"the bundle lacks the component {artifact} (it holds: {', '.join(found) or 'no POM'})")
    versions = {d.split("/")[-1] for d in directories}
    groups = {".".join(d.split("/")[:-2]) for d in directories}
    if len(versions) > 1 or len(groups) > 1:
        problems.append(f"the components are not of one group and version: {sorted(directories)}")
    for path in files:
        if not any(path.startswith(d + "/") for d in directories):
            problems.append(f"{path} is in no component's directory")
    artifacts = [p for p in files if not SIDE_FILES.search(p)]
    problems += verify_signatures(files, artifacts, public_key)
    jars = {}
    for directory, pom_path in sorted(directories.items()):
        component_problems, jars[directory.split("/")[-2]] = check_component(files, directory, pom_path)
        problems += component_problems
    problems += check_carried_components(jars)
    return problems


def check_component(files, directory, pom_path):
    """The rules of one component; returns (problems, what its jar carries for check_carried_components)."""
    problems = []
    parts = directory.split("/")
    group, artifact, version = ".".join(parts[:-2]), parts[-2], parts[-1]
    base = f"{artifact}-{version}"
    if "SNAPSHOT" in version:
        problems.append(f"{artifact}: version {version} is a SNAPSHOT: Central refuses it")

    # The POM.
    try:
        pom = ET.fromstring(files[pom_path])
    except ET.ParseError as e:
        return problems + [f"{pom_path} is not XML: {e}"], None
    for element in POM_REQUIRED:
        found = pom.find("m:" + element, POM_NS)
        if found is None or (found.text is not None and not found.text.strip() and len(found) == 0):
            problems.append(f"{artifact}: the POM has no <{element.replace('m:', '')}>")
    for element, expected in (("groupId", group), ("artifactId", artifact), ("version", version)):
        found = pom.find("m:" + element, POM_NS)
        if found is not None and found.text != expected:
            problems.append(f"{artifact}: the POM's <{element}> is {found.text}, but the bundle's layout says {expected}")
    if pom.find("m:parent", POM_NS) is not None:
        problems.append(f"{artifact}: the POM has a <parent>, which would have to be published too (flatten it)")
    if "SNAPSHOT" in files[pom_path].decode("utf-8", "replace"):
        problems.append(f"{artifact}: the POM names a SNAPSHOT version")
    # What a consumer's build pulls in with it: the POM's dependencies that are neither test, provided
    # nor optional.
    declared = set()
    for d in pom.findall("m:dependencies/m:dependency", POM_NS):
        scope = (d.findtext("m:scope", "compile", POM_NS) or "compile").strip()
        if scope in ("compile", "runtime") and (d.findtext("m:optional", "false", POM_NS) or "").strip() != "true":
            declared.add((d.findtext("m:groupId", "", POM_NS).strip(), d.findtext("m:artifactId", "", POM_NS).strip()))

    # Every file: in the directory, named for the artifact, signed, checksummed.
    artifacts = [p for p in files if p.startswith(directory + "/") and not SIDE_FILES.search(p)]
    for classifier, ext in REQUIRED:
        name = f"{directory}/{base}{'-' + classifier if classifier else ''}.{ext}"
        if name not in files:
            problems.append(f"missing {name}")
    for path in artifacts:
        if not os.path.basename(path).startswith(base):
            problems.append(f"{path} is not {directory}/{base}[-classifier].ext")
        for algorithm, digest in CHECKSUMS.items():
            if path + "." + algorithm not in files:
                problems.append(f"missing {path}.{algorithm}")
            elif files[path + "." + algorithm].decode().strip() != digest(files[path]).hexdigest():
                problems.append(f"{path}.{algorithm} does not match the file")
        if path + ".asc" not in files:
            problems.append(f"missing the signature {path}.asc")

    # What each jar holds.
    def entries(path):
        try:
            return zipfile.ZipFile(io.BytesIO(files[path])).namelist() if path in files else []
        except zipfile.BadZipFile:
            problems.append(f"{path} is not a jar")
            return []
    if f"{directory}/{base}-sources.jar" in files and not any(e.endswith(".java") for e in entries(f"{directory}/{base}-sources.jar")):
        problems.append(f"{artifact}: the sources jar holds no .java file")
    if any(re.fullmatch(r"native/[^/]+/.+", e) for e in entries(f"{directory}/{base}-sources.jar")):
        problems.append(f"{artifact}: the sources jar holds native libraries")
    if f"{directory}/{base}-javadoc.jar" in files and "index.html" not in entries(f"{directory}/{base}-javadoc.jar"):
        problems.append(f"{artifact}: the javadoc jar holds no index.html")
    jar_path = f"{directory}/{base}.jar"
    jar = entries(jar_path)
    carried = {}  # (group, artifact) of each other artifact the jar carries -> its version
    contents = None
    if jar:
        for needed in ("META-INF/LICENSE", "META-INF/THIRD-PARTY-NOTICES.txt", "META-INF/txn-rocksdb-native.cdx.json"):
            if needed not in jar:
                problems.append(f"{artifact}: the jar lacks {needed}")
        if not any(re.fullmatch(r"native/[^/]+/library\.properties", e) for e in jar):
            problems.append(f"{artifact}: the jar holds no native library (native/<platform>/library.properties)")
        # The version the loader checks and Maven's own record of it, both the bundle's.
        archive = zipfile.ZipFile(io.BytesIO(files[jar_path]))
        for entry in ("native/txn-rocksdb.properties", f"META-INF/maven/{group}/{artifact}/pom.properties"):
            text = archive.read(entry).decode() if entry in jar else ""
            if f"version={version}\n" not in text + "\n" or re.search(r"^version=(?!" + re.escape(version) + r"$)", text, re.M):
                problems.append(f"{artifact}: the jar's {entry} does not say version={version}")
        for e in jar:
            m = re.fullmatch(r"META-INF/maven/([^/]+)/([^/]+)/pom\.properties", e)
            if m and (m.group(1), m.group(2)) != (group, artifact):
                props = dict(re.findall(r"^(\w+)=(.*)$", archive.read(e).decode("utf-8", "replace"), re.M))
                carried[(m.group(1), m.group(2))] = props.get("version", "").strip()
        contents = {"group": group, "version": version, "carried": carried,
                    "native": {e: archive.read(e) for e in jar if e.startswith("native/") and not e.endswith("/")}}

    # The bills of materials and the notices: what the native libraries link, listed in both.
    notices_path = f"{directory}/{base}-third-party-notices.txt"
    native_path = f"{directory}/{base}-cyclonedx-native.json"
    java_path = f"{directory}/{base}-cyclonedx.json"
    try:
        native = json.loads(files[native_path]) if native_path in files else None
        java = json.loads(files[java_path]) if java_path in files else None
    except ValueError as e:
        return problems + [f"{artifact}: a bill of materials is not JSON: {e}"], contents
    for name, bom in (("Java", java), ("native", native)):
        if bom is not None and (bom.get("bomFormat") != "CycloneDX" or not bom.get("components")):
            problems.append(f"{artifact}: the {name} bill of materials is not a CycloneDX document with components")
    if java is not None and not any(c.get("name") == "kafka-streams" for c in java.get("components", [])):
        problems.append(f"{artifact}: the Java bill of materials does not list kafka-streams")
    notices = files[notices_path].decode("utf-8", "replace") if notices_path in files else None
    if jar and notices_path in files and "META-INF/THIRD-PARTY-NOTICES.txt" in jar \
            and zipfile.ZipFile(io.BytesIO(files[jar_path])).read("META-INF/THIRD-PARTY-NOTICES.txt") != files[notices_path]:
        problems.append(f"{artifact}: the notices beside the jar are not its META-INF/THIRD-PARTY-NOTICES.txt")
    if native is not None and notices is not None:
        components = native.get("components", [])
        names = {c.get("name", "").lower() for c in components}
        for needed in ("rocksdb", "lz4", "jni"):
            if needed not in names:
                problems.append(f"{artifact}: the native bill of materials does not list {needed}")
        # Third-party crates: ours (txn-rocksdb, txn-rocksdb-format) are in the bill of materials, not the notices.
        crates = [c for c in components if c.get("purl", "").startswith("pkg:cargo/") and not c["name"].startswith("txn-rocksdb")]
        if len(crates) < 20:
            problems.append(f"{artifact}: the native bill of materials lists {len(crates)} crates; the library links far more")
        for c in crates:
            if f"{c['name']} {c['version']}" not in notices:
                problems.append(f"{artifact}: the notices do not name {c['name']} {c['version']}, which the bill of materials lists")
        listed = set(re.findall(r"^(?:crate|component|##+)?\s*([A-Za-z0-9_.-]+) (\d+\.\d+\.\d+[^\s]*)", notices, re.M))
        for name, ver in sorted(listed):
            if (name.lower(), ver) not in {(c.get("name", "").lower(), c.get("version")) for c in components} and name.lower() in names:
                problems.append(f"{artifact}: the notices name {name} {ver}, which the bill of materials does not list at that version")

    # A jar that carries other artifacts (shaded): everything it carries named in its notices, and none
    # of it declared as a dependency. What it carries: the pom.properties inside it and, since it is
    # then a jar of its dependencies, every library of its Java bill of materials.
    if carried:
        inside = {ga: v for ga, v in carried.items()}
        for c in (java or {}).get("components", []):
            if c.get("group") and c.get("name"):
                inside.setdefault((c["group"], c["name"]), c.get("version", ""))
        for (g, a), v in sorted(inside.items()):
            if notices is not None and f"{g}:{a} {v}" not in notices:
                problems.append(f"{artifact}: the notices do not name {g}:{a} {v}, which the jar carries")
            if (g, a) in declared:
                problems.append(f"{artifact}: the POM declares {g}:{a}, which the jar carries (a consumer would pull it again)")
    return problems, contents


def check_carried_components(jars):
    """A component whose jar carries another component of the bundle carries that component's jar of
    this release: the same native/ entries, byte for byte, at the bundle's version."""
    problems = []
    for artifact, contents in sorted(jars.items()):
        if not contents:
            continue
        for other, theirs in sorted(jars.items()):
            if other == artifact or not theirs or (theirs["group"], other) not in contents["carried"]:
                continue
            version = contents["carried"][(theirs["group"], other)]
            if version != theirs["version"]:
                problems.append(f"{artifact}: the jar carries {other} {version}, not the bundle's {theirs['version']}")
            mine, expected = contents["native"], theirs["native"]
            for entry in sorted(set(mine) | set(expected)):
                if entry not in mine:
                    problems.append(f"{artifact}: the jar lacks {other}'s {entry}")
                elif entry not in expected:
                    problems.append(f"{artifact}: the jar carries {entry}, which {other}'s jar does not")
                elif mine[entry] != expected[entry]:
                    problems.append(f"{artifact}: the jar's {entry} is not {other}'s (another build of the native library)")
    return problems


# (sha256 of the file, sha256 of its signature, key) -> the problem, or None: the self-test checks
# many copies of one bundle, each with a file or two changed, and gpg need not verify the others again.
VERIFIED = {}


def verify_signatures(files, artifacts, public_key):
    problems = []
    todo = []
    for path in artifacts:
        if path + ".asc" not in files:
            continue
        key = (hashlib.sha256(files[path]).hexdigest(), hashlib.sha256(files[path + ".asc"]).hexdigest(), public_key)
        if key in VERIFIED:
            if VERIFIED[key]:
                problems.append(f"the signature {path}.asc does not verify: {VERIFIED[key]}")
        else:
            todo.append((path, key))
    if not todo:
        return problems
    with tempfile.TemporaryDirectory() as home:
        os.chmod(home, 0o700)
        env = dict(os.environ, GNUPGHOME=home)
        imported = subprocess.run(["gpg", "--batch", "--quiet", "--import", public_key], env=env, capture_output=True)
        if imported.returncode != 0:
            return [f"gpg could not import the public key {public_key}: {imported.stderr.decode().strip()}"]
        for path, key in todo:
            signed = os.path.join(home, "file")
            signature = os.path.join(home, "file.asc")
            with open(signed, "wb") as f:
                f.write(files[path])
            with open(signature, "wb") as f:
                f.write(files[path + ".asc"])
            result = subprocess.run(["gpg", "--batch", "--verify", signature, signed], env=env, capture_output=True)
            VERIFIED[key] = None
            if result.returncode != 0:
                VERIFIED[key] = result.stderr.decode().strip().splitlines()[-1]
                problems.append(f"the signature {path}.asc does not verify: {VERIFIED[key]}")
        subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True)
    return problems


def read_bundle(path):
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist() if not name.endswith("/")}


def self_test(files, public_key):
    """Each damaged copy must be refused with the problem it was damaged for."""
    def damaged(change):
        copy = dict(files)
        change(copy)
        return copy

    def flip(path):
        return lambda c: c.__setitem__(path, bytes([c[path][0] ^ 1]) + c[path][1:])

    def empty_javadoc(base):
        def change(c):
            out = io.BytesIO()
            with zipfile.ZipFile(out, "w") as z:
                z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
            c[base + "-javadoc.jar"] = out.getvalue()
        return change

    def drop_crate(base):
        def change(c):
            bom = json.loads(c[base + "-cyclonedx-native.json"])
            bom["components"] = [x for x in bom["components"] if x.get("name") != "jni"]
            c[base + "-cyclonedx-native.json"] = json.dumps(bom).encode()
        return change

    def edit(path, old, new):
        def change(c):
            assert old in c[path], f"the self-test's damage needs {old!r} in {path}"
            c[path] = c[path].replace(old, new)
        return change

    cases = []
    poms = {p.split("/")[-3]: p for p in files if p.endswith(".pom")}
    for artifact in COMPONENTS:
        if artifact not in poms:
            print(f"check-bundle.py --self-test: the bundle has no {artifact} to damage")
            return False
        pom = poms[artifact]
        base = pom[: -len(".pom")]
        a = re.escape(artifact)
        cases += [
            (f"{artifact}: a changed byte in the jar", flip(base + ".jar"), rf"{a}-[^/]*\.jar\.md5 does not match"),
            (f"{artifact}: a changed byte in the jar", flip(base + ".jar"), rf"{a}-[^/]*\.jar\.asc does not verify"),
            (f"{artifact}: a missing signature", lambda c, b=base: c.pop(b + "-sources.jar.asc"), rf"missing the signature .*{a}-[^/]*-sources\.jar\.asc"),
            (f"{artifact}: a missing javadoc jar", lambda c, b=base: c.pop(b + "-javadoc.jar"), rf"missing .*{a}-[^/]*-javadoc\.jar"),
            (f"{artifact}: a SNAPSHOT POM", lambda c, p=pom: c.__setitem__(p, c[p].replace(b"</version>", b"-SNAPSHOT</version>", 1)), rf"{a}: the POM names a SNAPSHOT"),
            (f"{artifact}: a POM without licences", lambda c, p=pom: c.__setitem__(p, re.sub(rb"<licenses>.*</licenses>", b"", c[p], flags=re.S)), rf"{a}: the POM has no <licenses/license/name>"),
            (f"{artifact}: a POM without scm", lambda c, p=pom: c.__setitem__(p, re.sub(rb"<scm[ >].*</scm>", b"", c[p], flags=re.S)), rf"{a}: the POM has no <scm/url>"),
            (f"{artifact}: a POM with a parent", lambda c, p=pom: c.__setitem__(p, c[p].replace(b"<groupId>", b"<parent><groupId>x</groupId><artifactId>y</artifactId><version>1</version></parent><groupId>", 1)), rf"{a}: the POM has a <parent>"),
            (f"{artifact}: an empty javadoc jar", empty_javadoc(base), rf"{a}: the javadoc jar holds no index\.html"),
            (f"{artifact}: a bill of materials without the jni crate", drop_crate(base), rf"{a}: the native bill of materials does not list jni"),
            (f"{artifact}: no Java bill of materials", lambda c, b=base: c.pop(b + "-cyclonedx.json"), rf"missing .*{a}-[^/]*-cyclonedx\.json"),
            (f"{artifact}: notices beside the jar that are not the jar's", edit(base + "-third-party-notices.txt", b"\n", b"\nextra\n"), rf"{a}: the notices beside the jar are not its META-INF/THIRD-PARTY-NOTICES\.txt"),
        ]
    tool = poms["txn-rocksdb-tool"][: -len(".pom")]
    tool_pom = poms["txn-rocksdb-tool"]

    def tool_declares_kafka_streams(c):
        dependency = b"<dependencies><dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-streams</artifactId><version>4.4.0</version></dependency></dependencies>"
        c[tool_pom] = re.sub(rb"</project>\s*$", dependency + b"</project>\n", c[tool_pom])

    def tool_with_another_native_library(c):
        source = zipfile.ZipFile(io.BytesIO(c[tool + ".jar"]))
        library = next(i.filename for i in source.infolist() if re.fullmatch(r"native/[^/]+/[^/]+", i.filename) and not i.filename.endswith(".properties"))
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
            for info in source.infolist():
                data = source.read(info)
                z.writestr(info, data[:-1] + bytes([data[-1] ^ 1]) if info.filename == library else data)
        c[tool + ".jar"] = out.getvalue()

    cases += [
        ("a bundle without the tool", lambda c: [c.pop(p) for p in list(c) if "/txn-rocksdb-tool/" in p], r"lacks the component txn-rocksdb-tool"),
        ("a tool POM that declares kafka-streams, which its jar carries", tool_declares_kafka_streams,
         r"txn-rocksdb-tool: the POM declares org\.apache\.kafka:kafka-streams, which the jar carries"),
        ("tool notices that leave out kafka-clients", edit(tool + "-third-party-notices.txt", b"org.apache.kafka:kafka-clients ", b"org.apache.kafka:kafka-client "),
         r"txn-rocksdb-tool: the notices do not name org\.apache\.kafka:kafka-clients"),
        ("a tool jar with another build of the native library", tool_with_another_native_library,
         r"txn-rocksdb-tool: the jar's native/\S+ is not txn-rocksdb-streams'"),
    ]
    failures = 0
    for what, change, expected in cases:
        problems = check(damaged(change), public_key)
        if not any(re.search(expected, p) for p in problems):
            print(f"check-bundle.py --self-test: {what} was not refused with /{expected}/; problems: {problems}")
            failures += 1
    print(f"check-bundle.py --self-test: {len(cases) - failures} of {len(cases)} damaged bundles refused as they should be")
    return failures == 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle")
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    files = read_bundle(args.bundle)
    problems = check(files, args.public_key)
    for p in problems:
        print(f"check-bundle.py: {p}")
    if problems:
        print(f"check-bundle.py: {args.bundle} fails {len(problems)} of Central's rules and ours")
        return 1
    artifacts = [p for p in files if not SIDE_FILES.search(p)]
    print(f"check-bundle.py: {args.bundle} passes: {len(artifacts)} files of {len(COMPONENTS)} components"
          f" ({', '.join(COMPONENTS)}), each signed and with 4 checksums")
    if args.self_test and not self_test(files, args.public_key):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
