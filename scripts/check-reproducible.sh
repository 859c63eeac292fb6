#!/usr/bin/env bash
# Checks that the Java part of the release builds reproducibly: the tree is laid out twice, in two
# temporary directories of different names, and `mvn package` of the java module is run in each, some
# seconds apart, with the same native library (already built: cargo's output in $CARGO_TARGET_DIR,
# else target/, as scripts/build-native.sh --skip-cargo=true copies it). The main jar, the sources jar
# and the javadoc jar of the two builds must be identical byte for byte (cmp); on any difference the
# entries that differ are printed (content, or only their times in the zip) and the script exits 1.
#
#   scripts/check-reproducible.sh [--head] [--keep] [-- MAVEN_ARGS...]
#
# Default: the working tree as it is, committed or not (tracked and untracked files that git does not
# ignore, deleted ones left out), copied once and laid out twice from that one copy; --head: a clone
# of the commit HEAD instead (what CI's fresh clone holds). --keep leaves the two trees in place
# (their path is printed). MAVEN_ARGS go to both builds, e.g. `-- -Dproject.build.outputTimestamp=...`
# to try a setting before it is in the POM. Maven runs offline (-o): the plugins must already be in
# ~/.m2 (any earlier `mvn package` of the java module puts them there). About a minute warm on 2 cores (two builds of 20-30 s).
# Also compared when the build writes them: java/.flattened-pom.xml and java/target/bom.json.
# The native libraries themselves are not compared here (their build takes 35 minutes): what makes
# them differ between two machines is written in .github/workflows/release.yml, job `native`.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
head=false
keep=false
maven_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --head) head=true ;;
    --keep) keep=true ;;
    --) shift; maven_args=("$@"); break ;;
    *) echo "check-reproducible.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
target="${CARGO_TARGET_DIR:-$root/target}"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
lib="$target/release/$(library_file "$(host_platform)")"
[[ -f $lib ]] || {
  echo "check-reproducible.sh: $lib is missing: build it first (scripts/build-native.sh, or cargo build --release --workspace) or set CARGO_TARGET_DIR" >&2
  exit 1
}
target="$(cd "$target" && pwd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/txn-repro.XXXXXX")"
if [[ $keep == true ]]; then
  trap 'echo "check-reproducible.sh: trees kept in $work"' EXIT
else
  trap 'rm -rf "$work"' EXIT
fi
# Two names of different lengths, so that any absolute path that leaks into an output shows.
first="$work/a"
second="$work/second-build-tree"
if [[ $head == true ]]; then
  what="HEAD ($(git -C "$root" rev-parse --short HEAD))"
  git clone -q --no-hardlinks "$root" "$first"
  git clone -q --no-hardlinks "$root" "$second"
else
  what="the working tree"
  # One snapshot, laid out twice: both builds see the same bytes even while files are being edited.
  (cd "$root" && git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [[ -f $f || -L $f ]] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf "$work/tree.tar")
  mkdir -p "$first" "$second"
  tar -xf "$work/tree.tar" -C "$first"
  tar -xf "$work/tree.tar" -C "$second"
  rm -f "$work/tree.tar"
fi

build() {
  local tree="$1" started
  started=$(date +%s)
  # Maven's output (only errors with -q) to a log, shown when it fails.
  if ! (cd "$tree" && CARGO_TARGET_DIR="$target" mvn -B -o -q --no-transfer-progress -Dstyle.color=never \
    -pl java package -DskipTests -Dcargo.skip=true "${maven_args[@]}") >"$tree.log" 2>&1; then
    cat "$tree.log" >&2
    echo "check-reproducible.sh: the build in $tree failed (offline: are the plugins in ~/.m2? run mvn -pl java -am package once)" >&2
    exit 1
  fi
  echo "check-reproducible.sh: built in $tree ($(( $(date +%s) - started )) s)"
}
echo "check-reproducible.sh: building the java module twice from $what${maven_args[*]:+ with ${maven_args[*]}}"
build "$first"
# Different times: anything the build stamps with the clock differs by at least these seconds.
sleep 2
build "$second"

version="$(cd "$first/java/target" && find . -maxdepth 1 -name 'txn-rocksdb-streams-*-sources.jar' \
  | sed -E 's:^\./txn-rocksdb-streams-(.*)-sources\.jar$:\1:')"
[[ -n $version ]] || { echo "check-reproducible.sh: no sources jar in $first/java/target" >&2; exit 1; }

# What differs between two zips: entries only in one, entries whose bytes differ (with the first
# changed lines of a text diff), entries whose times in the zip differ, or their order.
times_of() { zipinfo -T "$1" | awk '$1 ~ /^[-dl][-rwxsStT]+$/ && NF >= 8 {print $7, $NF}'; }
explain() {
  local a="$1" b="$2" x="$work/x1" y="$work/x2"
  if command -v diffoscope >/dev/null 2>&1; then
    diffoscope --text - "$a" "$b" | head -n 80 || true
    return 0
  fi
  rm -rf "$x" "$y"
  mkdir -p "$x" "$y"
  (cd "$x" && unzip -q "$a")
  (cd "$y" && unzip -q "$b")
  local entries_a entries_b
  entries_a="$(unzip -Z1 "$a")"
  entries_b="$(unzip -Z1 "$b")"
  if [[ $entries_a != "$entries_b" ]]; then
    if [[ "$(sort <<<"$entries_a")" == "$(sort <<<"$entries_b")" ]]; then
      echo "    the same entries in another order"
    else
      diff <(sort <<<"$entries_a") <(sort <<<"$entries_b") \
        | sed -nE 's/^< /    only in the first: /p; s/^> /    only in the second: /p' || true
    fi
  fi
  local differ=0 times entry
  while IFS= read -r entry; do
    [[ -f $x/$entry && -f $y/$entry ]] || continue
    cmp -s "$x/$entry" "$y/$entry" && continue
    differ=$((differ + 1))
    [[ $differ -le 10 ]] || continue
    echo "    content differs: $entry"
    if file -b --mime "$x/$entry" | grep -q '^text/'; then
      { diff -u "$x/$entry" "$y/$entry" || true; } | sed -n '3,$p' | grep -E '^[-+]' | head -n 4 | sed 's/^/        /' || true
    fi
  done <<<"$entries_a"
  [[ $differ -le 10 ]] || echo "    ... and $((differ - 10)) more entries whose content differs"
  times="$({ diff <(times_of "$a") <(times_of "$b") || true; } | grep -c '^<' || true)"
  if [[ $times -gt 0 ]]; then
    echo "    entries whose time in the zip differs, e.g. (first build <, second >):"
    { diff <(times_of "$a") <(times_of "$b") || true; } | grep -E '^[<>]' | head -n 4 | sed 's/^/      /' || true
  fi
  echo "    $differ of $(wc -l <<<"$entries_a") entries differ in content, $times in time"
}

status=0
for suffix in "" -sources -javadoc; do
  name="txn-rocksdb-streams-$version$suffix.jar"
  a="$first/java/target/$name"
  b="$second/java/target/$name"
  [[ -f $a && -f $b ]] || { echo "check-reproducible.sh: $name missing from a build" >&2; status=1; continue; }
  if cmp -s "$a" "$b"; then
    echo "check-reproducible.sh: $name identical ($(wc -c <"$a" | tr -d ' ') bytes, sha256 $(sha256_of "$a"))"
  else
    echo "check-reproducible.sh: $name DIFFERS between the two builds:"
    explain "$a" "$b"
    status=1
  fi
done
# What the release bundle takes besides the jars, when the build makes them: the flattened POM and
# the Java SBOM (CycloneDX: its timestamp and serial number must come from outputTimestamp too).
for file in .flattened-pom.xml target/bom.json; do
  a="$first/java/$file"
  b="$second/java/$file"
  [[ -f $a || -f $b ]] || continue
  if [[ -f $a && -f $b ]] && cmp -s "$a" "$b"; then
    echo "check-reproducible.sh: java/$file identical"
  else
    echo "check-reproducible.sh: java/$file DIFFERS between the two builds:"
    { diff -u "$a" "$b" 2>&1 || true; } | sed -n '3,$p' | grep -E '^[-+]|No such' | head -n 6 | sed 's/^/    /' || true
    status=1
  fi
done
if [[ $status -ne 0 ]]; then
  echo "check-reproducible.sh: the Java build is not reproducible (see above)" >&2
fi
exit "$status"
