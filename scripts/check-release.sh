#!/usr/bin/env bash
# The release's test (./test.sh): builds the bundle exactly as a release does, signed with a
# throwaway key made here, checks it against Central's rules (scripts/check-bundle.py, which also
# proves it refuses damaged copies), and unpacks it into dist/repository/, the file-based Maven
# repository the tests module's ReleaseConsumersTest resolves dev.txnrocksdb:txn-rocksdb-streams and
# the operators' tool dev.txnrocksdb:txn-rocksdb-tool from (with Maven Central, nothing else).
#
#   scripts/check-release.sh [--platforms=host|all|P,...] [--from=DIR]
#
# Arguments go to scripts/release.sh (default --platforms=host: this machine's library only).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
args=("$@")
[[ ${#args[@]} -gt 0 ]] || args=(--platforms=host)

key_home="$(mktemp -d)"
chmod 700 "$key_home"
trap 'GNUPGHOME="$key_home" gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$key_home"' EXIT
# A key that exists for this run only (no expiry question, no pinentry), with a passphrase, as a
# real release key has.
passphrase="throwaway-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s' "$passphrase" | GNUPGHOME="$key_home" gpg --batch --quiet --pinentry-mode loopback --passphrase-fd 0 \
  --quick-generate-key "txn-rocksdb release test <release-test@txnrocksdb.invalid>" ed25519 sign 1d 2>/dev/null
secret_key="$(printf '%s' "$passphrase" | GNUPGHOME="$key_home" gpg --batch --pinentry-mode loopback --passphrase-fd 0 \
  --armor --export-secret-keys 2>/dev/null)"
GNUPGHOME="$key_home" gpg --batch --armor --export >"$key_home/public.asc"

TXN_RELEASE_GPG_KEY="$secret_key" TXN_RELEASE_GPG_PASSPHRASE="$passphrase" "$root/scripts/release.sh" --bundle "${args[@]}"
version="$("$root/scripts/version.sh" --release)"
bundle="$root/dist/txn-rocksdb-$version-bundle.zip"
python3 "$root/scripts/check-bundle.py" "$bundle" --public-key "$key_home/public.asc" --self-test

# The bundle as a repository a build can resolve from (what Central serves once it is published).
rm -rf "$root/dist/repository"
mkdir -p "$root/dist/repository"
(cd "$root/dist/repository" && unzip -q "$bundle")
echo "check-release.sh: dist/repository/ serves dev.txnrocksdb:txn-rocksdb-streams:$version and dev.txnrocksdb:txn-rocksdb-tool:$version"
