#!/usr/bin/env bash
# The project's version, written in one place: the root POM's `revision` property. Everything else
# that must name it is derived from it by this script and checked against it by ./test.sh.
#
#   scripts/version.sh                 prints the version (e.g. 0.1.0-SNAPSHOT)
#   scripts/version.sh --release       prints the version a release of this tree publishes (0.1.0)
#   scripts/version.sh --check         fails naming every place that disagrees with the revision
#   scripts/version.sh --set X.Y.Z[-SNAPSHOT]
#                                      changes the revision and every derived place; a release
#                                      version (no -SNAPSHOT) also changes the README's coordinates
#
# The derived places: the Rust workspace's version (Cargo.toml and Cargo.lock: the native library's
# version, which the jar's loader requires to be its own without -SNAPSHOT) and the examples, which
# are builds of their own (the wordcount demo, whose version the tests module depends on, Spring
# Boot, Quarkus, the Gradle app). The README shows the last release a user can add, so --check
# leaves it alone.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

revision() { sed -nE 's:.*<revision>([^<]+)</revision>.*:\1:p' "$root/pom.xml" | head -n1; }
cargo_version() { sed -nE '/^\[workspace\.package\]/,/^\[/ s/^version *= *"([^"]+)".*/\1/p' "$root/Cargo.toml" | head -n1; }
# The version of a workspace crate as Cargo.lock records it.
locked_version() { awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' "$root/Cargo.lock"; }
crates=(txn-rocksdb txn-rocksdb-format txn-rocksdb-jni)

# "file|description|sed -E expression printing the version found there"
places=(
  "examples/wordcount/pom.xml|the wordcount demo's own version|0,/<artifactId>wordcount<\/artifactId>/d; s:^  <version>([^<]+)</version>.*:\1:p"
  "examples/wordcount/pom.xml|the wordcount demo's dependency on the library|/<artifactId>txn-rocksdb-streams<\/artifactId>/{n; s:.*<version>([^<]+)</version>.*:\1:p}"
  "examples/spring-boot/pom.xml|txn-rocksdb.version|s:.*<txn-rocksdb.version>([^<]+)</txn-rocksdb.version>.*:\1:p"
  "examples/quarkus/pom.xml|txn-rocksdb.version|s:.*<txn-rocksdb.version>([^<]+)</txn-rocksdb.version>.*:\1:p"
  "examples/gradle-app/build.gradle|the dependency line|s/.*'dev\.txnrocksdb:txn-rocksdb-streams:([^']+)'.*/\1/p"
)

check() {
  local version release bad=0 entry file what expr found
  version="$(revision)"
  release="${version%-SNAPSHOT}"
  [[ -n $version ]] || { echo "version.sh: pom.xml has no <revision> property" >&2; exit 1; }
  if [[ "$(cargo_version)" != "$release" ]]; then
    echo "version.sh: Cargo.toml's workspace version is '$(cargo_version)', not $release (the revision $version without -SNAPSHOT)" >&2
    bad=1
  fi
  for crate in "${crates[@]}"; do
    if [[ "$(locked_version "$crate")" != "$release" ]]; then
      echo "version.sh: Cargo.lock has $crate at '$(locked_version "$crate")', not $release (cargo update --workspace)" >&2
      bad=1
    fi
  done
  for entry in "${places[@]}"; do
    IFS='|' read -r file what expr <<<"$entry"
    found="$(sed -nE "$expr" "$root/$file" | head -n1)"
    if [[ "$found" != "$version" ]]; then
      echo "version.sh: $file ($what) says '$found', not $version" >&2
      bad=1
    fi
  done
  if ((bad)); then
    echo "version.sh: the version is pom.xml's revision ($version); scripts/version.sh --set $version writes it everywhere" >&2
    exit 1
  fi
  echo "version.sh: $version everywhere (the native library: $release)"
}

set_version() {
  local new="$1" old release
  [[ $new =~ ^[0-9]+\.[0-9]+\.[0-9]+(-SNAPSHOT)?$ ]] || { echo "version.sh: '$new' is not X.Y.Z or X.Y.Z-SNAPSHOT" >&2; exit 2; }
  old="$(revision)"
  release="${new%-SNAPSHOT}"
  sed -i -E "s:<revision>[^<]+</revision>:<revision>$new</revision>:" "$root/pom.xml"
  sed -i -E "/^\[workspace\.package\]/,/^\[/ s/^version *= *\"[^\"]+\"/version = \"$release\"/" "$root/Cargo.toml"
  for crate in "${crates[@]}"; do
    sed -i -E "/^name = \"$crate\"\$/{n; s/^version = \"[^\"]+\"/version = \"$release\"/}" "$root/Cargo.lock"
  done
  for entry in "${places[@]}"; do
    IFS='|' read -r file _ _ <<<"$entry"
    sed -i "s/${old//./\\.}/$new/g" "$root/$file"
  done
  for readme in examples/spring-boot/README.md examples/quarkus/README.md; do
    sed -i "s/${old//./\\.}/$new/g" "$root/$readme"
  done
  if [[ $new != *-SNAPSHOT ]]; then
    sed -i -E "s/(dev\.txnrocksdb:txn-rocksdb-(streams|tool):)[0-9]+\.[0-9]+\.[0-9]+(-SNAPSHOT)?/\1$new/g" "$root/README.md"
    NEW="$new" perl -0pi -e 's{(<artifactId>txn-rocksdb-streams</artifactId>\s*<version>)[^<]+}{$1$ENV{NEW}}g' "$root/README.md"
  fi
  check
}

case "${1:-}" in
  "") revision ;;
  --release) v="$(revision)"; echo "${v%-SNAPSHOT}" ;;
  --check) check ;;
  --set) [[ $# -eq 2 ]] || { echo "usage: scripts/version.sh --set X.Y.Z[-SNAPSHOT]" >&2; exit 2; }; set_version "$2" ;;
  *) echo "usage: scripts/version.sh [--release | --check | --set X.Y.Z[-SNAPSHOT]]" >&2; exit 2 ;;
esac
