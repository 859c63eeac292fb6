#!/usr/bin/env python3
"""Tests of scripts/third_party_notices.py (THIRD-PARTY-NOTICES.txt and the CycloneDX SBOM).

    python3 scripts/test_third_party_notices.py      (after `cargo fetch --locked`; about 10 s)

Generates both files once into a temporary directory and checks them against what cargo itself
says (a `cargo tree` invocation of its own), then the licence rules on made-up crates. The
cargo-deny test runs only where cargo-deny is installed (scripts/install-tools.sh).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import third_party_notices as tpn  # noqa: E402

LINUX = "x86_64-unknown-linux-gnu"


def cargo(*args):
    return subprocess.run(["cargo", *args], cwd=ROOT, check=True, capture_output=True,
                          text=True).stdout


def tree_set(*args):
    out = cargo("tree", "--offline", "--locked", "--prefix", "none", "-f", "{p}", *args)
    pairs = set()
    for line in out.splitlines():
        m = re.match(r"^(\S+) v(\S+)", line)
        if m:
            pairs.add((m[1], m[2]))
    return pairs


def norm(text):
    return " ".join(text.split())


class Generated(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="notices-")
        cls.crates, cls.natives = tpn.generate(cls.out)
        with open(os.path.join(cls.out, tpn.NOTICES), encoding="utf-8") as f:
            cls.notices = f.read()
        with open(os.path.join(cls.out, tpn.SBOM), encoding="utf-8") as f:
            cls.sbom = json.load(f)
        cls.purls = {c["purl"] for c in cls.sbom["components"]}
        meta = json.loads(cargo("metadata", "--format-version", "1", "--offline", "--locked"))
        cls.dirs = {p["name"]: os.path.dirname(p["manifest_path"]) for p in meta["packages"]}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out, ignore_errors=True)

    def in_notices(self, name, version):
        return f"\n{name} {version}\n" in self.notices

    def entry(self, name):
        """A crate's entry in part 1 of the notices."""
        m = re.search(rf"\n{re.escape(name)} \S+\n-+\n(.*?)\n\n", self.notices, re.S)
        self.assertTrue(m, f"no entry for {name}")
        return m[1]

    def test_every_linux_crate_in_both_outputs(self):
        linked = tree_set("-p", tpn.ROOT_CRATE, "-e", "normal", "--target", LINUX)
        self.assertGreater(len(linked), 100)
        for name, version in sorted(linked):
            if name == tpn.ROOT_CRATE:
                continue
            self.assertIn(f"pkg:cargo/{name}@{version}", self.purls)
            if name not in tpn.FIRST_PARTY:
                self.assertTrue(self.in_notices(name, version), f"{name} {version} not in notices")

    def test_platform_specific_crates_are_marked(self):
        plats = {c["name"]: next(p["value"] for p in c["properties"]
                                 if p["name"] == "txn-rocksdb:platforms")
                 for c in self.sbom["components"]}
        self.assertEqual(plats["windows-sys"], "windows-x86_64")
        self.assertEqual(plats["security-framework"], "darwin-x86_64,darwin-aarch64")
        self.assertEqual(plats["openssl-probe"], "linux-x86_64,linux-aarch64")
        self.assertIn("Platforms: windows-x86_64", self.entry("windows-sys"))

    def test_rocksdb_and_lz4_with_their_licence_texts(self):
        self.assertRegex(self.notices, r"\nRocksDB \d+\.\d+\.\d+\n")
        self.assertRegex(self.notices, r"\nLZ4 library \d+\.\d+\.\d+\n")
        names = {c["name"]: c for c in self.sbom["components"]}
        for name in ("rocksdb", "lz4"):
            self.assertIn(name, names)
            self.assertEqual(names[name]["type"], "library")
            self.assertRegex(names[name]["version"], r"^\d+\.\d+\.\d+$")
        rocksdb = os.path.join(self.dirs["rust-librocksdb-sys"], "rocksdb")
        lz4 = os.path.join(self.dirs["lz4-sys"], "liblz4", "lib")
        body = norm(self.notices)
        for path in (os.path.join(rocksdb, "LICENSE.leveldb"), os.path.join(lz4, "LICENSE"),
                     os.path.join(rocksdb, "LICENSE.Apache")):
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if path.endswith("LICENSE.Apache"):  # printed once, as the standard text
                self.assertIn(norm(tpn.apache_terms(text)), body)
            else:
                self.assertIn(norm(text), body, path)
        self.assertIn("we use it under Apache-2.0", self.notices)
        self.assertIn("xxHash", self.notices)

    def test_no_dev_only_crate(self):
        normal = tree_set("--workspace", "-e", "normal", "--target", LINUX)
        with_dev = tree_set("--workspace", "-e", "normal,dev", "--target", LINUX)
        dev_only = with_dev - normal
        names = {n for n, _ in dev_only}
        # proptest, tempfile, criterion: dev-dependencies; env_logger: an optional dependency that
        # only the crate's own dev-dependency on itself turns on.
        for must in ("proptest", "tempfile", "criterion", "env_logger"):
            self.assertIn(must, names)
        for name, version in dev_only:
            self.assertNotIn(f"pkg:cargo/{name}@{version}", self.purls)
            self.assertFalse(self.in_notices(name, version), f"dev-only {name} in notices")

    def test_no_build_dependency(self):
        for name in ("cc", "bindgen", "clang-sys", "pkg-config"):
            self.assertFalse(any(c["name"] == name for c in self.sbom["components"]), name)

    def test_sbom_shape(self):
        self.assertEqual(tpn.validate_sbom(self.sbom), [])
        self.assertEqual(self.sbom["metadata"]["component"]["name"], tpn.ROOT_CRATE)
        broken = json.loads(json.dumps(self.sbom))
        broken["components"].append(dict(broken["components"][0]))
        self.assertTrue(any("twice" in e for e in tpn.validate_sbom(broken)))
        del broken["components"][1]["hashes"]
        self.assertTrue(tpn.validate_sbom(broken))

    def test_notice_files_and_choices(self):
        obj = self.entry("object_store")
        self.assertIn("Notice (NOTICE.txt)", obj)
        self.assertIn("The Apache Software Foundation", obj)
        self.assertIn("Used under: MIT\n", self.entry("memchr"))
        self.assertIn("Used under: Apache-2.0\n", self.entry("serde"))
        self.assertIn("Used under: Apache-2.0 AND ISC\n", self.entry("ring"))
        # No licence file in the crate: the standard Apache-2.0 text.
        self.assertIn("standard Apache-2.0 text", self.entry("jni"))
        self.assertNotIn("/root/", self.notices)
        self.assertNotIn(".cargo/registry", self.notices)

    def test_deterministic(self):
        again = tempfile.mkdtemp(prefix="notices-")
        try:
            tpn.generate(again)
            for name in (tpn.NOTICES, tpn.SBOM):
                with open(os.path.join(self.out, name), "rb") as a, \
                        open(os.path.join(again, name), "rb") as b:
                    self.assertEqual(a.read(), b.read(), name)
        finally:
            shutil.rmtree(again, ignore_errors=True)


class Rules(unittest.TestCase):
    allowed = tpn.allowed_licences()

    def fake(self, licence):
        return [{"name": "fake-crate", "version": "1.0.0", "license": licence}]

    def test_gpl_rejected(self):
        self.assertEqual(tpn.check_licences(self.fake("GPL-3.0-only"), self.allowed),
                         ["fake-crate 1.0.0: GPL-3.0-only"])
        self.assertTrue(tpn.check_licences(self.fake("MIT AND GPL-3.0-only"), self.allowed))
        self.assertTrue(tpn.check_licences(self.fake("LGPL-2.1-or-later"), self.allowed))
        self.assertTrue(tpn.check_licences(self.fake(None), self.allowed))

    def test_permissive_accepted(self):
        for expr in ("MIT", "MIT OR Apache-2.0", "MIT/Apache-2.0", "Apache-2.0 AND ISC",
                     "(MIT OR Apache-2.0) AND Unicode-3.0", "Unlicense OR MIT",
                     "MIT OR GPL-3.0-only"):
            self.assertEqual(tpn.check_licences(self.fake(expr), self.allowed), [], expr)

    def test_generator_fails_on_fake_metadata(self):
        """The whole generator, fed a made-up graph: the root and two crates, one GPL-3.0-only,
        one MIT without any licence file."""
        real = tpn.collect
        with tempfile.TemporaryDirectory() as d:
            def crate(name, licence):
                os.makedirs(os.path.join(d, name))
                return {"name": name, "version": "1.0.0", "platforms": ["linux-x86_64"],
                        "kind": "linked", "license": licence, "license_file": None,
                        "dir": os.path.join(d, name), "source": None, "links": None,
                        "authors": [], "checksum": "0" * 64, "build_deps": [], "description": ""}
            crates = {(c["name"], c["version"]): c for c in (
                crate(tpn.ROOT_CRATE, "Apache-2.0"), crate("fake-gpl", "GPL-3.0-only"),
                crate("fake-mit", "MIT"))}
            tpn.collect = lambda: ([("linux-x86_64", LINUX)], crates, set(), self.allowed)
            try:
                with self.assertRaises(tpn.Failure) as caught:
                    tpn.generate(os.path.join(d, "out"))
            finally:
                tpn.collect = real
            message = str(caught.exception)
            self.assertIn("fake-gpl 1.0.0: GPL-3.0-only", message)
            self.assertIn("fake-mit 1.0.0 (MIT): no text of MIT", message)
            self.assertFalse(os.path.exists(os.path.join(d, "out")))

    def test_choice(self):
        every = lambda _: True
        pick = lambda e, has=every: tpn.choose(tpn.parse_spdx(e), self.allowed | {"Unlicense"}, has)
        self.assertEqual(pick("MIT OR Apache-2.0"), ["Apache-2.0"])
        self.assertEqual(pick("Unlicense OR MIT"), ["MIT"])
        self.assertEqual(pick("Apache-2.0 AND ISC"), ["Apache-2.0", "ISC"])
        self.assertEqual(pick("(MIT OR Apache-2.0) AND Unicode-3.0"), ["Apache-2.0", "Unicode-3.0"])
        # An alternative whose text is at hand beats a preferred one without it.
        self.assertEqual(pick("Unlicense OR MIT", lambda l: l == "Unlicense"), ["Unlicense"])
        self.assertIsNone(pick("GPL-3.0-only"))

    def test_cargo_deny_rejects_gpl(self):
        deny = shutil.which("cargo-deny") or os.path.expanduser(
            "~/.cache/txn-rocksdb/tools/bin/cargo-deny")
        if not os.access(deny, os.X_OK):
            self.skipTest("cargo-deny not installed (scripts/install-tools.sh)")
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "app", "src"))
            os.makedirs(os.path.join(d, "gpl", "src"))
            with open(os.path.join(d, "app", "Cargo.toml"), "w") as f:
                f.write('[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n'
                        'license = "Apache-2.0"\n\n[dependencies]\ngpl = { path = "../gpl" }\n')
            with open(os.path.join(d, "gpl", "Cargo.toml"), "w") as f:
                f.write('[package]\nname = "gpl"\nversion = "0.1.0"\nedition = "2021"\n'
                        'license = "GPL-3.0-only"\n')
            for crate in ("app", "gpl"):
                open(os.path.join(d, crate, "src", "lib.rs"), "w").close()
            shutil.copy(os.path.join(ROOT, "deny.toml"), os.path.join(d, "app", "deny.toml"))
            app = os.path.join(d, "app")
            subprocess.run(["cargo", "generate-lockfile", "--offline"], cwd=app, check=True,
                           capture_output=True)
            run = lambda: subprocess.run([deny, "--frozen", "check", "licenses"], cwd=app,
                                         capture_output=True, text=True)
            r = run()
            self.assertNotEqual(r.returncode, 0, r.stderr)
            self.assertIn("GPL-3.0-only", r.stderr)
            # The same graph with a permissive licence passes: the failure was the licence.
            manifest = os.path.join(d, "gpl", "Cargo.toml")
            with open(manifest) as f:
                text = f.read().replace("GPL-3.0-only", "MIT")
            with open(manifest, "w") as f:
                f.write(text)
            r = run()
            self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"notices: {passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    sys.exit(1 if failed or not result.wasSuccessful() else 0)
