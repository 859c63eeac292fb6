#!/usr/bin/env python3
"""Checks a release bundle against what Maven Central's publisher portal requires, and what we add.

    scripts/check-bundle.py BUNDLE.zip --public-key KEY.asc [--self-test]

Central's rules (central.sonatype.org, "Requirements"): the repository layout
group/artifact/version/artifact-version[-classifier].ext; a POM with groupId, artifactId, version,
name, description, url, licenses, developers and scm; sources and javadoc jars; every file signed
(.asc, verified here against the given public key) and checksummed (.md5 and .sha1; we also give
.sha256 and .sha512 and check them); no -SNAPSHOT version. Ours on top: no <parent> in the POM (a
parent would have to be published too), non-empty sources (.java) and javadoc (index.html) jars, the
jar carries every native library with its library.properties, the licence and the third-party
notices, and the two bills of materials are present and list what the native libraries link.

--self-test also damages copies of the bundle in every way the check exists for (a changed byte, a
missing signature, a -SNAPSHOT POM, a POM without licences, an empty javadoc jar, a bill of
materials missing a crate the notices list) and fails unless each copy is refused.
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
# Files the main artifact must have, by classifier and extension ("" = no classifier).
REQUIRED = [("", "jar"), ("", "pom"), ("sources", "jar"), ("javadoc", "jar"),
            ("cyclonedx", "json"), ("cyclonedx-native", "json"), ("third-party-notices", "txt")]
POM_REQUIRED = ["groupId", "artifactId", "version", "name", "description", "url",
                "licenses/m:license/m:name", "developers/m:developer", "scm/m:url", "scm/m:connection"]


def check(files, public_key):
    """files: {path in the bundle: bytes}. Returns a list of problems (empty when the bundle passes)."""
    problems = []
    poms = [p for p in files if p.endswith(".pom")]
    if len(poms) != 1:
        return [f"expected one POM in the bundle, found {len(poms)}: {poms}"]
    pom_path = poms[0]
    parts = pom_path.split("/")
    if len(parts) < 4:
        return [f"{pom_path} is not at group/artifact/version/file"]
    group, artifact, version = ".".join(parts[:-3]), parts[-3], parts[-2]
    directory = "/".join(parts[:-1])
    base = f"{artifact}-{version}"
    if "SNAPSHOT" in version:
        problems.append(f"version {version} is a SNAPSHOT: Central refuses it")

    # The POM.
    try:
        pom = ET.fromstring(files[pom_path])
    except ET.ParseError as e:
        return problems + [f"{pom_path} is not XML: {e}"]
    for element in POM_REQUIRED:
        found = pom.find("m:" + element, POM_NS)
        if found is None or (found.text is not None and not found.text.strip() and len(found) == 0):
            problems.append(f"the POM has no <{element.replace('m:', '')}>")
    for element, expected in (("groupId", group), ("artifactId", artifact), ("version", version)):
        found = pom.find("m:" + element, POM_NS)
        if found is not None and found.text != expected:
            problems.append(f"the POM's <{element}> is {found.text}, but the bundle's layout says {expected}")
    if pom.find("m:parent", POM_NS) is not None:
        problems.append("the POM has a <parent>, which would have to be published too (flatten it)")
    if "SNAPSHOT" in files[pom_path].decode("utf-8", "replace"):
        problems.append("the POM names a SNAPSHOT version")

    # Every file: in the directory, named for the artifact, signed, checksummed.
    artifacts = [p for p in files if not re.search(r"\.(asc|md5|sha1|sha256|sha512)$", p)]
    for classifier, ext in REQUIRED:
        name = f"{directory}/{base}{'-' + classifier if classifier else ''}.{ext}"
        if name not in files:
            problems.append(f"missing {name}")
    for path in artifacts:
        if not path.startswith(directory + "/") or not os.path.basename(path).startswith(base):
            problems.append(f"{path} is not {directory}/{base}[-classifier].ext")
        for algorithm, digest in CHECKSUMS.items():
            if path + "." + algorithm not in files:
                problems.append(f"missing {path}.{algorithm}")
            elif files[path + "." + algorithm].decode().strip() != digest(files[path]).hexdigest():
                problems.append(f"{path}.{algorithm} does not match the file")
        if path + ".asc" not in files:
            problems.append(f"missing the signature {path}.asc")
    problems += verify_signatures(files, artifacts, public_key)

    # What each jar holds.
    def entries(path):
        try:
            return zipfile.ZipFile(io.BytesIO(files[path])).namelist() if path in files else []
        except zipfile.BadZipFile:
            problems.append(f"{path} is not a jar")
            return []
    if f"{directory}/{base}-sources.jar" in files and not any(e.endswith(".java") for e in entries(f"{directory}/{base}-sources.jar")):
        problems.append("the sources jar holds no .java file")
    if any(re.fullmatch(r"native/[^/]+/.+", e) for e in entries(f"{directory}/{base}-sources.jar")):
        problems.append("the sources jar holds native libraries")
    if f"{directory}/{base}-javadoc.jar" in files and "index.html" not in entries(f"{directory}/{base}-javadoc.jar"):
        problems.append("the javadoc jar holds no index.html")
    jar = entries(f"{directory}/{base}.jar")
    if f"{directory}/{base}.jar" in files:
        for needed in ("META-INF/LICENSE", "META-INF/THIRD-PARTY-NOTICES.txt", "META-INF/txn-rocksdb-native.cdx.json"):
            if needed not in jar:
                problems.append(f"the jar lacks {needed}")
        if not any(re.fullmatch(r"native/[^/]+/library\.properties", e) for e in jar):
            problems.append("the jar holds no native library (native/<platform>/library.properties)")
        # The version the loader checks and Maven's own record of it, both the bundle's.
        archive = zipfile.ZipFile(io.BytesIO(files[f"{directory}/{base}.jar"]))
        for entry in ("native/txn-rocksdb.properties", f"META-INF/maven/{group}/{artifact}/pom.properties"):
            text = archive.read(entry).decode() if entry in jar else ""
            if f"version={version}\n" not in text + "\n" or re.search(r"^version=(?!" + re.escape(version) + r"$)", text, re.M):
                problems.append(f"the jar's {entry} does not say version={version}")

    # The bills of materials and the notices: what the native libraries link, listed in both.
    notices_path = f"{directory}/{base}-third-party-notices.txt"
    native_path = f"{directory}/{base}-cyclonedx-native.json"
    java_path = f"{directory}/{base}-cyclonedx.json"
    try:
        native = json.loads(files[native_path]) if native_path in files else None
        java = json.loads(files[java_path]) if java_path in files else None
    except ValueError as e:
        return problems + [f"a bill of materials is not JSON: {e}"]
    for name, bom in (("Java", java), ("native", native)):
        if bom is not None and (bom.get("bomFormat") != "CycloneDX" or not bom.get("components")):
            problems.append(f"the {name} bill of materials is not a CycloneDX document with components")
    if java is not None and not any(c.get("name") == "kafka-streams" for c in java.get("components", [])):
        problems.append("the Java bill of materials does not list kafka-streams")
    if native is not None and notices_path in files:
        notices = files[notices_path].decode("utf-8", "replace")
        components = native.get("components", [])
        names = {c.get("name", "").lower() for c in components}
        for needed in ("rocksdb", "lz4", "jni"):
            if needed not in names:
                problems.append(f"the native bill of materials does not list {needed}")
        # Third-party crates: ours (txn-rocksdb, txn-rocksdb-format) are in the bill of materials, not the notices.
        crates = [c for c in components if c.get("purl", "").startswith("pkg:cargo/") and not c["name"].startswith("txn-rocksdb")]
        if len(crates) < 20:
            problems.append(f"the native bill of materials lists {len(crates)} crates; the library links far more")
        for c in crates:
            if f"{c['name']} {c['version']}" not in notices:
                problems.append(f"the notices do not name {c['name']} {c['version']}, which the bill of materials lists")
        listed = set(re.findall(r"^(?:crate|component|##+)?\s*([A-Za-z0-9_.-]+) (\d+\.\d+\.\d+[^\s]*)", notices, re.M))
        for name, ver in sorted(listed):
            if (name.lower(), ver) not in {(c.get("name", "").lower(), c.get("version")) for c in components} and name.lower() in names:
                problems.append(f"the notices name {name} {ver}, which the bill of materials does not list at that version")
    return problems


def verify_signatures(files, artifacts, public_key):
    problems = []
    with tempfile.TemporaryDirectory() as home:
        os.chmod(home, 0o700)
        env = dict(os.environ, GNUPGHOME=home)
        imported = subprocess.run(["gpg", "--batch", "--quiet", "--import", public_key], env=env, capture_output=True)
        if imported.returncode != 0:
            return [f"gpg could not import the public key {public_key}: {imported.stderr.decode().strip()}"]
        for path in artifacts:
            if path + ".asc" not in files:
                continue
            signed = os.path.join(home, "file")
            signature = os.path.join(home, "file.asc")
            with open(signed, "wb") as f:
                f.write(files[path])
            with open(signature, "wb") as f:
                f.write(files[path + ".asc"])
            result = subprocess.run(["gpg", "--batch", "--verify", signature, signed], env=env, capture_output=True)
            if result.returncode != 0:
                problems.append(f"the signature {path}.asc does not verify: {result.stderr.decode().strip().splitlines()[-1]}")
        subprocess.run(["gpgconf", "--kill", "all"], env=env, capture_output=True)
    return problems


def read_bundle(path):
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist() if not name.endswith("/")}


def self_test(files, public_key):
    """Each damaged copy must be refused with the problem it was damaged for."""
    pom = next(p for p in files if p.endswith(".pom"))
    base = pom[: -len(".pom")]

    def damaged(change):
        copy = dict(files)
        change(copy)
        return copy

    def flip(path):
        return lambda c: c.__setitem__(path, bytes([c[path][0] ^ 1]) + c[path][1:])

    def empty_javadoc(c):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n")
        c[base + "-javadoc.jar"] = out.getvalue()

    def drop_crate(c):
        bom = json.loads(c[base + "-cyclonedx-native.json"])
        bom["components"] = [x for x in bom["components"] if x.get("name") != "jni"]
        c[base + "-cyclonedx-native.json"] = json.dumps(bom).encode()

    cases = [
        ("a changed byte in the jar", flip(base + ".jar"), r"\.jar\.md5 does not match"),
        ("a changed byte in the jar", flip(base + ".jar"), r"\.jar\.asc does not verify"),
        ("a missing signature", lambda c: c.pop(base + "-sources.jar.asc"), r"missing the signature .*-sources\.jar\.asc"),
        ("a missing javadoc jar", lambda c: c.pop(base + "-javadoc.jar"), r"missing .*-javadoc\.jar"),
        ("a SNAPSHOT POM", lambda c: c.__setitem__(pom, c[pom].replace(b"</version>", b"-SNAPSHOT</version>", 1)), r"SNAPSHOT"),
        ("a POM without licences", lambda c: c.__setitem__(pom, re.sub(rb"<licenses>.*</licenses>", b"", c[pom], flags=re.S)), r"no <licenses/license/name>"),
        ("a POM with a parent", lambda c: c.__setitem__(pom, c[pom].replace(b"<groupId>", b"<parent><groupId>x</groupId><artifactId>y</artifactId><version>1</version></parent><groupId>", 1)), r"has a <parent>"),
        ("an empty javadoc jar", empty_javadoc, r"javadoc jar holds no index\.html"),
        ("a bill of materials without the jni crate", drop_crate, r"does not list jni"),
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
    artifacts = [p for p in files if not re.search(r"\.(asc|md5|sha1|sha256|sha512)$", p)]
    print(f"check-bundle.py: {args.bundle} passes: {len(artifacts)} files, each signed and with 4 checksums")
    if args.self_test and not self_test(files, args.public_key):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
