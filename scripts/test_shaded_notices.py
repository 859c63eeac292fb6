#!/usr/bin/env python3
"""Tests of scripts/shaded-notices.py (the notices of the Java libraries inside the tool's shaded jar).

    python3 scripts/test_shaded_notices.py     (Python 3 standard library; well under a second)

A bill of materials in cyclonedx-maven-plugin's shape and a local Maven repository of small jars are
made in a temporary directory; the generator must name every library with its licences, reproduce
the licence and notice files of each jar (a text shared by several jars once), name what a jar has
shaded into itself, add each licence's standard text from the bill of materials once, leave our
own artifacts unread, refuse a bill of materials whose jar is not in the repository, and, without a
bill of materials (an offline build), say so and still succeed.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "shaded-notices.py")
APACHE = "Apache License\n   Version 2.0, January 2004\n"
MIT = "MIT License\n\nCopyright (c) 2004-2023 QOS.ch\n"


def component(group, name, version, licence, text=None):
    licence_entry = {"id": licence}
    if text is not None:
        licence_entry["text"] = {"contentType": "text/plain", "encoding": "base64",
                                 "content": base64.b64encode(text.encode()).decode()}
    return {"type": "library", "group": group, "name": name, "version": version,
            "purl": f"pkg:maven/{group}/{name}@{version}?type=jar", "licenses": [{"license": licence_entry}]}


class ShadedNoticesTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.repo = os.path.join(self.dir, "repository")
        self.output = os.path.join(self.dir, "classes", "META-INF", "THIRD-PARTY-NOTICES.txt")

    def tearDown(self):
        self.tmp.cleanup()

    def jar(self, group, name, version, entries):
        path = os.path.join(self.repo, *group.split("."), name, version, f"{name}-{version}.jar")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with zipfile.ZipFile(path, "w") as z:
            for entry, text in entries.items():
                z.writestr(entry, text)

    def run_script(self, components, write_bom=True, version="1.0"):
        bom = os.path.join(self.dir, "bom.json")
        if write_bom:
            with open(bom, "w") as f:
                json.dump({"bomFormat": "CycloneDX",
                           "metadata": {"component": {"group": "dev.txnrocksdb", "name": "txn-rocksdb-tool", "version": "1.0"}},
                           "components": components}, f)
        result = subprocess.run([sys.executable, SCRIPT, "--bom", bom, "--repository", self.repo, "--output", self.output,
                                 "--version", version, "--title", "Third-party notices of txn-rocksdb-tool 1.0"],
                                capture_output=True, text=True)
        text = ""
        if os.path.exists(self.output):
            with open(self.output, encoding="utf-8") as f:
                text = f.read()
        return result, text

    def test_every_library_its_licences_and_the_files_its_jar_carries(self):
        self.jar("org.apache.kafka", "kafka-clients", "4.4.0", {
            "LICENSE": APACHE, "NOTICE": "Apache Kafka\nCopyright 2026 The Apache Software Foundation.\n",
            "META-INF/maven/commons-net/commons-net/pom.properties": "artifactId=commons-net\ngroupId=commons-net\nversion=3.13.0\n",
            "org/apache/kafka/Some.class": "x", "org/apache/kafka/LicenseChecker.class": "not a licence"})
        self.jar("org.apache.kafka", "kafka-streams", "4.4.0", {"LICENSE": APACHE})
        self.jar("org.slf4j", "slf4j-api", "2.0.16", {"META-INF/LICENSE.txt": MIT,
                                                       "META-INF/maven/org.slf4j/slf4j-api/pom.properties": "version=2.0.16\n"})
        self.jar("com.github.luben", "zstd-jni", "1.5.7-17", {"com/github/luben/zstd/Zstd.class": "x"})
        result, text = self.run_script([
            component("org.apache.kafka", "kafka-clients", "4.4.0", "Apache-2.0", "SPDX APACHE TEXT"),
            component("org.apache.kafka", "kafka-streams", "4.4.0", "Apache-2.0", "SPDX APACHE TEXT"),
            component("org.slf4j", "slf4j-api", "2.0.16", "MIT", "SPDX MIT TEXT"),
            component("com.github.luben", "zstd-jni", "1.5.7-17", "BSD-2-Clause", "SPDX BSD-2 TEXT"),
            component("dev.txnrocksdb", "txn-rocksdb-streams", "1.0", "Apache-2.0"),
        ])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue(text.startswith("Third-party notices of txn-rocksdb-tool 1.0\n"))
        for who in ("org.apache.kafka:kafka-clients 4.4.0", "org.apache.kafka:kafka-streams 4.4.0",
                    "org.slf4j:slf4j-api 2.0.16", "com.github.luben:zstd-jni 1.5.7-17", "dev.txnrocksdb:txn-rocksdb-streams 1.0"):
            self.assertIn(who + "\n", text)
        self.assertIn("carries, shaded into its jar: commons-net:commons-net 3.13.0", text)
        # the jars' own files, each distinct text once, class files never
        self.assertEqual(text.count("Version 2.0, January 2004"), 1)
        self.assertIn("LICENSE of org.apache.kafka:kafka-clients 4.4.0; LICENSE of org.apache.kafka:kafka-streams 4.4.0", text)
        self.assertIn("Copyright 2026 The Apache Software Foundation.", text)
        self.assertIn("Copyright (c) 2004-2023 QOS.ch", text)
        self.assertNotIn("LicenseChecker", text)
        self.assertIn("files in its jar: none", text)
        # each licence's standard text once, naming whose it is
        self.assertEqual(text.count("SPDX APACHE TEXT"), 1)
        self.assertIn("BSD-2-Clause, the standard text (SPDX), the licence of: com.github.luben:zstd-jni 1.5.7-17", text)
        self.assertIn("SPDX BSD-2 TEXT", text)
        # ours described, not read (its jar is the reactor's, not in the repository)
        self.assertIn("ours: its licence is META-INF/LICENSE", text)
        self.assertTrue(text.rstrip().endswith("txn-rocksdb-streams' native library: its third-party notices" + "\n" + "=" * 100))

    def test_a_library_whose_jar_is_missing_is_refused(self):
        result, _ = self.run_script([component("org.example", "gone", "1.0", "MIT")])
        self.assertEqual(result.returncode, 1)
        self.assertIn("org.example:gone 1.0", result.stderr)

    def test_without_a_bill_of_materials_it_says_so(self):
        result, text = self.run_script([], write_bom=False)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Not generated", text)
        self.assertIn("offline build", result.stderr)

    def test_a_bill_of_materials_of_another_version_is_not_this_jars(self):
        self.jar("org.slf4j", "slf4j-api", "2.0.16", {})
        result, text = self.run_script([component("org.slf4j", "slf4j-api", "2.0.16", "MIT")], version="1.1-SNAPSHOT")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Not generated", text)
        self.assertNotIn("org.slf4j:slf4j-api", text)


if __name__ == "__main__":
    unittest.main(verbosity=1)
