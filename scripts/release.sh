#!/usr/bin/env bash
# Builds the multi-platform jar: the native library of every platform asked for, under
# native/<platform>/ with its library.properties (version, SHA-256, size, commit, rustc), in one
# txn-rocksdb-streams jar (with its sources and javadoc jars), and the operators' tool, whose
# runnable jar shades that very jar (built in the same Maven run; the native/ entries of the two are
# checked to be the same bytes), both copied to dist/ with a table of the libraries
# (dist/platforms.txt). Each library is checked, or the release fails: its SHA-256 against its entry
# in the jar, its architecture (`file`), its exports (every Java_* function the jar's classes
# declare native must be exported: nm, llvm-nm, llvm-objdump) and, for macOS and Windows, the
# libraries it links (only the system's: libSystem, libc++, libiconv and the CoreFoundation and
# Security frameworks on macOS; no MinGW runtime DLL on Windows).
#
#   scripts/release.sh [--platforms=P,P,...] [--from=DIR] [--bundle]
#
# --platforms: default all, the five platforms the loader knows, which a linux-x86_64 Debian machine
#   builds (linux-aarch64, windows-x86_64, darwin-aarch64 and darwin-x86_64 cross-built:
#   scripts/install-cross-deps.sh --aarch64 --windows --darwin, then a cold build of RocksDB for each,
#   each about as long as the native one). `host` means this machine's only (what ./test.sh checks).
# --from=DIR: take the libraries from DIR/native/<platform>/ (as scripts/build-native.sh writes them
#   into a classes directory) instead of building them: how .github/workflows/release.yml assembles
#   the jar from the libraries its runners built on each OS. Without it, every platform asked for is
#   built here, which works for this machine's platform and the cross builds build-native.sh knows.
# --bundle: builds the release version (the POM's revision without -SNAPSHOT, each jar entry at the
#   last commit's time) and the upload Maven Central's publisher portal takes, two components:
#   dev.txnrocksdb:txn-rocksdb-streams and dev.txnrocksdb:txn-rocksdb-tool, each with its jar (the
#   tool's: the runnable shaded jar), sources and javadoc jars, flattened POM (the tool's without
#   dependencies: they are inside its jar), bills of materials (Java, native) and third-party notices,
#   each file with an ASCII-armored signature and .md5/.sha1/.sha256/.sha512 checksums, in Central's
#   repository layout, zipped to dist/txn-rocksdb-<version>-bundle.zip. Signs with
#   the key in $TXN_RELEASE_GPG_KEY (an ASCII-armored secret key) and $TXN_RELEASE_GPG_PASSPHRASE,
#   imported into a temporary GnuPG home that is removed after (RELEASING.md); neither is ever
#   printed or passed on a command line. scripts/check-release.sh is its test.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=scripts/platform.sh
source "$root/scripts/platform.sh"
platforms="$(IFS=,; echo "${all_platforms[*]}")"
from=""
bundle=false
for arg in "$@"; do
  case "$arg" in
    --platforms=all) platforms="$(IFS=,; echo "${all_platforms[*]}")" ;;
    --platforms=host) platforms="$(host_platform)" ;;
    --platforms=*) platforms="${arg#*=}" ;;
    --from=*) from="$(cd "${arg#*=}" && pwd)" ;;
    --bundle) bundle=true ;;
    *) echo "release.sh: unknown argument $arg" >&2; exit 2 ;;
  esac
done
command -v file >/dev/null 2>&1 || { echo "release.sh: needs file(1) (apt-get install file)" >&2; exit 1; }
version="$("$root/scripts/version.sh")"
maven_version=()
if [[ $bundle == true ]]; then
  [[ -n ${TXN_RELEASE_GPG_KEY:-} ]] || {
    echo "release.sh: --bundle signs with the ASCII-armored secret key in TXN_RELEASE_GPG_KEY (and its passphrase in TXN_RELEASE_GPG_PASSPHRASE); see RELEASING.md" >&2
    exit 1
  }
  command -v gpg >/dev/null 2>&1 || { echo "release.sh: --bundle needs gpg (apt-get install gnupg)" >&2; exit 1; }
  version="$("$root/scripts/version.sh" --release)"
  maven_version=(-Drevision="$version")
  # Every jar entry at the commit's time: two builds of one commit give the same bytes.
  if commit_time="$(git -C "$root" log -1 --format=%cI 2>/dev/null)" && [[ -n $commit_time ]]; then
    maven_version+=(-Dproject.build.outputTimestamp="$commit_time")
  fi
fi
IFS=, read -r -a wanted <<<"$platforms"
target="${CARGO_TARGET_DIR:-$root/target}"
staging="$target/release-jar"
rm -rf "$staging"
mkdir -p "$staging"

for platform in "${wanted[@]}"; do
  library_file "$platform" >/dev/null
  if [[ -n $from ]]; then
    [[ -f $from/native/$platform/library.properties ]] || {
      echo "release.sh: $from/native/$platform/ has no library.properties (build it with scripts/build-native.sh --platform=$platform DIR)" >&2
      exit 1
    }
    mkdir -p "$staging/native"
    cp -rp "$from/native/$platform" "$staging/native/"
  else
    echo "release.sh: building $platform"
    CARGO_TARGET_DIR="$target" "$root/scripts/build-native.sh" --platform="$platform" "$staging"
  fi
done

# The licences of what the libraries link and their bill of materials (Maven's own execution of
# this is skipped with the native build below).
"$root/scripts/third-party-notices.sh" "$staging/META-INF"

# The jar, with every staged library and none built by Maven itself (exec.skip: the staging
# directory already holds this machine's library, if it was asked for), and the tool's jar, which
# shades the library's jar of this same run (the reactor hands the tool the packaged jar). The
# libraries an earlier run left in target/classes go first: Maven copies a resource only when it is
# newer than the copy there, and a library built before the last release.sh run (its time kept: cp
# -p) is not, so the jar kept the older library beside the newer library.properties (the checksum
# check below caught it).
rm -rf "$root/java/target/classes/native"
(cd "$root" && mvn -B -q --no-transfer-progress -Dstyle.color=never -pl java,tool -am package -DskipTests -Dexec.skip=true \
  -Dnative.platforms.dir="$staging" "${maven_version[@]}")
jar="$root/java/target/txn-rocksdb-streams-$version.jar"
tool_jar="$root/tool/target/txn-rocksdb-tool-$version.jar"

# Check what the jar holds: each library's bytes against its library.properties, its architecture,
# its exports, what it links.
check="$(mktemp -d)"
trap 'rm -rf "$check"' EXIT
(cd "$check" && jar xf "$jar" native)

# The JNI names of the native methods the jar's classes declare (javap on the classes whose sources
# declare one; `_` is `_1` in a JNI name, `$` `_00024`). Overloaded natives would need JNI's long
# names, which this check does not compute: it refuses them.
natives="$check/natives.txt"
mapfile -t native_classes < <(cd "$root/java/src/main/java" \
  && grep -rlE '^[[:space:]]*(private|public|protected|static|final|[[:space:]])*native[[:space:]]' --include='*.java' . \
  | sed -E 's|^\./||; s|\.java$||; s|/|.|g' | sort)
javap -p -cp "$root/java/target/classes" "${native_classes[@]}" | awk '
  /^[^ ].*(class|interface|enum) / { for (i = 1; i <= NF; i++) if ($i ~ /^(class|interface|enum)$/) { cls = $(i + 1); break } }
  / native / { m = $0; sub(/\(.*/, "", m); n = split(m, w, " "); print cls " " w[n] }' \
  | awk '{ c = $1; m = $2; gsub(/_/, "_1", c); gsub(/\$/, "_00024", c); gsub(/\./, "_", c); gsub(/_/, "_1", m); print "Java_" c "_" m }' \
  | sort >"$natives"
[[ -s $natives ]] || { echo "release.sh: found no native methods in the jar's classes" >&2; exit 1; }
if [[ -n "$(uniq -d "$natives")" ]]; then
  echo "release.sh: overloaded native methods, whose JNI names this check does not compute: $(uniq -d "$natives" | tr '\n' ' ')" >&2
  exit 1
fi

# The Java_* functions a library exports.
exports_of() {
  case "$1" in
    linux-*) nm -D --defined-only "$2" | awk '{print $NF}' ;;
    darwin-*) llvm-nm --extern-only --defined-only "$2" | awk '{print $NF}' | sed 's/^_//' ;;
    windows-*) llvm-objdump -p "$2" | grep -oE '\bJava_[A-Za-z0-9_]+' ;;
  esac | grep '^Java_' | sort -u
}
# What a macOS or Windows library links that is not the system's, one per line (empty when fine).
foreign_libraries() {
  case "$1" in
    # (--dylibs-used lists the library's own install name too: --dylib-id tells it.)
    darwin-*) llvm-objdump --macho --dylibs-used "$2" | tail -n +2 | sed -E 's/^[[:space:]]+//; s/ \(compatibility.*//' \
      | grep -vxF "$(llvm-objdump --macho --dylib-id "$2" | tail -n +2 | sed -E 's/^[[:space:]]+//')" \
      | grep -vE '^(/usr/lib/(libSystem\.B|libc\+\+(abi)?(\.1)?|libiconv\.2|libcharset\.1)\.dylib|/System/Library/Frameworks/(CoreFoundation|Security)\.framework/Versions/A/(CoreFoundation|Security))$' || true ;;
    # MinGW's runtime DLLs (libstdc++-6, libgcc_s_seh-1, libwinpthread-1) and the Visual C++
    # runtime (vcruntime140, msvcp140: the redistributable, not part of Windows) are not on every
    # Windows machine; Windows' own DLLs never start with "lib".
    windows-*) llvm-objdump -p "$2" | sed -nE 's/^[[:space:]]*DLL Name: //p' | grep -iE '^(lib|vcruntime|msvcp)' || true ;;
  esac
}
table="| platform | file | bytes | SHA-256 | version | commit | rustc | file(1) |
|---|---|--:|---|---|---|---|---|"
for platform in "${wanted[@]}"; do
  file="$(library_file "$platform")"
  lib="$check/native/$platform/$file"
  props="$check/native/$platform/library.properties"
  [[ -f $lib && -f $props ]] || { echo "release.sh: the jar lacks native/$platform/$file or its library.properties" >&2; exit 1; }
  prop() { sed -nE "s/^$1=(.*)/\\1/p" "$props"; }
  [[ "$(sha256_of "$lib")" == "$(prop sha256)" ]] || { echo "release.sh: native/$platform/$file does not match its SHA-256 in library.properties" >&2; exit 1; }
  described="$(file -b "$lib")"
  case "$platform" in
    linux-x86_64) expect="ELF 64-bit LSB shared object, x86-64*" ;;
    linux-aarch64) expect="ELF 64-bit LSB shared object, ARM aarch64*" ;;
    darwin-x86_64) expect="Mach-O 64-bit x86_64 dynamically linked shared library*" ;;
    darwin-aarch64) expect="Mach-O 64-bit arm64 dynamically linked shared library*" ;;
    windows-x86_64) expect="PE32+*DLL*x86-64*" ;;
  esac
  # shellcheck disable=SC2053 # $expect is a pattern
  [[ $described == $expect ]] || { echo "release.sh: native/$platform/$file is '$described', not '$expect'" >&2; exit 1; }
  if [[ $platform != linux-* ]] && ! command -v llvm-objdump >/dev/null 2>&1; then
    echo "release.sh: checking native/$platform/$file needs llvm-objdump and llvm-nm (apt-get install llvm)" >&2
    exit 1
  fi
  unexported="$(comm -23 "$natives" <(exports_of "$platform" "$lib"))"
  [[ -z $unexported ]] || { echo "release.sh: native/$platform/$file does not export $(wc -l <<<"$unexported") of the jar's native methods: $(tr '\n' ' ' <<<"$unexported")" >&2; exit 1; }
  foreign="$(foreign_libraries "$platform" "$lib")"
  [[ -z $foreign ]] || { echo "release.sh: native/$platform/$file links libraries that are not the system's: $(tr '\n' ' ' <<<"$foreign")" >&2; exit 1; }
  table+="
| $platform | $file | $(prop bytes) | \`$(prop sha256)\` | $(prop version) | $(prop commit) | $(prop rustc) | ${described%%, BuildID*} |"
done

# The tool's jar: the library's jar of this run inside it. Every native/ entry (the libraries, their
# library.properties, the version the loader checks) byte for byte the library's, and nothing more
# under native/; the library's pom.properties at this version; its notices appended to the tool's own;
# a main class. A tool that shaded another build of the library (an older jar from ~/.m2, another
# version) fails here.
tool_check="$check/tool"
mkdir -p "$tool_check"
(cd "$tool_check" && jar xf "$tool_jar" native META-INF/THIRD-PARTY-NOTICES.txt META-INF/MANIFEST.MF \
  META-INF/maven/dev.txnrocksdb/txn-rocksdb-streams/pom.properties)
library_entries="$(cd "$check" && find native -type f | LC_ALL=C sort)"
tool_entries="$(cd "$tool_check" && find native -type f | LC_ALL=C sort)"
[[ $library_entries == "$tool_entries" ]] || {
  echo "release.sh: the tool's jar does not carry the library's native/ entries: $(diff <(echo "$library_entries") <(echo "$tool_entries") | grep '^[<>]' | tr '\n' ' ')" >&2
  exit 1
}
while read -r entry; do
  cmp -s "$check/$entry" "$tool_check/$entry" || { echo "release.sh: the tool's jar carries another $entry than the library's jar" >&2; exit 1; }
done <<<"$library_entries"
grep -qx "version=$version" "$tool_check/META-INF/maven/dev.txnrocksdb/txn-rocksdb-streams/pom.properties" || {
  echo "release.sh: the tool's jar shades txn-rocksdb-streams $(sed -n 's/^version=//p' "$tool_check/META-INF/maven/dev.txnrocksdb/txn-rocksdb-streams/pom.properties"), not $version" >&2
  exit 1
}
(cd "$check" && jar xf "$jar" META-INF/THIRD-PARTY-NOTICES.txt META-INF/txn-rocksdb-native.cdx.json)
[[ -f $check/META-INF/THIRD-PARTY-NOTICES.txt && -f $check/META-INF/txn-rocksdb-native.cdx.json ]] || {
  echo "release.sh: the jar lacks META-INF/THIRD-PARTY-NOTICES.txt or META-INF/txn-rocksdb-native.cdx.json" >&2
  exit 1
}
# AppendingTransformer: the tool's notices of its Java libraries, then the library's, whole (followed
# by the newline the transformer writes after each part).
notices_bytes="$(wc -c <"$check/META-INF/THIRD-PARTY-NOTICES.txt")"
tool_notices="$tool_check/META-INF/THIRD-PARTY-NOTICES.txt"
tail -c "$notices_bytes" "$tool_notices" | cmp -s - "$check/META-INF/THIRD-PARTY-NOTICES.txt" \
  || tail -c "$((notices_bytes + 1))" "$tool_notices" | head -c "$notices_bytes" | cmp -s - "$check/META-INF/THIRD-PARTY-NOTICES.txt" || {
  echo "release.sh: the tool's META-INF/THIRD-PARTY-NOTICES.txt does not end with the library's (the native library's notices)" >&2
  exit 1
}
grep -q '^Main-Class: dev.txnrocksdb.tool.TxnRocksDbTool' "$tool_check/META-INF/MANIFEST.MF" || {
  echo "release.sh: the tool's jar has no Main-Class dev.txnrocksdb.tool.TxnRocksDbTool" >&2
  exit 1
}

mkdir -p "$root/dist"
rm -f "$root/dist/"txn-rocksdb-streams-*.jar "$root/dist/"txn-rocksdb-tool-*.jar
cp "$root/java/target/txn-rocksdb-streams-$version"*.jar "$root/dist/"
cp "$tool_jar" "$root/dist/"
printf '%s\n' "$table" >"$root/dist/platforms.txt"
echo "release.sh: dist/txn-rocksdb-streams-$version.jar carries:"
printf '%s\n' "$table"
echo "release.sh: dist/txn-rocksdb-tool-$version.jar, the operators' tool, carries the same libraries ($(wc -l <<<"$library_entries") files under native/)"

[[ $bundle == true ]] || exit 0

# The bundle: Central's repository layout, every file signed and checksummed. Two components, each
# with the same files: txn-rocksdb-streams (the library) and txn-rocksdb-tool (the operators' tool:
# its runnable jar, which carries the library and the native libraries, so it has the native bill of
# materials too, and notices of the Java libraries it carries followed by the native library's).
bundle_dir="$target/release-bundle"
rm -rf "$bundle_dir"
layouts=()
# bundle_component ARTIFACT MODULE: the module's jars, flattened POM and Java bill of materials; the
# notices and the native bill of materials from the jar itself (so they are what was built and shipped).
bundle_component() {
  local artifact="$1" module="$2" base layout unpacked
  base="$artifact-$version"
  layout="$bundle_dir/dev/txnrocksdb/$artifact/$version"
  unpacked="$check/bundle-$artifact"
  mkdir -p "$layout" "$unpacked"
  cp "$root/$module/target/$base.jar" "$root/$module/target/$base-sources.jar" "$root/$module/target/$base-javadoc.jar" "$layout/"
  cp "$root/$module/.flattened-pom.xml" "$layout/$base.pom"
  [[ -f $root/$module/target/bom.json ]] || {
    echo "release.sh: $module/target/bom.json is missing (cyclonedx-maven-plugin runs only when Maven is online)" >&2
    exit 1
  }
  cp "$root/$module/target/bom.json" "$layout/$base-cyclonedx.json"
  (cd "$unpacked" && jar xf "$layout/$base.jar" META-INF/THIRD-PARTY-NOTICES.txt META-INF/txn-rocksdb-native.cdx.json)
  [[ -f $unpacked/META-INF/THIRD-PARTY-NOTICES.txt && -f $unpacked/META-INF/txn-rocksdb-native.cdx.json ]] || {
    echo "release.sh: $base.jar lacks META-INF/THIRD-PARTY-NOTICES.txt or META-INF/txn-rocksdb-native.cdx.json" >&2
    exit 1
  }
  cp "$unpacked/META-INF/THIRD-PARTY-NOTICES.txt" "$layout/$base-third-party-notices.txt"
  cp "$unpacked/META-INF/txn-rocksdb-native.cdx.json" "$layout/$base-cyclonedx-native.json"
  grep -q -- '-SNAPSHOT' "$layout/$base.pom" && { echo "release.sh: $base.pom names a -SNAPSHOT version" >&2; exit 1; }
  layouts+=("$layout")
}
bundle_component txn-rocksdb-streams java
bundle_component txn-rocksdb-tool tool

# The key lives only in a GnuPG home of this run (mode 700, removed on exit); the passphrase reaches
# gpg on a pipe, never on its command line.
export GNUPGHOME
GNUPGHOME="$(mktemp -d)"
chmod 700 "$GNUPGHOME"
trap 'rm -rf "$check"; gpgconf --kill all >/dev/null 2>&1 || true; rm -rf "$GNUPGHOME"' EXIT
printf '%s\n' "$TXN_RELEASE_GPG_KEY" | gpg --batch --quiet --import 2>/dev/null || {
  echo "release.sh: TXN_RELEASE_GPG_KEY holds no secret key gpg can import" >&2
  exit 1
}
key="$(gpg --batch --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }')"
[[ -n $key ]] || { echo "release.sh: TXN_RELEASE_GPG_KEY holds no secret key" >&2; exit 1; }
sign() {
  printf '%s' "${TXN_RELEASE_GPG_PASSPHRASE:-}" | gpg --batch --quiet --yes --pinentry-mode loopback --passphrase-fd 0 \
    --local-user "$key" --armor --detach-sign --output "$1.asc" "$1"
}
files=()
for layout in "${layouts[@]}"; do files+=("$layout"/*); done
for f in "${files[@]}"; do
  sign "$f" || { echo "release.sh: gpg could not sign $(basename "$f") with the key in TXN_RELEASE_GPG_KEY (wrong TXN_RELEASE_GPG_PASSPHRASE?)" >&2; exit 1; }
  md5sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.md5"
  sha1sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha1"
  sha256sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha256"
  sha512sum "$f" | cut -d' ' -f1 | tr -d '\n' >"$f.sha512"
done
zip_file="$root/dist/txn-rocksdb-$version-bundle.zip"
rm -f "$root/dist/"txn-rocksdb-*-bundle.zip
(cd "$bundle_dir" && find dev -type f | LC_ALL=C sort | zip -q -X -@ "$zip_file")
for layout in "${layouts[@]}"; do
  base="$(basename "$(dirname "$layout")")-$version"
  cp "$layout/$base.pom" "$layout/$base-cyclonedx.json" "$layout/$base-cyclonedx-native.json" \
    "$layout/$base-third-party-notices.txt" "$root/dist/"
done
echo "release.sh: dist/txn-rocksdb-$version-bundle.zip ($(find "$bundle_dir" -type f | wc -l) files: txn-rocksdb-streams and txn-rocksdb-tool, signed by $key), for Central's publisher portal"
