#!/usr/bin/env bash
# Lists the CoreFoundation and Security symbols a darwin cross build's crates leave undefined
# (llvm-nm -u over every rlib in DEPS, e.g. <target>/cross/darwin/aarch64-apple-darwin/release/deps),
# to put into CoreFoundation.framework/CoreFoundation.tbd and Security.framework/Security.tbd: the
# `symbols` lists of those stubs are these names, the CF/kCF ones in the first, the rest in the second.
set -euo pipefail
deps="${1:?usage: regenerate.sh <darwin target release/deps directory>}"
for f in "$deps"/lib*.rlib; do llvm-nm -u "$f" 2>/dev/null || true; done | awk '{print $NF}' | grep -E '^_(k?Sec|k?CF|k?CMS|Authorization|k?SSL)' | sort -u
