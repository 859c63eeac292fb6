#!/usr/bin/env python3
"""Tests of scripts/publish-central.sh against a fake Central Publisher Portal.

    python3 scripts/test_publish_central.py     (Python 3 standard library, bash, curl; 1-2 s)

The fake portal (http.server in a thread on 127.0.0.1, a port of its own) checks what the real one
would: POST /api/v1/publisher/upload?name=...&publishingType=... with the header
`Authorization: Bearer base64(username:password)` of the token the test set (401 otherwise) and a
multipart body whose part "bundle" holds the bundle's bytes, answered with the deployment id as
plain text; then POST /api/v1/publisher/status?id=<id>, answered with JSON whose deploymentState
steps through the scenario's states. The script runs with CENTRAL_PORTAL_URL pointing at it, and
with a `curl` first on PATH that logs its arguments before running the real curl, so that the
credentials are checked to be on no curl command line, as well as in none of the script's output.
"""

import base64
import email.parser
import email.policy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse
import zipfile
from http.server import BaseHTTPRequestHandler, HTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "publish-central.sh")
API = "/api/v1/publisher"
DEPLOYMENT = "28570f16-da32-4c14-bd2e-c1acc0782365"
USER = "tok-user"
# Spaces, a colon, quotes and shell characters: it must survive the script's quoting untouched.
PASSWORD = "pa$$ w0rd:\"x\"'`y`"
WRONG_PASSWORD = "not-the-token $HOME"


def bearer(user, password):
    return base64.b64encode(f"{user}:{password}".encode()).decode()


class Portal(HTTPServer):
    """The fake portal: one per test, its scenario set by the test before the script runs."""

    def __init__(self, bundle_bytes, states):
        super().__init__(("127.0.0.1", 0), Handler)
        self.bundle_bytes = bundle_bytes
        self.states = states
        self.auth = "Bearer " + bearer(USER, PASSWORD)
        self.errors = {}
        self.requests = []  # every request seen, in order (dicts, see Handler.do_POST)
        self.polls = 0
        self.lock = threading.Lock()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"

    def uploads(self):
        return [r for r in self.requests if r["path"] == f"{API}/upload"]

    def status_polls(self):
        return [r for r in self.requests if r["path"] == f"{API}/status"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # answers curl's Expect: 100-continue at once

    def log_message(self, *args):
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def answer(self, code, body, content_type="text/plain"):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.wrong_method()

    def do_PUT(self):
        self.wrong_method()

    def wrong_method(self):
        portal = self.server
        with portal.lock:
            portal.requests.append({"method": self.command, "path": self.path})
        self.answer(405, "method not allowed")

    def do_POST(self):
        portal = self.server
        body = self.read_body()
        url = urllib.parse.urlsplit(self.path)
        query = urllib.parse.parse_qs(url.query, keep_blank_values=True)
        record = {"method": "POST", "path": url.path, "query": query,
                  "auth_ok": self.headers.get("Authorization") == portal.auth}
        with portal.lock:
            portal.requests.append(record)
        if not record["auth_ok"]:
            return self.answer(401, "Invalid token")
        if url.path == f"{API}/upload":
            problem = self.check_upload(query, body, record)
            if problem:
                return self.answer(400, problem)
            return self.answer(201, DEPLOYMENT)
        if url.path == f"{API}/status":
            if query.get("id") != [DEPLOYMENT]:
                return self.answer(404, f"no deployment {query.get('id')}")
            with portal.lock:
                portal.polls += 1
                state = portal.states[min(portal.polls, len(portal.states)) - 1]
            answer = {"deploymentId": DEPLOYMENT, "deploymentName": query.get("name", ["x"])[0],
                      "deploymentState": state, "purls": [],
                      "errors": portal.errors if state == "FAILED" else {}}
            return self.answer(200, json.dumps(answer), "application/json")
        self.answer(404, "not found")

    def check_upload(self, query, body, record):
        """None if the upload is one the real portal would take, else why not."""
        if len(query.get("name", [])) != 1 or not query["name"][0]:
            return "name missing"
        if query.get("publishingType") not in (["USER_MANAGED"], ["AUTOMATIC"]):
            return f"bad publishingType {query.get('publishingType')}"
        content_type = self.headers.get("Content-Type", "")
        if not content_type.startswith("multipart/form-data") or "boundary=" not in content_type:
            return f"not multipart/form-data: {content_type}"
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
        if not message.is_multipart():
            return "multipart body does not parse"
        parts = {p.get_param("name", header="content-disposition"): p
                 for p in message.iter_parts()}
        record["parts"] = sorted(parts)
        if "bundle" not in parts:
            return f"no part named bundle (parts: {sorted(parts)})"
        record["bundle_filename"] = parts["bundle"].get_filename()
        record["bundle_ok"] = parts["bundle"].get_payload(decode=True) == self.server.bundle_bytes
        if not record["bundle_ok"]:
            return "the bundle part's bytes differ from the bundle"
        return None


class PublishCentralTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="publish-central-test-")
        cls.bundle = os.path.join(cls.tmp, "y-1.0-bundle.zip")
        with zipfile.ZipFile(cls.bundle, "w") as z:
            z.writestr("dev/x/y/1.0/y-1.0.pom", "<project><groupId>dev.x</groupId></project>\n")
            z.writestr("dev/x/y/1.0/y-1.0.pom.asc", "-----BEGIN PGP SIGNATURE-----\nfake\n"
                                                    "-----END PGP SIGNATURE-----\n")
        with open(cls.bundle, "rb") as f:
            cls.bundle_bytes = f.read()
        # A curl that logs its arguments (one per line, a blank line after each call) and the mode
        # of the file any `-H @FILE` names, then runs the real curl.
        real_curl = shutil.which("curl")
        if not real_curl:
            raise unittest.SkipTest("needs curl")
        cls.bin = os.path.join(cls.tmp, "bin")
        os.mkdir(cls.bin)
        cls.curl_log = os.path.join(cls.tmp, "curl-argv.log")
        with open(os.path.join(cls.bin, "curl"), "w") as f:
            f.write(f"""#!/usr/bin/env bash
log='{cls.curl_log}'
prev=""
for a in "$@"; do
  printf 'ARG %s\\n' "$a" >>"$log"
  if [[ $prev == -H && $a == @* ]]; then
    printf 'HEADER-FILE-MODE %s\\n' "$(stat -c %a "${{a#@}}")" >>"$log"
  fi
  prev="$a"
done
echo >>"$log"
exec '{real_curl}' "$@"
""")
        os.chmod(os.path.join(cls.bin, "curl"), 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        if os.path.exists(self.curl_log):
            os.remove(self.curl_log)
        self.portal = Portal(self.bundle_bytes, ["PENDING"])
        self.thread = threading.Thread(target=self.portal.serve_forever, args=(0.02,),
                                       daemon=True)
        self.thread.start()

    def tearDown(self):
        self.portal.shutdown()
        self.portal.server_close()
        self.thread.join()

    def run_script(self, *args, user=USER, password=PASSWORD):
        env = {k: v for k, v in os.environ.items() if not k.startswith("CENTRAL_")}
        env["PATH"] = self.bin + os.pathsep + env.get("PATH", "")
        env["CENTRAL_PORTAL_URL"] = self.portal.url
        if user is not None:
            env["CENTRAL_TOKEN_USERNAME"] = user
        if password is not None:
            env["CENTRAL_TOKEN_PASSWORD"] = password
        r = subprocess.run(["bash", SCRIPT, *args, self.bundle], env=env, capture_output=True,
                           text=True, timeout=30)
        self.assert_no_secrets(r, user, password)
        return r

    def curl_argv(self):
        if not os.path.exists(self.curl_log):
            return ""
        with open(self.curl_log) as f:
            return f.read()

    def assert_no_secrets(self, r, user, password):
        """(7) Neither the password nor the token in the output or on curl's command line."""
        argv = self.curl_argv()
        secrets = {PASSWORD, bearer(USER, PASSWORD)}
        if password:
            secrets |= {password, bearer(user or "", password)}
        for secret in secrets:
            for what, text in (("stdout", r.stdout), ("stderr", r.stderr), ("curl's argv", argv)):
                self.assertNotIn(secret, text, f"a secret in {what}:\n{text}")
        for mode in re.findall(r"^HEADER-FILE-MODE (\d+)$", argv, re.M):
            self.assertEqual(mode, "600", "the header file curl reads is not of mode 600")

    def describe(self, r):
        return f"exit {r.returncode}\n--- stdout\n{r.stdout}--- stderr\n{r.stderr}"

    def assert_header_from_file(self):
        argv = self.curl_argv()
        calls = [c for c in argv.split("\n\n") if c.strip()]
        self.assertTrue(calls, "curl never ran")
        for call in calls:
            self.assertRegex(call, r"ARG -H\nARG @\S", f"a curl call without -H @FILE:\n{call}")
            self.assertNotIn("Authorization", call)

    def test_1_user_managed_stops_at_validated(self):
        self.portal.states = ["PENDING", "VALIDATING", "VALIDATED", "PUBLISHING", "PUBLISHED"]
        r = self.run_script("--attempts=10", "--interval=0")
        self.assertEqual(r.returncode, 0, self.describe(r))
        self.assertEqual(r.stdout.splitlines()[-1], "VALIDATED", self.describe(r))
        self.assertIn(f"deployment {DEPLOYMENT}", r.stdout)
        for state in ("PENDING", "VALIDATING"):
            self.assertIn(f"publish-central.sh: {state} (poll", r.stdout)
        [upload] = self.portal.uploads()
        self.assertEqual(upload["query"]["publishingType"], ["USER_MANAGED"])
        self.assertEqual(upload["query"]["name"], ["y-1.0-bundle"])
        self.assertTrue(upload["bundle_ok"])
        self.assertEqual(upload["bundle_filename"], "y-1.0-bundle.zip")
        self.assertEqual(len(self.portal.status_polls()), 3, "polled on after VALIDATED")
        self.assertTrue(all(req["auth_ok"] for req in self.portal.requests))
        self.assertEqual(self.portal.requests[0]["path"], f"{API}/upload")
        self.assert_header_from_file()

    def test_2_automatic_waits_for_published(self):
        self.portal.states = ["PENDING", "VALIDATING", "VALIDATED", "PUBLISHING", "PUBLISHED"]
        r = self.run_script("--publishing-type=AUTOMATIC", "--name=y 1.0 & more",
                            "--attempts=10", "--interval=0")
        self.assertEqual(r.returncode, 0, self.describe(r))
        self.assertEqual(r.stdout.splitlines()[-1], "PUBLISHED", self.describe(r))
        [upload] = self.portal.uploads()
        self.assertEqual(upload["query"]["publishingType"], ["AUTOMATIC"])
        self.assertEqual(upload["query"]["name"], ["y 1.0 & more"])  # percent-encoded intact
        self.assertTrue(upload["bundle_ok"])
        self.assertEqual(len(self.portal.status_polls()), 5)
        self.assertIn("PUBLISHING (poll 4 of 10)", r.stdout)

    def test_3_failed_prints_errors(self):
        self.portal.states = ["PENDING", "VALIDATING", "FAILED"]
        self.portal.errors = {"pkg:maven/dev.x/y@1.0": ["Invalid signature for file: y-1.0.pom"]}
        r = self.run_script("--attempts=10", "--interval=0")
        self.assertEqual(r.returncode, 1, self.describe(r))
        self.assertEqual(r.stdout.splitlines()[-1], "FAILED", self.describe(r))
        self.assertIn(f"the Portal failed deployment {DEPLOYMENT}", r.stderr)
        self.assertIn("Invalid signature for file: y-1.0.pom", r.stderr)
        self.assertIn("pkg:maven/dev.x/y@1.0", r.stderr)
        self.assertEqual(len(self.portal.status_polls()), 3)

    def test_4_wrong_token_is_refused(self):
        self.portal.states = ["VALIDATED"]
        r = self.run_script("--attempts=3", "--interval=0", password=WRONG_PASSWORD)
        self.assertNotEqual(r.returncode, 0, self.describe(r))
        self.assertIn("the upload was refused: HTTP 401", r.stderr, self.describe(r))
        self.assertIn("Invalid token", r.stderr)
        self.assertEqual([req["path"] for req in self.portal.requests], [f"{API}/upload"])
        self.assertFalse(self.portal.requests[0]["auth_ok"])
        self.assertNotIn("VALIDATED", r.stdout)

    def test_5_polls_run_out(self):
        self.portal.states = ["VALIDATING"]
        r = self.run_script("--attempts=3", "--interval=0")
        self.assertEqual(r.returncode, 1, self.describe(r))
        self.assertIn(f"deployment {DEPLOYMENT} still VALIDATING after 3 polls", r.stderr,
                      self.describe(r))
        self.assertEqual(len(self.portal.status_polls()), 3)
        self.assertEqual(len(self.portal.uploads()), 1)

    def test_6_missing_credentials_send_nothing(self):
        for user, password in ((None, None), (USER, None), (None, PASSWORD), (USER, "")):
            with self.subTest(user=user, password=password):
                r = self.run_script("--attempts=3", "--interval=0", user=user, password=password)
                self.assertNotEqual(r.returncode, 0, self.describe(r))
                self.assertIn("CENTRAL_TOKEN_USERNAME and CENTRAL_TOKEN_PASSWORD must be set",
                              r.stderr, self.describe(r))
                self.assertEqual(self.portal.requests, [])
                self.assertEqual(self.curl_argv(), "", "curl ran")

    def test_7_header_passed_as_file(self):
        with open(SCRIPT) as f:
            script = f.read()
        self.assertIn('-H @"$header"', script)
        self.assertNotRegex(script, r"-H\s+[\"']?Authorization")
        self.assertNotRegex(script, r"(-u|--user)\s")

    def test_8_dry_run_sends_nothing(self):
        r = self.run_script("--dry-run", "--publishing-type=AUTOMATIC", user=None, password=None)
        self.assertEqual(r.returncode, 0, self.describe(r))
        self.assertIn(f"POST {self.portal.url}{API}/upload?name=y-1.0-bundle"
                      "&publishingType=AUTOMATIC", r.stdout)
        self.assertEqual(self.portal.requests, [])
        self.assertEqual(self.curl_argv(), "")
        r = self.run_script("--dry-run")  # with the credentials set: still not printed
        self.assertEqual(r.returncode, 0, self.describe(r))
        self.assertEqual(self.portal.requests, [])


if __name__ == "__main__":
    start = time.monotonic()
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print(f"({time.monotonic() - start:.1f} s)", file=sys.stderr)
    print(f"publish-central: {passed} passed, {failed} failed"
          + (f", {skipped} skipped" if skipped else ""))
    sys.exit(1 if failed or not result.wasSuccessful() else 0)
