#!/usr/bin/env bash
# Fails unless docs/architecture.md names every Rust module and every Java package and class of the
# library, each under its own layer's heading, so that the document cannot silently fall behind the
# code. Fast (find, grep, awk; nothing is built). Run from anywhere: ./test.sh runs it.
#
# How things are named (docs/architecture.md follows this):
# - A Rust module by its file's path under its crate's src/, in backticks: `foo.rs` for
#   src/foo.rs (`lib.rs` too), `foo/` for a folder module (src/foo/mod.rs), `foo/bar.rs` for a file
#   inside it (src/foo/bar.rs). A crate's modules must be named in the section whose heading names
#   the crate's folder (`rust/format`, `rust/core`, `rust/jni`).
# - A Java package by its full name in backticks (`dev.txnrocksdb.streams.internals.nativeapi`) in
#   the heading of its section, and each of its classes (every .java file directly in the package's
#   folder but package-info.java) by its simple name in backticks (`NativeStore`) in that section.
# - A section runs from its heading to the next heading of the same or a higher level (#### headings
#   inside it belong to it).
# - The other way round: a list item of such a section that starts with a name in backticks
#   ("- `foo.rs`: its job") must name a module or class that exists, so that a name the code dropped
#   or renamed does not stay behind.
set -euo pipefail
cd "$(dirname "$0")/.."

doc=docs/architecture.md
[[ -f $doc ]] || { echo "check-architecture.sh: $doc is missing" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

problems=()

# The lines of the section whose heading (## to ####) contains $1 literally, heading included.
section() {
  awk -v key="$1" '
    /^#+ / {
      level = length($1)
      if (inside && level <= start) { exit }
      if (!inside && level >= 2 && index($0, key)) { inside = 1; start = level }
    }
    inside { print }
  ' "$doc"
}

# Checks section "$1" (described as "$2" in messages) against the names and files listed, one
# "<name><TAB><file>" per line, on standard input: every name must be in the section, and every list
# item of the section that starts with a backticked name must be one of them.
check_section() {
  local key="$1" label="$2" text listed name file first
  listed="$(cat)"
  text="$(section "$key")"
  if [[ -z $text ]]; then
    problems+=("no heading naming $key in $doc: add a heading for $label (e.g. '### ... $key ...') and list its modules or classes under it, one line each")
    return
  fi
  while IFS=$'\t' read -r name file; do
    [[ -n $name ]] || continue
    if ! grep -qF -- "\`$name\`" <<<"$text"; then
      problems+=("\`$name\` ($file) is not named under the heading for $label: add a line '- \`$name\`: <its one job, from its opening doc comment>' there")
    fi
  done <<<"$listed"
  # Stale names: list items whose first backticked name is no module or class of this section.
  while IFS= read -r first; do
    [[ -n $first ]] || continue
    if ! cut -f1 <<<"$listed" | grep -qxF -- "$first"; then
      problems+=("\`$first\` is listed under the heading for $label but no such module or class exists: rename or remove its line")
    fi
  done < <(sed -n 's/^[[:space:]]*[-*] `\([^`]*\)`.*/\1/p' <<<"$text")
}

# Rust: one section per crate. A module's name: its path under src/, `foo/` for foo/mod.rs.
for crate in rust/format rust/core rust/jni; do
  find "$crate/src" -name '*.rs' -type f | LC_ALL=C sort | while IFS= read -r file; do
    rel="${file#"$crate/src/"}"
    case "$rel" in
      */mod.rs) printf '%s\t%s\n' "${rel%mod.rs}" "$file" ;;
      *) printf '%s\t%s\n' "$rel" "$file" ;;
    esac
  done > "$tmp/names"
  check_section "\`$crate\`" "the crate $crate" < "$tmp/names"
done

# Java: one section per package of the library (java/src/main/java), naming each of its classes.
root=java/src/main/java
while IFS= read -r dir; do
  : > "$tmp/names"
  for file in "$dir"/*.java; do
    [[ -e $file ]] || continue
    class="$(basename "$file" .java)"
    [[ $class == package-info ]] && continue
    printf '%s\t%s\n' "$class" "$file" >> "$tmp/names"
  done
  [[ -s $tmp/names ]] || continue # a folder without classes is no package
  package="${dir#"$root/"}"
  check_section "\`${package//\//.}\`" "the package ${package//\//.}" < "$tmp/names"
done < <(find "$root" -type d | LC_ALL=C sort)

if ((${#problems[@]})); then
  echo "check-architecture.sh: $doc does not match the code (naming rules: the top of scripts/check-architecture.sh):" >&2
  printf '  - %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "check-architecture.sh: $doc names every Rust module and every Java package and class"
